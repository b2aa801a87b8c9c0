// `logz run` with [run] method = "population_annealing" (docs/population_annealing.md): the Ising
// model beside Kaufman's exact log Z with the heat bath and with the multi-spin kernel, a small
// Potts model, the pairwise MRF and an RBM beside enumeration, the same result for 1 and 2 threads,
// the population's record in the JSON, one-line errors for bad [population_annealing] keys, and the
// method in `logz list --json` (checkpoints: checkpoint_cli_test.cpp).
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

// 16 x 16 near the critical point, two checkerboard heat-bath sweeps per temperature.
const char* kPaIsing = R"([model]
type = "ising"
size = 16
beta = 0.44
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 2
[run]
method = "population_annealing"
seed = 9
[population_annealing]
num_replicas = 1024
)";

// |estimate - exact| <= 5 SE + 0.05: the SE is rho_f's (conservative, docs), the allowance
// covers the log-normal bias of log Z_hat, about rho_f / (2R) (below 0.01 here).
void expect_pa_near_exact(const nlohmann::json& j) {
  expect_estimate_near_exact(j, "population_annealing", 0.05, 0.5);
}

TEST(PopulationAnnealingCli, IsingBesideKaufmanAndThreadInvariance) {
  std::string reference;
  for (int t : {1, 2}) {
    const auto j = run_config_json(kPaIsing, "pa_ising_t" + std::to_string(t),
                                   "--threads " + std::to_string(t));
    expect_pa_near_exact(j);
    EXPECT_EQ(j["reference"]["source"], "kaufman");
    EXPECT_EQ(j["estimates"]["population_annealing"]["se_method"], "rho_f");
    const auto& p = j["kernel"]["population_annealing"];
    EXPECT_EQ(p["num_replicas"], 1024);
    const auto temps = p["temperatures"].get<std::vector<double>>();
    ASSERT_GE(temps.size(), 2u);
    EXPECT_EQ(temps.back(), 1.0);
    for (std::size_t i = 1; i < temps.size(); ++i) EXPECT_GT(temps[i], temps[i - 1]);
    EXPECT_EQ(p["ess"].size(), temps.size());
    EXPECT_GT(p["rho_f"].get<double>(), 0.0);
    EXPECT_EQ(j["budget"]["unit"], "site update");
    EXPECT_GT(j["budget"]["total"].get<double>(), 0.0);
    const std::string same = j["estimates"].dump() + p.dump();
    if (reference.empty())
      reference = same;
    else
      EXPECT_EQ(same, reference) << t << " threads";
  }
}

TEST(PopulationAnnealingCli, MultispinIsingAndEnumeratedPottsAndMrf) {
  std::string multispin = kPaIsing;
  multispin.replace(multispin.find("type = \"heat_bath\""), 18, "type = \"multispin\"");
  expect_pa_near_exact(run_config_json(multispin, "pa_multispin"));
  // 3 x 4, q = 10: the reference is the enumeration's.
  const std::string out = temp_path("pa_potts.json");
  const auto r = run_cli("run " + std::string(LOGZ_SOURCE_DIR) +
                         "/examples/potts-3x4.toml -q --set run.method=population_annealing " +
                         "--set population_annealing.num_replicas=2000 -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_pa_near_exact(nlohmann::json::parse(read_file(out)));
  // The pairwise MRF example (16 units): the reference is the enumeration's.
  const std::string mrf = temp_path("pa_mrf.json");
  const auto m =
      run_cli("run " + std::string(LOGZ_SOURCE_DIR) +
              "/examples/pairwise-mrf.toml -q --set run.method=population_annealing -o " + mrf);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto mj = nlohmann::json::parse(read_file(mrf));
  EXPECT_EQ(mj["reference"]["source"], "enumeration");
  expect_pa_near_exact(mj);
}

// The RBM example (16 visible, 20 hidden units) on its marginal_v path and on the full path,
// block Gibbs between temperatures, beside enumeration; marginal_h (no replicas of h) refused.
TEST(PopulationAnnealingCli, RbmBesideEnumerationOnBothPaths) {
  const std::string rbm = std::string(LOGZ_SOURCE_DIR) + "/examples/rbm-random-20.toml";
  for (const char* path : {"marginal_v", "full"}) {
    SCOPED_TRACE(path);
    const std::string out = temp_path(std::string("pa_rbm_") + path + ".json");
    const auto r = run_cli(
        "run " + rbm + " -q --set run.method=population_annealing" +
        " --set population_annealing.num_replicas=2000 --set model.path=" + path + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(out));
    EXPECT_EQ(j["reference"]["source"], "enumeration");
    EXPECT_EQ(j["budget"]["unit"], "Gibbs sweep");
    expect_pa_near_exact(j);
  }
  expect_one_line_error(run_cli("run " + rbm + " -q --set run.method=population_annealing" +
                                " --set model.path=marginal_h"),
                        "[model] path: expected \"marginal_v\" or \"full\"");
}

TEST(PopulationAnnealingCli, BadKeysAndUnsupportedRunsAreOneLineErrors) {
  const std::string cfg = temp_path("pa_bad.toml");
  write_file(cfg, kPaIsing);
  const std::pair<const char*, const char*> cases[] = {
      {"population_annealing.cess_target=1.0",
       "[population_annealing] cess_target: expected a number in (0, 1)"},
      {"population_annealing.num_replicas=1", "[population_annealing] num_replicas"},
      {"population_annealing.resampling=gibbs", "[population_annealing] resampling"},
      {"population_annealing.resample_threshold=0.0", "[population_annealing] resample_threshold"},
      {"population_annealing.replicas=10", "replicas"},
  };
  for (const auto& [set, needle] : cases) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + cfg + " -q --set " + std::string(set)), needle);
  }
  expect_one_line_error(run_cli("run " + cfg + " -q --set kernel.type=multispin" +
                                " --set population_annealing.chunk_size=10"),
                        "[population_annealing] chunk_size: expected a multiple of 64");
}

TEST(PopulationAnnealingCli, ListJsonShowsTheMethod) {
  const auto r = run_cli("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["methods"].contains("population_annealing"));
  EXPECT_EQ(j["methods"]["population_annealing"]["docs"], "docs/population_annealing.md");
  for (const char* m : {"ising", "potts"}) {
    const auto methods = j["models"][m]["methods"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(methods.begin(), methods.end(), "population_annealing"), methods.end())
        << m;
    EXPECT_EQ(j["models"][m]["keys"]["population_annealing"]["num_replicas"]["default"], "1000")
        << m;
  }
}

}  // namespace
