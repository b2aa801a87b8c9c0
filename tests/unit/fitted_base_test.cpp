// The bases fitted to a finished SMC run's particles (smc/fitted_base.hpp): weighted moments,
// the widening, the box of a truncated base, and when two estimates disagree.
#include "logz/smc/fitted_base.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <string>

#include "logz/core/error.hpp"

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

TEST(FittedBase, TruncatedNormalsTakeTheBoxOfTheConstraints) {
  // Coordinate 0 in [-1, 2.5], coordinate 1 bounded below only.
  logz::LinearConstraints box;
  box.A.setZero(3, 2);
  box.b.resize(3);
  box.A(0, 0) = 1.0, box.b(0) = -1.0;
  box.A(1, 0) = -2.0, box.b(1) = -5.0;  // -2 x0 >= -5: x0 <= 2.5
  box.A(2, 1) = 1.0, box.b(2) = 0.0;
  const logz::SmcResult r = four_particles();
  const logz::TruncatedGaussianBase t = logz::fit_truncated_gaussian_base(r, 1.2, box);
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
  // A face across two coordinates is not a box.
  box.A(2, 0) = 1.0;
  try {
    logz::fit_truncated_gaussian_base(r, 1.2, box);
    ADD_FAILURE() << "no error for a face across two coordinates";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("box"), std::string::npos) << e.what();
  }
}

TEST(FittedBase, TwoEstimatesDisagreeBeyondFourCombinedErrorsAndAnAllowance) {
  // Combined SE hypot(0.03, 0.04) = 0.05: the line is at 4 x 0.05 + 0.05 = 0.25.
  EXPECT_FALSE(logz::two_estimates_disagree(1.0, 0.03, 1.24, 0.04));
  EXPECT_TRUE(logz::two_estimates_disagree(1.0, 0.03, 1.26, 0.04));
  EXPECT_TRUE(logz::two_estimates_disagree(1.26, 0.03, 1.0, 0.04));
  EXPECT_TRUE(logz::two_estimates_disagree(1.0, std::nan(""), 1.0, 0.04));
  EXPECT_TRUE(
      logz::two_estimates_disagree(1.0, 0.03, std::numeric_limits<double>::infinity(), 0.04));
}

}  // namespace fitted_base_test
