// A prior for the evidence (evidence/run_evidence.hpp): a normalised density p(x) on R^d with
// an exact sampler, made of independent blocks over consecutive coordinates: Normal (mean;
// covariance dense, diagonal or isotropic), Uniform (a box), Student t (per coordinate), or the
// user's own (callbacks). As a target its energy is U(x) = -log p(x) with every constant kept,
// so log_z() = 0 and an SMC run from the prior to prior x likelihood reads the log evidence off
// SmcResult::absolute_log_z(). A Uniform block's support is given as linear constraints (each
// coordinate between its bounds), which the kernels respect (HMC reflects, MALA and random walk
// reject) and the whitened moves of SMC carry into their coordinates; inside the box the energy
// is constant, so no change of variables (and no Jacobian) is needed.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// One block of coordinates of a prior. Energies are -log p with p normalised.
class PriorBlock {
 public:
  virtual ~PriorBlock() = default;
  virtual int dim() const = 0;
  virtual std::string name() const = 0;  // "normal", "uniform", "student_t", "custom"
  virtual bool has_grad() const = 0;
  // X: dim() x P. e(p) = -log p(X.col(p)); G (dim() x P) = d e / dx.
  virtual void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const = 0;
  virtual void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                               Eigen::MatrixXd& G) const = 0;
  virtual void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const = 0;
  // The box of a Uniform block (empty vectors for the others).
  virtual const Eigen::VectorXd* lower() const { return nullptr; }
  virtual const Eigen::VectorXd* upper() const { return nullptr; }
};

// N(mean, covariance): the covariance k x k symmetric positive definite (InvalidArgument
// naming `covariance` otherwise); a diagonal one is kept as standard deviations.
std::shared_ptr<const PriorBlock> normal_prior(const Eigen::VectorXd& mean,
                                               const Eigen::MatrixXd& covariance);
// Uniform on the box [low, high] (low < high, finite).
std::shared_ptr<const PriorBlock> uniform_prior(const Eigen::VectorXd& low,
                                                const Eigen::VectorXd& high);
// Independent Student t per coordinate: df > 0, scale > 0, loc finite (vectors of one length).
// Draws: loc + scale z / sqrt(g / df), z ~ N(0, 1), g ~ chi^2_df (Marsaglia & Tsang's gamma).
std::shared_ptr<const PriorBlock> student_t_prior(const Eigen::VectorXd& df,
                                                  const Eigen::VectorXd& loc,
                                                  const Eigen::VectorXd& scale);

// The user's own block: `sample` writes one draw (k values) from the stream; `log_density` the
// normalised log density of every column of X (k x P) into out (P); `grad_log_density`, if
// given, the log density and its gradient (k x P). The callbacks may be called from several
// threads at once.
struct CustomPriorFunctions {
  int dim = 0;
  std::function<void(RandomStream&, Eigen::Ref<Eigen::VectorXd>)> sample;
  std::function<void(const Eigen::MatrixXd&, Eigen::VectorXd&)> log_density;
  std::function<void(const Eigen::MatrixXd&, Eigen::VectorXd&, Eigen::MatrixXd&)>
      grad_log_density;  // may be empty
};
std::shared_ptr<const PriorBlock> custom_prior(CustomPriorFunctions functions);

// Marsaglia & Tsang (2000): a Gamma(shape, 1) draw, shape > 0, from normals and uniforms of
// the stream.
double gamma_draw(RandomStream& stream, double shape);

// The product of blocks over consecutive coordinates (block 0 first).
class Prior {
 public:
  explicit Prior(std::vector<std::shared_ptr<const PriorBlock>> blocks);

  int dim() const { return dim_; }
  const std::vector<std::shared_ptr<const PriorBlock>>& blocks() const { return blocks_; }
  bool has_grad() const;  // every block has a gradient
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  double log_z() const { return 0.0; }  // normalised
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;
  // The Uniform blocks' boxes as x_i >= low_i, -x_i >= -high_i (box_constraints; nullptr
  // without one).
  const LinearConstraints* constraints() const { return constraints_.get(); }
  // Per coordinate, the ends of its block's box: -inf and +inf outside Uniform blocks.
  const Eigen::VectorXd& lower_bounds() const { return low_; }
  const Eigen::VectorXd& upper_bounds() const { return high_; }

 private:
  std::vector<std::shared_ptr<const PriorBlock>> blocks_;
  std::vector<int> offsets_;
  int dim_ = 0;
  Eigen::VectorXd low_, high_;
  std::shared_ptr<const LinearConstraints> constraints_;
};

static_assert(ConstrainedTarget<Prior>);

}  // namespace logz
