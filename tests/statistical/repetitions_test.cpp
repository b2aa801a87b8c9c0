// [run] repetitions: seeds seed + r, each repetition equal to a single run with
// that seed, and the summary over repetitions right (checked against the
// Gaussian toy's exact evidence -log 10).
#include <gtest/gtest.h>

#include <cmath>

#include "logz/services/run.hpp"

namespace logz {
namespace {

const char* kToy = R"(
[model]
type = "gaussian_toy"
[schedule]
type = "geometric"
num_steps = 10
beta_min = 0.003
[kernel]
type = "autoregressive"
steps_per_temperature = 5
[run]
num_paths = 100
seed = 40
threads = 2
[estimators]
methods = ["ais", "raise", "bar", "cumulant"]
)";

TEST(Repetitions, EachRepetitionIsTheSingleRunWithItsSeed) {
  Config config = Config::from_toml(kToy, "toy.toml");
  config.set("run.repetitions=5");
  const RunResult r = run_experiment(config);
  ASSERT_TRUE(r.repetitions);
  const Repetitions& rep = *r.repetitions;
  ASSERT_EQ(rep.seeds.size(), 5u);
  EXPECT_EQ(rep.seeds.at(3), 43u);
  EXPECT_EQ(r.config["run"]["seed"].as_integer(), 40);

  Config single = Config::from_toml(kToy, "toy.toml");
  single.set("run.seed=43");
  const RunResult s = run_experiment(single);
  for (const auto& m : rep.methods) {
    double expected = NAN;
    for (const auto& e : s.estimates)
      if (e.method == m.method) expected = e.log_z;
    EXPECT_EQ(m.evidence.at(3), expected) << m.method;
  }
  // The first repetition is the run with the base seed itself.
  Config base = Config::from_toml(kToy, "toy.toml");
  const RunResult b = run_experiment(base);
  EXPECT_EQ(b.estimates.front().log_z, r.estimates.front().log_z);
}

// The mean of BAR over 200 repetitions lies within 5 standard errors of the
// mean of -log 10 (BAR's bias at M = 100 is far below that SE here: the toy's
// works overlap well); the summary's sd and RMSE are consistent.
TEST(Repetitions, SummaryOverRepetitionsMatchesTheExactEvidence) {
  Config config = Config::from_toml(kToy, "toy.toml");
  config.set("run.repetitions=200");
  const RunResult r = run_experiment(config);
  const double exact = -std::log(10.0);
  ASSERT_TRUE(r.reference);
  EXPECT_NEAR(r.reference->log_z - r.base_log_z, exact, 1e-12);
  ASSERT_TRUE(r.repetitions);
  for (const auto& m : r.repetitions->methods) {
    if (m.method != "bar") continue;
    const double mean = m.mean, sd = m.sd;
    EXPECT_NEAR(mean, exact, 5.0 * sd / std::sqrt(200.0));
    EXPECT_NEAR(m.mean_error, mean - exact, 1e-12);
    const double rmse = m.rmse;
    EXPECT_NEAR(rmse * rmse, sd * sd * 199.0 / 200.0 + (mean - exact) * (mean - exact), 1e-9);
    // BAR's asymptotic SE is honest here: about 95% of repetitions within 2 SE.
    EXPECT_GT(m.coverage_2se, 0.85);
    return;
  }
  FAIL() << "no bar in the summary";
}

TEST(Repetitions, SummaryCountsNonFiniteEstimatesAsFailed) {
  std::vector<RunResult> results(3);
  const double values[] = {1.0, NAN, 3.0};
  for (int i = 0; i < 3; ++i) {
    Estimate e;
    e.method = "ais";
    e.log_z = values[i];
    e.std_error = 0.5;
    results[i].estimates.push_back(e);
    results[i].reference = Reference{2.5, "made up"};
    results[i].base_log_z = 0.5;
  }
  const auto s = summarise_repetitions(results);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].failed, 1u);
  EXPECT_DOUBLE_EQ(s[0].mean, 2.0);
  EXPECT_DOUBLE_EQ(s[0].sd, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(s[0].mean_error, 0.0);
  EXPECT_DOUBLE_EQ(s[0].rmse, 1.0);
  EXPECT_DOUBLE_EQ(s[0].coverage_2se, 1.0);
}

}  // namespace
}  // namespace logz
