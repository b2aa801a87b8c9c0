// The bases fitted to a finished SMC run's particles (smc/fitted_base.hpp): weighted moments,
// the widening, the box of a truncated base, and when two estimates disagree.
#include "logz/smc/fitted_base.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <string>

#include "logz/core/error.hpp"
#include "logz/models/box_constraints.hpp"

namespace fitted_base_test {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Four particles in 2-D with weights 0.1, 0.2, 0.3, 0.4.
logz::SmcResult four_particles() {
  logz::SmcResult r;
  r.particles.resize(2, 4);
  r.particles << 0.0, 1.0, 2.0, 3.0,  //
      1.0, 1.0, 3.0, 5.0;
  for (const double w : {0.1, 0.2, 0.3, 0.4}) r.log_weights.push_back(std::log(w));
  return r;
}

TEST(FittedBase, GaussianHasTheWeightedMomentsWidened) {
  const logz::SmcResult r = four_particles();
  const VectorXd w = (VectorXd(4) << 0.1, 0.2, 0.3, 0.4).finished();
  const VectorXd mean = r.particles * w;
  const MatrixXd c = r.particles.colwise() - mean;
  const MatrixXd cov = c * w.asDiagonal() * c.transpose() / (1.0 - w.squaredNorm());
  const logz::GaussianBase g = logz::fit_gaussian_base(r, 1.5);
  EXPECT_LT((g.mean() - mean).norm(), 1e-12);
  EXPECT_LT((g.covariance() - 2.25 * cov).norm(), 1e-12);
}

TEST(FittedBase, TruncatedNormalsTakeTheBox) {
  // Coordinate 0 in [-1, 2.5], coordinate 1 bounded below only.
  constexpr double inf = std::numeric_limits<double>::infinity();
  const VectorXd low = (VectorXd(2) << -1.0, 0.0).finished();
  const VectorXd high = (VectorXd(2) << 2.5, inf).finished();
  const logz::SmcResult r = four_particles();
  const logz::TruncatedGaussianBase t = logz::fit_truncated_gaussian_base(r, 1.2, low, high);
  const logz::GaussianBase g = logz::fit_gaussian_base(r, 1.2);
  EXPECT_LT((t.mean() - g.mean()).norm(), 1e-12);
  EXPECT_LT((t.sd() - g.covariance().diagonal().cwiseSqrt()).norm(), 1e-12);
  ASSERT_NE(t.constraints(), nullptr);
  EXPECT_EQ(t.constraints()->num_constraints(), 3);
  MatrixXd X(2, 3);
  X << 2.4, 2.6, 0.0,  //
      0.5, 0.5, -0.1;
  VectorXd e;
  t.energy(X, e);
  EXPECT_TRUE(std::isfinite(e(0)));
  EXPECT_TRUE(std::isinf(e(1)) && std::isinf(e(2)));
}

TEST(BoxConstraints, FiniteEndsInCoordinateOrderIndexedByCoordinate) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const VectorXd low = (VectorXd(3) << -1.0, -inf, 0.0).finished();
  const VectorXd high = (VectorXd(3) << 2.5, inf, inf).finished();
  const auto c = logz::box_constraints(low, high);
  ASSERT_NE(c, nullptr);
  MatrixXd A(3, 3);
  A << 1, 0, 0,  //
      -1, 0, 0,  //
      0, 0, 1;
  EXPECT_EQ(c->A, A);
  EXPECT_EQ(c->b, (VectorXd(3) << -1.0, -2.5, 0.0).finished());
  // Coordinate 0 has two faces: the kernels search the faces (no CoordinateFaces index); with
  // one face per coordinate they reflect each coordinate on its own.
  EXPECT_EQ(c->coordinate_faces, nullptr);
  EXPECT_NE(logz::box_constraints(low, VectorXd::Constant(3, inf))->coordinate_faces, nullptr);
  EXPECT_EQ(logz::box_constraints(VectorXd::Constant(2, -inf), VectorXd::Constant(2, inf)),
            nullptr);
  EXPECT_THROW(logz::box_constraints(low, VectorXd::Zero(2)), logz::InvalidArgument);
}

TEST(FittedBase, RunDisagreesWithPilotBelowItByFourCombinedErrorsAboveItByEight) {
  // Combined SE hypot(0.03, 0.04) = 0.05: m = 4 x 0.05 + 0.05 = 0.25 below, 0.5 above.
  EXPECT_FALSE(logz::run_disagrees_with_pilot(1.0, 0.03, 0.76, 0.04));
  EXPECT_TRUE(logz::run_disagrees_with_pilot(1.0, 0.03, 0.74, 0.04));
  EXPECT_FALSE(logz::run_disagrees_with_pilot(1.0, 0.03, 1.49, 0.04));
  EXPECT_TRUE(logz::run_disagrees_with_pilot(1.0, 0.03, 1.51, 0.04));
  EXPECT_TRUE(logz::run_disagrees_with_pilot(1.0, std::nan(""), 1.0, 0.04));
  EXPECT_TRUE(
      logz::run_disagrees_with_pilot(1.0, 0.03, std::numeric_limits<double>::infinity(), 0.04));
}

}  // namespace fitted_base_test
