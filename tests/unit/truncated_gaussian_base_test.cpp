// Normals truncated to a box (models/truncated_gaussian_base.hpp): log Z against quadrature,
// draws against the truncated normal's exact moments, energies outside the box, bad input.
#include "logz/models/truncated_gaussian_base.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "logz/core/error.hpp"

namespace truncated_gaussian_base_test {

using Eigen::MatrixXd;
using Eigen::VectorXd;
constexpr double kInf = std::numeric_limits<double>::infinity();

// One coordinate's exact mean and variance: N(m, s^2) truncated to [lo, hi].
void truncated_moments(double m, double s, double lo, double hi, double& mean, double& var) {
  const auto pdf = [](double z) {
    return std::isinf(z) ? 0.0 : std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
  };
  const auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double a = (lo - m) / s, b = (hi - m) / s, mass = cdf(b) - cdf(a);
  const double za = std::isinf(a) ? 0.0 : a * pdf(a), zb = std::isinf(b) ? 0.0 : b * pdf(b);
  const double shift = (pdf(a) - pdf(b)) / mass;
  mean = m + s * shift;
  var = s * s * (1.0 + (za - zb) / mass - shift * shift);
}

TEST(TruncatedGaussianBase, LogZIsTheIntegralOfExpMinusEnergy) {
  // Coordinate by coordinate on a fine grid (midpoints), summed in log space.
  VectorXd m(3), s(3), lo(3), hi(3);
  m << 0.2, -1.0, 3.0;
  s << 0.5, 2.0, 0.1;
  lo << 0.0, -kInf, -5.0;
  hi << 1.0, 0.5, 3.05;
  const logz::TruncatedGaussianBase base(m, s, lo, hi);
  double log_z = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double a = std::isinf(lo(i)) ? m(i) - 40.0 * s(i) : lo(i), b = hi(i);
    const int n = 200000;
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
      const double x = a + (k + 0.5) * (b - a) / n;
      sum += std::exp(-0.5 * std::pow((x - m(i)) / s(i), 2));
    }
    log_z += std::log(sum * (b - a) / n);
  }
  EXPECT_NEAR(base.log_z(), log_z, 1e-6);
  // The energy is that integrand's exponent inside, +inf outside.
  MatrixXd X(3, 2);
  X.col(0) << 0.5, 0.0, 3.0;
  X.col(1) << 1.5, 0.0, 3.0;
  VectorXd e;
  base.energy(X, e);
  EXPECT_NEAR(e(0), 0.5 * (0.3 * 0.3 / 0.25 + 1.0 / 4.0), 1e-12);
  EXPECT_EQ(e(1), kInf);
  ASSERT_NE(base.constraints(), nullptr);
  EXPECT_EQ(base.constraints()->num_constraints(), 5);  // one infinite end has no face
}

TEST(TruncatedGaussianBase, DrawsHaveTheTruncatedMoments) {
  // 20000 draws per coordinate: means within 5 SE, variances within 5 SE (normal-theory SE of
  // a variance, sqrt(2 / n) var, conservative here: truncation lightens the tails).
  VectorXd m(4), s(4), lo(4), hi(4);
  m << 0.2, -1.0, 3.0, 0.0;
  s << 0.5, 2.0, 0.1, 1.0;
  lo << 0.0, -kInf, 2.9, -kInf;
  hi << 1.0, 0.5, 3.05, kInf;
  const logz::TruncatedGaussianBase base(m, s, lo, hi);
  const int n = 20000;
  MatrixXd X(4, n);
  base.sample(X, logz::BatchRandom{.seed = 5});
  for (int i = 0; i < 4; ++i) {
    double mean = 0.0, var = 0.0;
    truncated_moments(m(i), s(i), lo(i), hi(i), mean, var);
    const double sample_mean = X.row(i).mean();
    const double sample_var = (X.row(i).array() - sample_mean).square().sum() / (n - 1);
    EXPECT_LE(std::abs(sample_mean - mean), 5.0 * std::sqrt(var / n)) << "coordinate " << i;
    EXPECT_LE(std::abs(sample_var - var), 5.0 * std::sqrt(2.0 / n) * var) << "coordinate " << i;
    EXPECT_GE(X.row(i).minCoeff(), lo(i));
    EXPECT_LE(X.row(i).maxCoeff(), hi(i));
  }
}

TEST(TruncatedGaussianBase, BadInputNamesTheArgument) {
  const VectorXd one = VectorXd::Ones(1), zero = VectorXd::Zero(1),
                 two = VectorXd::Constant(1, 2.0);
  const auto names = [](auto&& make, const char* argument) {
    try {
      make();
      ADD_FAILURE() << "no error for " << argument;
    } catch (const logz::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(argument), std::string::npos) << e.what();
    }
  };
  names([&] { logz::TruncatedGaussianBase(one, zero, zero, two); }, "sd");
  names([&] { logz::TruncatedGaussianBase(one, one, two, zero); }, "high");
  names([&] { logz::TruncatedGaussianBase(VectorXd::Constant(1, 3.0), one, zero, two); }, "mean");
  names([&] { logz::TruncatedGaussianBase(VectorXd(), one, zero, two); }, "mean");
}

}  // namespace truncated_gaussian_base_test
