// A Gaussian mixture conditioned on a box low <= x <= high: the evidence's refining run's base
// where the prior is a box and the posterior's shape wants more than one Gaussian (two thin
// shells, say). The density is the mixture's inside the box and 0 outside (U = +inf), its draws
// the mixture's own, drawn again until inside. A Gaussian with a full covariance has no closed
// form for its mass in a box, so log Z = log P(inside) is estimated from `draws` exact draws of
// the mixture: an unbiased estimate of Z (the fraction inside), independent of any run that
// starts from the base, with the standard error of its log stated (log_z_std_error, added to
// the run's). The draws cost no evaluation of the user's functions.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>

#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class GaussianMixtureInBox {
 public:
  // The mixture conditioned on the box, its mass inside measured by `draws` of its draws from
  // `random` (a stream per draw); nullopt where fewer than `min_inside` of them land inside
  // (each draw of the base would then cost more than 1 / min_inside tries). low < high in
  // every coordinate, as many as the mixture's dimension (InvalidArgument naming `high`).
  static std::optional<GaussianMixtureInBox> measured(
      GaussianMixture mixture, const Eigen::VectorXd& low, const Eigen::VectorXd& high,
      const BatchRandom& random, std::size_t draws = std::size_t{1} << 18, double min_inside = 0.5);

  int dim() const { return mixture_.dim(); }
  int num_components() const { return mixture_.num_components(); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  // log of the mixture's mass (log_z of GaussianMixture) times the fraction inside, estimated.
  double log_z() const { return log_z_; }
  // The estimate's standard error: sqrt((1 - f) / (f M)) for the fraction f of M draws.
  double log_z_std_error() const { return log_z_std_error_; }
  double fraction_inside() const { return fraction_inside_; }
  void sample(Eigen::MatrixXd& X, const BatchRandom& random) const;
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;
  const LinearConstraints* constraints() const { return constraints_.get(); }

 private:
  GaussianMixtureInBox(GaussianMixture mixture, Eigen::VectorXd low, Eigen::VectorXd high);
  bool inside(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  GaussianMixture mixture_;
  Eigen::VectorXd low_, high_;
  double log_z_ = 0.0, log_z_std_error_ = 0.0, fraction_inside_ = 1.0;
  std::shared_ptr<const LinearConstraints> constraints_;
};

static_assert(ConstrainedTarget<GaussianMixtureInBox>);

}  // namespace logz
