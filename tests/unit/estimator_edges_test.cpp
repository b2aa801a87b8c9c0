// The works estimators and MBAR at the edges (issue: error bars that keep their promise): works
// shifted to +-1e5, all equal, at +-1e308, with a +inf among them, forward and reverse works
// that do not overlap at all; MBAR with an empty state and with two identical states. None may
// crash, return 0 +- 0, or return a finite error bar that means nothing.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/random/philox.hpp"
#include "support/gaussian_draws.hpp"

namespace {

using logz::Estimate;
using logz::test_support::gaussian_draws;

// Crooks-consistent Gaussian works: W_f ~ N(mu, s^2), W_r ~ N(s^2 - mu, s^2), log Z = s^2/2 - mu.
struct Works {
  std::vector<double> forward, reverse;
  double log_z;
};
Works crooks_works(double mu, double s, std::size_t n) {
  return {gaussian_draws(mu, s, n, 41, 0), gaussian_draws(s * s - mu, s, n, 41, 1),
          0.5 * s * s - mu};
}

std::vector<Estimate> every_estimate(const std::vector<double>& wf, const std::vector<double>& wr) {
  logz::HistogramPosteriorOptions posterior;
  posterior.num_draws = 400;
  posterior.burn_in = 50;
  return {logz::ais(wf),
          logz::raise(wr),
          logz::lower_bound(wf),
          logz::upper_bound(wr),
          logz::bar(wf, wr),
          logz::cumulant_forward(wf),
          logz::cumulant_reverse(wr),
          logz::cumulant(wf, wr),
          logz::histogram(wf, wr).estimate,
          logz::histogram_posterior(wf, wr, posterior).estimate,
          logz::crooks_crossing(wf, wr)};
}

// An error bar is either a finite positive number or NaN with a flag that says why.
void expect_honest_error(const Estimate& e) {
  if (std::isfinite(e.std_error)) {
    EXPECT_GT(e.std_error, 0.0) << e.method << ": never 0 +- 0";
    EXPECT_TRUE(std::isfinite(e.log_z)) << e.method << ": a finite error of a non-finite estimate";
  } else {
    EXPECT_TRUE(std::isnan(e.std_error)) << e.method << ": " << e.std_error;
    EXPECT_FALSE(e.diagnostics.flags.empty()) << e.method << ": a NaN error bar without a flag";
  }
}

TEST(EstimatorEdges, WorksAroundPlusMinus1e5GiveTheShiftedAnswer) {
  // Shifting W_f by +c and W_r by -c shifts log Z by -c exactly.
  const double c = 1e5;
  Works w = crooks_works(3.0, 1.0, 2000);
  for (double& x : w.forward) x += c;
  for (double& x : w.reverse) x -= c;
  const double truth = w.log_z - c;
  for (const Estimate& e : every_estimate(w.forward, w.reverse)) {
    expect_honest_error(e);
    if (e.method == "lower_bound") {
      EXPECT_LE(e.log_z, truth + 5 * e.std_error) << e.method;
    } else if (e.method == "upper_bound") {
      EXPECT_GE(e.log_z, truth - 5 * e.std_error) << e.method;
    } else {
      ASSERT_TRUE(std::isfinite(e.std_error)) << e.method;
      // 5 standard errors plus twice the delta-method bias of a log-mean (se^2).
      EXPECT_LE(std::abs(e.log_z - truth), 5 * e.std_error + e.std_error * e.std_error)
          << e.method << " " << e.log_z << " +- " << e.std_error << " vs " << truth;
    }
  }
}

TEST(EstimatorEdges, AllWorksEqualGiveNaNErrorsFlaggedZeroVariance) {
  const std::vector<double> wf(50, 2.5), wr(50, -2.5);  // consistent: log Z = -2.5 exactly
  for (const Estimate& e : every_estimate(wf, wr)) {
    expect_honest_error(e);
    if (e.method == "crooks_crossing") continue;  // two point masses do not cross as densities
    EXPECT_TRUE(std::isnan(e.std_error)) << e.method;
    EXPECT_TRUE(e.diagnostics.has_flag("zero_variance")) << e.method;
    EXPECT_NEAR(e.log_z, -2.5, 1e-12) << e.method;
  }
}

TEST(EstimatorEdges, WorksNear1e308AreFlaggedOverflowNotZeroVariance) {
  const std::vector<double> wf = {1e308, -1e308, 5e307, -3e307},
                            wr = {1e308, -1e308, 3e307, -5e307};
  for (const Estimate& e :
       {logz::lower_bound(wf), logz::upper_bound(wr), logz::cumulant_forward(wf),
        logz::cumulant_reverse(wr), logz::cumulant(wf, wr)}) {
    expect_honest_error(e);
    EXPECT_TRUE(std::isnan(e.std_error)) << e.method;
    EXPECT_TRUE(e.diagnostics.has_flag("overflow")) << e.method;
    EXPECT_FALSE(e.diagnostics.has_flag("zero_variance")) << e.method;
  }
  const Estimate b = logz::bar(wf, wr);
  expect_honest_error(b);
  EXPECT_FALSE(b.diagnostics.has_flag("zero_variance") && !b.diagnostics.has_flag("overflow"))
      << "an overflow";
}

TEST(EstimatorEdges, AnInfiniteWorkIsRefusedNamingItsIndex) {
  std::vector<double> wf = {1.0, 2.0, std::numeric_limits<double>::infinity(), 0.5};
  const std::vector<double> wr = {-1.0, -2.0, -0.5};
  try {
    logz::ais(wf);
    ADD_FAILURE() << "accepted";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("forward_works[2]: expected finite values, got inf"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(logz::bar(wf, wr), logz::InvalidArgument);
  EXPECT_THROW(logz::histogram(wf, wr), logz::InvalidArgument);
  EXPECT_THROW(logz::cumulant(wf, wr), logz::InvalidArgument);
  EXPECT_THROW(logz::lower_bound(wf), logz::InvalidArgument);
}

TEST(EstimatorEdges, DisjointWorksGiveNoConfidentAnswer) {
  // Crooks-consistent works with log Z = 0, 90 standard deviations apart: the data only say
  // that log Z lies between the lowest W_f and the highest -W_r.
  const Works w = crooks_works(1000.0, std::sqrt(2000.0), 100);
  for (const Estimate& e : every_estimate(w.forward, w.reverse)) {
    expect_honest_error(e);
    if (e.method == "bar" || e.method == "histogram" || e.method == "crooks_crossing") {
      EXPECT_TRUE(std::isnan(e.std_error)) << e.method << " " << e.log_z << " +- " << e.std_error;
      EXPECT_TRUE(e.diagnostics.has_flag("no_overlap")) << e.method;
    }
    if (e.method == "histogram_posterior") {
      EXPECT_TRUE(e.diagnostics.has_flag("no_overlap")) << e.method;
    }
    if (std::isfinite(e.std_error) && e.method != "lower_bound" && e.method != "upper_bound") {
      EXPECT_FALSE(std::abs(e.log_z) > 5 * e.std_error + e.std_error * e.std_error &&
                   e.diagnostics.flags.empty())
          << e.method << ": a confident wrong value with no flag: " << e.log_z << " +- "
          << e.std_error;
    }
  }
}

// Harmonic states u_k(x) = k x^2 / 2: log(Z_k / Z_1) = -log(k) / 2.
TEST(EstimatorEdges, MbarWithAnEmptyStateStillEstimatesIt) {
  const std::vector<double> k = {1.0, 2.0, 4.0};
  const auto x = gaussian_draws(0.0, 1.0, 400, 41, 5);  // all drawn from state 1
  Eigen::MatrixXd u(3, 400);
  for (int s = 0; s < 3; ++s)
    for (int n = 0; n < 400; ++n) u(s, n) = 0.5 * k[s] * x[n] * x[n];
  const std::vector<double> counts = {400, 0, 0};
  const auto r = logz::mbar(u, counts);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.log_z[0], 0.0);
  for (int s = 1; s < 3; ++s) {
    ASSERT_TRUE(std::isfinite(r.std_error[s]) && r.std_error[s] > 0) << s;
    EXPECT_LE(std::abs(r.log_z[s] + 0.5 * std::log(k[s])), 5 * r.std_error[s]) << s;
  }
}

TEST(EstimatorEdges, MbarWithTwoIdenticalStatesGivesThemTheSameLogZ) {
  const std::vector<double> k = {1.0, 1.0, 4.0};
  auto x = gaussian_draws(0.0, 1.0, 300, 41, 6);
  const auto y = gaussian_draws(0.0, 0.5, 100, 41, 7);
  x.insert(x.end(), y.begin(), y.end());
  Eigen::MatrixXd u(3, 400);
  for (int s = 0; s < 3; ++s)
    for (int n = 0; n < 400; ++n) u(s, n) = 0.5 * k[s] * x[n] * x[n];
  for (const std::vector<double>& counts :
       {std::vector<double>{300, 0, 100}, std::vector<double>{150, 150, 100}}) {
    const auto r = logz::mbar(u, counts);
    EXPECT_TRUE(r.converged);
    EXPECT_NEAR(r.log_z[1], 0.0, 1e-9) << "identical states";
    EXPECT_LT(r.std_error[1], 1e-6) << "their difference is known exactly";
    ASSERT_TRUE(std::isfinite(r.std_error[2]) && r.std_error[2] > 0);
    EXPECT_LE(std::abs(r.log_z[2] + 0.5 * std::log(4.0)), 5 * r.std_error[2]);
  }
}

}  // namespace
