// Calibration of the works estimators' error bars: over 400 independent data sets of
// Crooks-consistent Gaussian works (100 a side, forward N(mu, s^2), reverse N(s^2 - mu, s^2),
// log Z = s^2/2 - mu), the interval estimate +- 1.96 std_error must contain the true log Z in a
// fraction of data sets within the binomial 5-sigma band around 0.95 (0.95 +- 0.055; a
// false-failure rate near 1e-6 when the intervals are honest), and the bounds must hold.
// s = 1 is a mildly dissipative run, s = 1.5 one of about 1.1 nats of dissipation. AIS and
// RAISE keep their promise at s = 1 only: at s = 1.5 their coverage is 0.89 and 0.87, so they
// are checked at s = 1 here, and beyond it their estimates must carry the flag
// "high_dissipation" that says the interval cannot be trusted (docs/calibration.md).
// The full table is scripts/calibration-table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/random/philox.hpp"
#include "support/gaussian_draws.hpp"

namespace {

using logz::test_support::gaussian_draws;

// Coverage of each method's 95% interval over the data sets (the bounds: the one-sided
// 97.5% interval on the correct side).
std::map<std::string, double> coverage(double s, const std::vector<std::string>& methods) {
  constexpr int kDataSets = 400;
  constexpr std::size_t kWorks = 100;
  const double mu = 5.0, truth = 0.5 * s * s - mu;
  std::map<std::string, int> covered, counted;
  for (int k = 0; k < kDataSets; ++k) {
    const std::uint64_t seed = 70000 + static_cast<std::uint64_t>(k);
    const auto wf = gaussian_draws(mu, s, kWorks, seed, 0);
    const auto wr = gaussian_draws(s * s - mu, s, kWorks, seed, 1);
    const std::vector<logz::Estimate> all = {logz::ais(wf),
                                             logz::raise(wr),
                                             logz::bar(wf, wr),
                                             logz::cumulant(wf, wr),
                                             logz::cumulant_forward(wf),
                                             logz::cumulant_reverse(wr),
                                             logz::histogram(wf, wr).estimate,
                                             logz::crooks_crossing(wf, wr),
                                             logz::lower_bound(wf),
                                             logz::upper_bound(wr)};
    for (const auto& e : all) {
      const double half = 1.96 * e.std_error;
      ++counted[e.method];  // a NaN error bar counts as a miss: it promised nothing
      if (e.method == "lower_bound")
        covered[e.method] += e.log_z - half <= truth;
      else if (e.method == "upper_bound")
        covered[e.method] += e.log_z + half >= truth;
      else
        covered[e.method] += std::abs(e.log_z - truth) <= half;
    }
  }
  std::map<std::string, double> out;
  for (const auto& m : methods) {
    out[m] = static_cast<double>(covered[m]) / counted[m];
    std::printf("s = %.1f  %-18s coverage %.3f\n", s, m.c_str(), out[m]);
  }
  return out;
}

constexpr double kBand = 0.055;  // 5 sqrt(0.95 * 0.05 / 400)

TEST(WorksEstimatorsCalibration, NinetyFivePercentIntervalsCoverTheTruthAtMildDissipation) {
  for (const auto& [method, c] :
       coverage(1.0, {"ais", "raise", "bar", "cumulant", "cumulant_forward", "cumulant_reverse",
                      "histogram", "crooks_crossing"}))
    EXPECT_NEAR(c, 0.95, kBand) << method;
}

TEST(WorksEstimatorsCalibration, TwoSidedAndCumulantIntervalsKeepTheirPromiseAtMoreDissipation) {
  for (const auto& [method, c] :
       coverage(1.5, {"bar", "cumulant", "cumulant_forward", "cumulant_reverse", "histogram",
                      "crooks_crossing", "lower_bound", "upper_bound"})) {
    if (method == "lower_bound" || method == "upper_bound")
      EXPECT_GE(c, 0.975 - kBand) << method;
    else
      EXPECT_NEAR(c, 0.95, kBand) << method;
  }
}

TEST(WorksEstimatorsCalibration, AisAndRaiseFlagTheRunsWhoseIntervalsCoverLess) {
  for (double s : {1.5, 2.0}) {
    int flagged = 0;
    for (int k = 0; k < 400; ++k) {
      const std::uint64_t seed = 71000 + static_cast<std::uint64_t>(k);
      flagged +=
          logz::ais(gaussian_draws(5.0, s, 100, seed, 0)).diagnostics.has_flag("high_dissipation");
      flagged += logz::raise(gaussian_draws(s * s - 5.0, s, 100, seed, 1))
                     .diagnostics.has_flag("high_dissipation");
    }
    EXPECT_GE(flagged, 0.97 * 800) << "s = " << s;
  }
  int flagged = 0;  // at s = 1 (0.5 nats), where the intervals hold, the flag is rare
  for (int k = 0; k < 400; ++k)
    flagged += logz::ais(gaussian_draws(5.0, 1.0, 100, 72000 + static_cast<std::uint64_t>(k), 0))
                   .diagnostics.has_flag("high_dissipation");
  EXPECT_LE(flagged, 0.05 * 400);
}

}  // namespace
