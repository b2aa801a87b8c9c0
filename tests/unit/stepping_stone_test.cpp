// The stepping-stone estimator (estimators/stepping_stone.hpp) on tempered samples drawn exactly
// from a Gaussian ladder whose log Z is known: every level within error of the truth, the same
// answer from per-level energies as from Delta, error bars that cover the truth over seeds and
// that count correlated samples (the chain jackknife), log space for huge energies, NaN with
// flags where a level has no samples or there is one chain, and the registry's entry.
#include "logz/estimators/stepping_stone.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/random/philox.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"

namespace {

// p_t(x) ~ exp(-(1 + a t) x^2 / 2): Delta(x) = -a x^2 / 2 on a path linear in t, and
// log(Z_t / Z_0) = -log(1 + a t) / 2.
constexpr double kLadderSlope = 3.0;

double exact_gaussian_ladder_log_z(double t) { return -0.5 * std::log1p(kLadderSlope * t); }

std::vector<double> evenly_spaced_fractions(std::size_t levels) {
  std::vector<double> t(levels);
  for (std::size_t k = 0; k < levels; ++k)
    t[k] = static_cast<double>(k) / static_cast<double>(levels - 1);
  return t;
}

// `chains` chains, each with `per_level` exact draws at every level, each draw recorded
// `repeats` times in a row (a chain that sticks: correlated samples).
logz::TemperingStats exact_gaussian_ladder_samples(const std::vector<double>& t, std::size_t chains,
                                                   std::size_t per_level, std::uint64_t seed,
                                                   std::size_t repeats = 1) {
  logz::TemperingStats s;
  s.num_levels = t.size();
  s.chains.assign(chains, logz::ChainTemperingStats(t.size()));
  for (std::uint32_t c = 0; c < chains; ++c) {
    logz::RandomStream rng(seed, c, logz::Purpose::test, 0);
    for (std::uint32_t k = 0; k < t.size(); ++k)
      for (std::size_t i = 0; i < per_level; ++i) {
        const double x = rng.normal() / std::sqrt(1.0 + kLadderSlope * t[k]);
        for (std::size_t r = 0; r < repeats; ++r) {
          s.sample_delta.push_back(-0.5 * kLadderSlope * x * x);
          s.sample_level.push_back(k);
          s.sample_chain.push_back(c);
        }
      }
  }
  return s;
}

double diagnostic_value(const logz::Diagnostics& d, const std::string& name) {
  for (const auto& [n, v] : d.values)
    if (n == name) return v;
  return logz::kNaN;
}

TEST(SteppingStone, EveryLevelWithinErrorOfTheExactLogZ) {
  const auto t = evenly_spaced_fractions(6);
  const auto s = exact_gaussian_ladder_samples(t, 40, 100, 11);
  const auto e = logz::stepping_stone(s, t);
  EXPECT_EQ(e.method, "stepping_stone");
  EXPECT_EQ(e.last.se_method, "chain_jackknife");
  EXPECT_EQ(e.log_z[0], 0.0);
  for (std::size_t k = 1; k < t.size(); ++k) {
    const double se = e.std_error[k];
    ASSERT_TRUE(std::isfinite(se) && se > 0) << k;
    EXPECT_LT(se, 0.02) << k;  // 4000 draws a level, overlapping neighbours
    EXPECT_LE(std::abs(e.log_z[k] - exact_gaussian_ladder_log_z(t[k])), 5 * se + se * se) << k;
  }
  EXPECT_TRUE(e.last.diagnostics.flags.empty());
  EXPECT_GT(e.last.diagnostics.ess, 1000.0);
  EXPECT_LT(diagnostic_value(e.last.diagnostics, "log_mean_bias"),
            0.0);  // the log of a mean is biased low
}

TEST(SteppingStone, PerLevelEnergiesGiveTheSameAnswerAsDelta) {
  const auto t = evenly_spaced_fractions(5);
  const auto s = exact_gaussian_ladder_samples(t, 8, 30, 3);
  auto energies = s;
  energies.linear_in_t = false;
  for (const double d : s.sample_delta)
    for (const double tk : t)
      energies.sample_energies.push_back(-tk * d + 7.0);  // any level-free shift
  const auto a = logz::stepping_stone(s, t), b = logz::stepping_stone(energies, t);
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_NEAR(a.log_z[k], b.log_z[k], 1e-12) << k;
    EXPECT_NEAR(a.std_error[k], b.std_error[k], 1e-12) << k;
  }
}

// Fixed in advance: |error| < 2 SE in 88% to 99.5% of 200 seeds (a jackknife over 20 chains:
// about 94% expected); a per-level delta method on correlated samples would cover far less.
TEST(SteppingStone, ErrorBarsCoverTheTruthOverSeeds) {
  const auto t = evenly_spaced_fractions(4);
  int covered = 0;
  const int seeds = 200;
  for (int seed = 0; seed < seeds; ++seed) {
    const auto e =
        logz::stepping_stone(exact_gaussian_ladder_samples(t, 20, 10, 1000 + seed, 3), t);
    covered += std::abs(e.log_z.back() - exact_gaussian_ladder_log_z(1.0)) < 2 * e.std_error.back();
  }
  EXPECT_GE(covered, 176);
  EXPECT_LE(covered, 199);
}

// Recording every draw 10 times leaves each chain's estimate as it was: the chain jackknife's
// error bar stays the same, where one that took the samples as independent would shrink it by
// sqrt(10).
TEST(SteppingStone, RepeatedSamplesDoNotShrinkTheErrorBar) {
  const auto t = evenly_spaced_fractions(4);
  const auto once = logz::stepping_stone(exact_gaussian_ladder_samples(t, 20, 25, 5), t);
  const auto ten = logz::stepping_stone(exact_gaussian_ladder_samples(t, 20, 25, 5, 10), t);
  for (std::size_t k = 1; k < t.size(); ++k) {
    EXPECT_NEAR(ten.log_z[k], once.log_z[k], 1e-12) << k;
    EXPECT_NEAR(ten.std_error[k], once.std_error[k], 1e-9 * once.std_error[k]) << k;
  }
}

TEST(SteppingStone, HugeEnergiesStayInLogSpace) {
  const auto t = evenly_spaced_fractions(5);
  const auto s = exact_gaussian_ladder_samples(t, 10, 20, 8);
  auto shifted = s;
  for (double& d : shifted.sample_delta) d += 1e5;  // exp((t_{k+1} - t_k) Delta) overflows a double
  const auto a = logz::stepping_stone(s, t), b = logz::stepping_stone(shifted, t);
  for (std::size_t k = 1; k < t.size(); ++k) {
    ASSERT_TRUE(std::isfinite(b.log_z[k])) << k;
    EXPECT_NEAR(b.log_z[k] - 1e5 * t[k], a.log_z[k], 1e-6) << k;
    EXPECT_NEAR(b.std_error[k], a.std_error[k], 1e-6) << k;
  }
}

TEST(SteppingStone, ALevelWithoutSamplesLeavesTheLevelsAboveItNaNAndFlagged) {
  const auto t = evenly_spaced_fractions(5);
  const auto s = exact_gaussian_ladder_samples(t, 10, 20, 4);
  logz::TemperingStats gap = s;
  gap.sample_delta.clear();
  gap.sample_level.clear();
  gap.sample_chain.clear();
  for (std::size_t j = 0; j < s.sample_delta.size(); ++j)
    if (s.sample_level[j] != 2) {
      gap.sample_delta.push_back(s.sample_delta[j]);
      gap.sample_level.push_back(s.sample_level[j]);
      gap.sample_chain.push_back(s.sample_chain[j]);
    }
  const auto e = logz::stepping_stone(gap, t);
  EXPECT_TRUE(std::isfinite(e.log_z[2]) && std::isfinite(e.std_error[2]));
  for (std::size_t k = 3; k < t.size(); ++k) {
    EXPECT_TRUE(std::isnan(e.log_z[k])) << k;
    EXPECT_TRUE(std::isnan(e.std_error[k])) << k;
  }
  EXPECT_TRUE(std::isnan(e.last.log_z) && std::isnan(e.last.std_error));
  EXPECT_TRUE(e.last.diagnostics.has_flag("empty_level"));
  EXPECT_TRUE(e.last.diagnostics.has_flag("no_error_estimate"));
  EXPECT_EQ(diagnostic_value(e.last.diagnostics, "empty_levels"), 1.0);
}

TEST(SteppingStone, OneChainHasNoErrorEstimate) {
  const auto t = evenly_spaced_fractions(4);
  const auto e = logz::stepping_stone(exact_gaussian_ladder_samples(t, 1, 200, 6), t);
  EXPECT_TRUE(std::isfinite(e.last.log_z));
  EXPECT_TRUE(std::isnan(e.last.std_error));
  EXPECT_TRUE(e.last.diagnostics.has_flag("too_few_chains"));
  EXPECT_TRUE(e.last.diagnostics.has_flag("no_error_estimate"));
}

TEST(SteppingStone, RefusesStatisticsWithoutSamples) {
  const auto t = evenly_spaced_fractions(4);
  logz::TemperingStats none;
  none.num_levels = 4;
  none.chains.assign(2, logz::ChainTemperingStats(4));
  EXPECT_THROW(logz::stepping_stone(none, t), logz::InvalidArgument);
  auto s = exact_gaussian_ladder_samples(t, 2, 5, 1);
  EXPECT_THROW(logz::stepping_stone(s, evenly_spaced_fractions(3)), logz::InvalidArgument);
  s.linear_in_t = false;  // no per-level energies
  EXPECT_THROW(logz::stepping_stone(s, t), logz::InvalidArgument);
}

TEST(SteppingStone, IsOneEntryOfTheRegistryThatRecordsSamplesAndDoesNotRunByDefault) {
  const logz::EstimatorEntry& entry = logz::find_estimator("stepping_stone");
  EXPECT_EQ(entry.family, "tempered");
  EXPECT_TRUE(entry.needs_samples);
  EXPECT_EQ(entry.default_rank, 0);
  const auto defaults = logz::default_estimator_names("tempered");
  EXPECT_EQ(std::count(defaults.begin(), defaults.end(), "stepping_stone"), 0);
  const auto t = evenly_spaced_fractions(5);
  const auto s = exact_gaussian_ladder_samples(t, 30, 20, 9);
  const logz::TemperingLadder ladder{logz::Schedule(t)};
  const logz::LadderEstimates unused;
  const auto by_name = logz::run_tempered_estimator("stepping_stone", s, ladder, {}, unused, 2);
  const auto direct = logz::stepping_stone(s, t);
  EXPECT_EQ(by_name.log_z, direct.log_z);
  EXPECT_EQ(by_name.std_error, direct.std_error);
}

}  // namespace
