// Independent unit-scale Laplace coordinates as an AIS base: the prior of the bilinear
// generative model (Sohl-Dickstein & Culpepper 2011, eqs. 34-35). The first `num_two_sided`
// coordinates have the Laplace density exp(-|x_i|) / 2 on R, the remaining `num_one_sided`
// the one-sided Laplace (exponential) density exp(-x_i) on x_i >= 0. Energy
//   U(x) = sum_{two-sided} |x_i| + sum_{one-sided} x_i        (no constant),
// log Z = num_two_sided log 2, with an exact sampler. The one-sided coordinates' support is
// the constraint set x_i >= 0 (`constraints()`, reflected at by the kernels and checked on
// base draws); below 0, U is the formula's linear continuation (never used by a kernel except
// at rounding distance from the face).
#pragma once

#include <Eigen/Core>

#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class LaplaceBase {
 public:
  // num_two_sided, num_one_sided >= 0 with a sum >= 1 (InvalidArgument).
  LaplaceBase(int num_two_sided, int num_one_sided);

  int dim() const { return num_two_sided_ + num_one_sided_; }
  int num_two_sided() const { return num_two_sided_; }
  int num_one_sided() const { return num_one_sided_; }

  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  // dU/dx = sign(x_i) (0 at 0) for two-sided coordinates, 1 for one-sided ones.
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  double log_z() const;
  // x_i >= 0 for the one-sided coordinates; nullptr when there are none.
  const LinearConstraints* constraints() const {
    return constraints_.empty() ? nullptr : &constraints_;
  }

  // Exact draws: per coordinate in order, m = -log u (u uniform); two-sided coordinates then
  // take the sign - if a second uniform is below 1/2. Column p of X from random.stream(p).
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;
  void sample(Eigen::MatrixXd& X, const BatchRandom& random) const;

 private:
  int num_two_sided_, num_one_sided_;
  LinearConstraints constraints_;
};

static_assert(ConstrainedTarget<LaplaceBase>);

}  // namespace logz
