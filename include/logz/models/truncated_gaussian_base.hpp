// Independent normals N(mean_i, sd_i^2), each truncated to [low_i, high_i] (an end may be
// infinite), as a continuous target and SMC base: U(x) = sum_i (x_i - mean_i)^2 / (2 sd_i^2)
// inside the box and +inf outside, so that
// log Z = sum_i log(sd_i sqrt(2 pi) (Phi(b_i) - Phi(a_i))), a_i = (low_i - mean_i) / sd_i and
// b_i = (high_i - mean_i) / sd_i; exact draws by the inverse CDF (one uniform per coordinate).
// The evidence's refining run starts from it where the prior has a box: a Gaussian would put
// particles where the posterior is 0.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class TruncatedGaussianBase {
 public:
  // Sizes equal (>= 1), sd finite and > 0, low < high, mean finite and inside [low, high]
  // (InvalidArgument naming the argument).
  TruncatedGaussianBase(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                        const Eigen::VectorXd& low, const Eigen::VectorXd& high);

  int dim() const { return static_cast<int>(mean_.size()); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  double log_z() const { return log_z_; }
  void sample(Eigen::MatrixXd& X, const BatchRandom& random) const;
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;
  // The box's finite faces (nullptr where every coordinate is unbounded).
  const LinearConstraints* constraints() const { return constraints_.get(); }

  const Eigen::VectorXd& mean() const { return mean_; }
  const Eigen::VectorXd& sd() const { return sd_; }

 private:
  bool inside(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  Eigen::VectorXd mean_, sd_, low_, high_;
  Eigen::VectorXd cdf_low_, cdf_high_;  // Phi(a_i), Phi(b_i)
  double log_z_ = 0.0;
  std::shared_ptr<const LinearConstraints> constraints_;
};

static_assert(ConstrainedTarget<TruncatedGaussianBase>);

}  // namespace logz
