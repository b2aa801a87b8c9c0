// [run] repetitions: seeds seed + r, each repetition equal to a single run with
// that seed, and the summary over repetitions right (checked against the
// Gaussian toy's exact evidence -log 10).
#include <gtest/gtest.h>

#include <cmath>

#include "logz/services/experiment.hpp"
#include "logz/services/repetitions.hpp"

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
  const ExperimentResult r = run_experiment(config);
  const auto& rep = r.details.at("repetitions");
  ASSERT_EQ(rep.at("count").get<int>(), 5);
  EXPECT_EQ(rep.at("seeds").at(3).get<int>(), 43);
  EXPECT_EQ(r.config.at("run").at("seed").get<int>(), 40);

  Config single = Config::from_toml(kToy, "toy.toml");
  single.set("run.seed=43");
  const ExperimentResult s = run_experiment(single);
  for (const auto& m : rep.at("methods")) {
    double expected = NAN;
    for (const auto& e : s.estimates)
      if (e.method == m.at("method").get<std::string>()) expected = e.log_z;
    EXPECT_EQ(m.at("evidence").at(3).get<double>(), expected) << m.at("method");
  }
  // The first repetition is the run with the base seed itself.
  Config base = Config::from_toml(kToy, "toy.toml");
  const ExperimentResult b = run_experiment(base);
  EXPECT_EQ(b.estimates.front().log_z, r.estimates.front().log_z);
}

// The mean of BAR over 200 repetitions lies within 5 standard errors of the
// mean of -log 10 (BAR's bias at M = 100 is far below that SE here: the toy's
// works overlap well); the summary's sd and RMSE are consistent.
TEST(Repetitions, SummaryOverRepetitionsMatchesTheExactEvidence) {
  Config config = Config::from_toml(kToy, "toy.toml");
  config.set("run.repetitions=200");
  const ExperimentResult r = run_experiment(config);
  const double exact = -std::log(10.0);
  ASSERT_TRUE(r.reference);
  EXPECT_NEAR(r.reference->log_z - r.base_log_z, exact, 1e-12);
  for (const auto& m : r.details.at("repetitions").at("methods")) {
    if (m.at("method") != "bar") continue;
    const double mean = m.at("mean").get<double>(), sd = m.at("sd").get<double>();
    EXPECT_NEAR(mean, exact, 5.0 * sd / std::sqrt(200.0));
    EXPECT_NEAR(m.at("mean_error").get<double>(), mean - exact, 1e-12);
    const double rmse = m.at("rmse").get<double>();
    EXPECT_NEAR(rmse * rmse, sd * sd * 199.0 / 200.0 + (mean - exact) * (mean - exact), 1e-9);
    // BAR's asymptotic SE is honest here: about 95% of repetitions within 2 SE.
    EXPECT_GT(m.at("coverage_2se").get<double>(), 0.85);
    return;
  }
  FAIL() << "no bar in the summary";
}

TEST(Repetitions, SummaryCountsNonFiniteEstimatesAsFailed) {
  std::vector<ExperimentResult> results(3);
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
