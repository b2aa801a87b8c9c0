// `logz run` with [run] method = "smc" (adaptive tempered SMC, docs/smc.md): a Gaussian mixture
// and a complete product of experts beside their exact log Z, the same result for 1 and 2
// threads, the settings and temperatures in the JSON, one-line errors for bad [smc] keys and a
// model without the method, and the method in `logz list --json` (checkpoints:
// checkpoint_cli_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_json.hpp"

namespace {

using logz::test_support::expect_estimate_near_exact;
using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::run_config_json;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// Two well separated components in d = 3, masses 1 and 3: log Z = log 4.
const char* kSmcMixture = R"([model]
type = "gaussian_mixture"
weights = [1.0, 3.0]
means = [-1.5, 1.5]
covariances = [0.5, [0.8, 0.4, 0.6]]
dim = 3
[base]
sigma = 3.0
[run]
method = "smc"
seed = 5
[smc]
num_particles = 500
)";

// A complete product of Laplace experts, d = 6: exact log Z.
const char* kSmcPoe = R"([model]
type = "poe"
expert = "laplace"
dim = 6
parameter_seed = 3
[base]
sigma = 1.5
[run]
method = "smc"
seed = 11
[smc]
num_particles = 500
)";

// |estimate - exact| <= 5 SE + allowance, the SE finite and positive, from the genealogy.
// A run's target evaluations from its kernel record (or its pilot's): energies, energies with
// gradients and gradients alone.
double evaluations(const nlohmann::json& k) {
  return k["energy_evaluations"].get<double>() + k["gradient_evaluations"].get<double>() +
         k.value("gradient_only_evaluations", 0.0);
}

void expect_smc_near_exact(const nlohmann::json& j, double allowance) {
  expect_estimate_near_exact(j, "smc", allowance, 0.5);
  EXPECT_EQ(j["estimates"]["smc"]["se_method"], "genealogy");
}

TEST(SmcCli, MixtureBesideExactAndThreadInvariance) {
  std::string reference;
  for (int t : {1, 2}) {
    const auto j = run_config_json(kSmcMixture, "smc_mixture_t" + std::to_string(t),
                                   "--threads " + std::to_string(t));
    expect_smc_near_exact(j, 0.05);
    EXPECT_NEAR(j["reference"]["log_z"].get<double>(), std::log(4.0), 1e-12);
    const auto& k = j["kernel"];
    EXPECT_EQ(k["move"], "hmc");
    EXPECT_EQ(k["num_particles"], 500);
    const auto temps = k["temperatures"].get<std::vector<double>>();
    ASSERT_GE(temps.size(), 2u);
    EXPECT_EQ(temps.back(), 1.0);
    for (std::size_t i = 1; i < temps.size(); ++i) EXPECT_GT(temps[i], temps[i - 1]);
    EXPECT_EQ(k["step_sizes"].size(), temps.size());
    EXPECT_GT(k["gradient_evaluations"].get<double>(), 0.0);
    EXPECT_EQ(j["budget"]["unit"], "target evaluation");
    // The leapfrog's inner steps count as gradients alone (this model's come with its energy).
    EXPECT_GT(k["gradient_only_evaluations"].get<double>(), 0.0);
    EXPECT_EQ(j["budget"]["total"].get<double>(), evaluations(k));
    // Bitwise: the estimate and every per-temperature record.
    const std::string same = j["estimates"].dump() + k.dump();
    if (reference.empty())
      reference = same;
    else
      EXPECT_EQ(same, reference) << t << " threads";
  }
}

TEST(SmcCli, WasteFreeFromTheConfigIsFlaggedAsUncalibrated) {
  // [smc] waste_free_chain_length: 50 chains of 10 in 10 islands; the estimate beside the exact
  // value within 5 of its SEs and an allowance of 0.1 (its error bar reads low: docs/smc.md).
  const auto j = run_config_json(std::string(kSmcMixture) + "waste_free_chain_length = 10\n",
                                 "smc_mixture_waste_free");
  const auto& e = j["estimates"]["smc"];
  EXPECT_EQ(e["se_method"], "waste_free_islands");
  const double exact = j["reference"]["log_z"].get<double>(), se = e["std_error"].get<double>();
  ASSERT_TRUE(std::isfinite(se) && se > 0.0) << e.dump();
  EXPECT_LE(std::abs(e["log_z"].get<double>() - exact), 5.0 * se + 0.1) << e.dump();
  EXPECT_EQ(e["diagnostics"]["flags"], nlohmann::json::array({"error_bar_uncalibrated"}))
      << e.dump();
  EXPECT_EQ(e["diagnostics"]["islands"].get<double>(), 10.0);
}

TEST(SmcCli, PoeBesideExactInTheTable) {
  const auto j = run_config_json(kSmcPoe, "smc_poe");
  EXPECT_EQ(j["model"]["complete"], true);
  expect_smc_near_exact(j, 0.05);
  // The table: the smc row beside the exact value.
  const std::string cfg = temp_path("smc_poe_table.toml");
  write_file(cfg, kSmcPoe);
  const auto r = run_cli("run " + cfg + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("smc "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("budget:"), std::string::npos) << r.out;
}

TEST(SmcCli, PilotBaseFitsTheBaseAndCountsThePilot) {
  // [smc] pilot_base: the run from a Gaussian fitted to a pilot's particles, beside the exact
  // log Z; the model's base says so, the pilot's own estimate and cost are recorded.
  const auto j = run_config_json(std::string(kSmcPoe) + "pilot_base = true\n", "smc_poe_pilot");
  expect_smc_near_exact(j, 0.05);
  EXPECT_EQ(j["model"]["base"]["type"], "fitted");
  const auto& pilot = j["kernel"]["pilot_base"];
  EXPECT_EQ(pilot["particles"], 256);
  EXPECT_NEAR(pilot["log_z"].get<double>(), j["reference"]["log_z"].get<double>(),
              5.0 * pilot["std_error"].get<double>() + 0.05);
  EXPECT_EQ(j["budget"]["total"].get<double>(), evaluations(j["kernel"]) + evaluations(pilot));
}

TEST(SmcCli, LinearGaussianExampleBesideExact) {
  // The shipped example, its [kernel], [schedule] and [estimators] not read by SMC.
  const std::string out = temp_path("smc_linear.json");
  const auto r = run_cli("run " + std::string(LOGZ_SOURCE_DIR) +
                         "/examples/linear-gaussian.toml -q --set run.method=smc -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_smc_near_exact(nlohmann::json::parse(read_file(out)), 0.05);
}

TEST(SmcCli, BadKeysAndUnsupportedRunsAreOneLineErrors) {
  const std::string cfg = temp_path("smc_bad.toml");
  write_file(cfg, kSmcMixture);
  const std::pair<const char*, const char*> cases[] = {
      {"smc.cess_target=1.5", "[smc] cess_target"},
      {"smc.cess_target=1.0", "[smc] cess_target: expected a number in (0, 1)"},
      {"smc.resample_threshold=0.0", "[smc] resample_threshold"},
      {"smc.num_particles=1", "[smc] num_particles"},
      {"smc.move=gibbs", "[smc] move"},
      {"smc.leapfrog_steps=0", "[smc] leapfrog_steps"},
      {"smc.min_moves=60", "[smc] min_moves"},
      {"smc.max_moves=2000", "[smc] max_moves"},
      {"smc.frozen_acceptance=1.0", "[smc] frozen_acceptance"},
      {"smc.waste_free_chain_length=7", "[smc] waste_free_chain_length: expected 0, or a divisor"},
      {"smc.waste_free_chain_length=2000", "[smc] waste_free_chain_length"},
      {"smc.particles=10", "particles"},
  };
  for (const auto& [set, needle] : cases) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + cfg + " -q --set " + std::string(set)), needle);
  }
  // A model without the method names the models that have it.
  const std::string toy = std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-toy.toml";
  expect_one_line_error(run_cli("run " + toy + " -q --set run.method=smc"), "smc for");
}

TEST(SmcCli, ListJsonShowsTheMethod) {
  const auto r = run_cli("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["methods"].contains("smc"));
  EXPECT_EQ(j["methods"]["smc"]["docs"], "docs/smc.md");
  for (const char* m : {"poe", "gaussian_mixture"}) {
    const auto methods = j["models"][m]["methods"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(methods.begin(), methods.end(), "smc"), methods.end()) << m;
    EXPECT_TRUE(j["models"][m]["keys"].contains("smc")) << m;
  }
  EXPECT_EQ(j["models"]["gaussian_mixture"]["keys"]["smc"]["num_particles"]["default"], "1000");
}

}  // namespace
