// `logz run` with [run] method = "parallel_tempering" (docs/parallel_tempering.md): the Ising
// model beside Kaufman's log Z with the same bits for 1 and 2 threads, the ladder and the swaps'
// diagnostics in the JSON, the pairwise MRF and a product of experts beside their exact values,
// the few_round_trips flag where no state can cross the ladder, one-line errors for bad [pt]
// keys and the multi-spin kernel, and the method in `logz list --json`. (Checkpoints:
// checkpoint_cli_test.cpp.)
#include <gtest/gtest.h>

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

// 6 x 6 in the ordered phase, one checkerboard heat-bath sweep per scan.
const char* kPtIsing = R"([model]
type = "ising"
size = 6
beta = 1.0
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 1
[run]
method = "parallel_tempering"
seed = 4
[pt]
rounds = 8
)";

// |estimate - exact| <= 5 SE + 0.005 (stepping stone's log-mean bias, below 0.001 here).
void expect_pt_near_exact(const nlohmann::json& j, const char* method) {
  expect_estimate_near_exact(j, method, 0.005);
}

TEST(ParallelTemperingCli, IsingBesideKaufmanAndThreadInvariance) {
  std::vector<nlohmann::json> runs;
  for (int t : {1, 2})
    runs.push_back(run_config_json(kPtIsing, "pt_ising_t" + std::to_string(t),
                                   "--threads " + std::to_string(t)));
  EXPECT_EQ(runs[0]["estimates"], runs[1]["estimates"]);
  EXPECT_EQ(runs[0]["details"], runs[1]["details"]);
  const auto& j = runs[0];
  EXPECT_EQ(j["reference"]["source"], "kaufman");
  for (const char* m : {"stepping_stone", "mbar"}) {
    expect_pt_near_exact(j, m);
    EXPECT_EQ(j["estimates"][m]["se_method"], "chain_jackknife");
  }
  EXPECT_EQ(j["estimates"].size(), 2u);  // TI only on request
  const auto& pt = j["details"]["pt"];
  const auto schedule = pt["schedule"].get<std::vector<double>>();
  const std::size_t n = schedule.size();
  EXPECT_EQ(pt["num_replicas"], n);
  EXPECT_GE(n, 8u);
  EXPECT_EQ(schedule.front(), 0.0);
  EXPECT_EQ(schedule.back(), 1.0);
  for (std::size_t i = 1; i < n; ++i) EXPECT_GT(schedule[i], schedule[i - 1]);
  for (const char* key : {"rejection", "swap_acceptance", "barrier_profile", "barrier_profile_t"})
    EXPECT_EQ(pt[key].size(), n - 1) << key;
  double lambda = 0.0;
  for (const auto& r : pt["rejection"]) lambda += r.get<double>();
  EXPECT_NEAR(pt["global_barrier"].get<double>(), lambda, 1e-9);
  EXPECT_EQ(pt["scheme"], "nonreversible");
  EXPECT_EQ(pt["rounds_global_barrier"].size(), 8u);
  EXPECT_GT(pt["round_trips"].get<double>(), 0.0);
  const double rate = pt["round_trip_rate"].get<double>();
  EXPECT_GT(rate, 0.0);
  EXPECT_LE(pt["predicted_round_trip_rate"].get<double>(),
            pt["limit_round_trip_rate"].get<double>());
  EXPECT_EQ(j["details"]["tempering"]["betas"].get<std::vector<double>>(), schedule);
  EXPECT_EQ(j["budget"]["unit"], "site update");
  EXPECT_GT(j["budget"]["total"].get<double>(), 0.0);
}

// The pairwise MRF and the product of experts beside their exact values; the RBM on its marginal
// path (not linear in beta: every level's energy) and on its full path beside enumeration;
// the method's own example beside Kaufman (8 rounds here, 10 as shipped).
TEST(ParallelTemperingCli, ShippedExamplesBesideExactValues) {
  const std::pair<const char*, const char*> cases[] = {{"pairwise-mrf", ""},
                                                       {"poe-36-laplace", ""},
                                                       {"rbm-random-20", ""},
                                                       {"rbm-random-20", " --set model.path=full"},
                                                       {"ising-16-parallel-tempering", ""}};
  for (const auto& [example, extra] : cases) {
    SCOPED_TRACE(example);
    const std::string out =
        temp_path(std::string("pt_") + example + (*extra ? "_variant" : "") + ".json");
    const auto r =
        run_cli("run " + std::string(LOGZ_SOURCE_DIR) + "/examples/" + example + ".toml -q -o " +
                out + " --set run.method=parallel_tempering --set pt.rounds=8" + extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(out));
    expect_pt_near_exact(j, "stepping_stone");
    expect_pt_near_exact(j, "mbar");
  }
}

// Two replicas at t = 0 and t = 1 on a 16 x 16 torus in the ordered phase: no swap is accepted,
// no state crosses, and every estimate says so.
TEST(ParallelTemperingCli, NoRoundTripsAreFlagged) {
  const std::string text = std::string(kPtIsing) + "num_replicas = 2\n";
  const auto j = run_config_json(text, "pt_no_trips", "--set model.size=16 --set pt.rounds=3");
  EXPECT_EQ(j["details"]["pt"]["round_trips"], 0);
  for (const auto& [m, e] : j["estimates"].items()) {
    const auto flags = e["diagnostics"]["flags"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(flags.begin(), flags.end(), "few_round_trips"), flags.end()) << m;
  }
}

// A continuous model whose step size is fixed far too large (1.5 on a posterior of sd about 0.1):
// the top replicas freeze, and every estimate says so with where; step sizes per replica (a
// pilot's profile: the default where no step_size is given; the example gives one) do not
// freeze, and the estimates hold the exact value.
TEST(ParallelTemperingCli, AFrozenReplicaIsFlaggedAndTheDefaultStepSizesAvoidIt) {
  const std::string model = std::string(LOGZ_SOURCE_DIR) + "/examples/linear-gaussian.toml";
  const std::string frozen = temp_path("pt_frozen.json"), tuned = temp_path("pt_tuned.json");
  const std::string pt = " --set run.method=parallel_tempering --set pt.rounds=7";
  ASSERT_EQ(
      run_cli("run " + model + " -q -o " + frozen + pt + " --set kernel.step_size=1.5").exit_code,
      0);
  const auto f = nlohmann::json::parse(read_file(frozen));
  for (const auto& [m, e] : f["estimates"].items()) {
    const auto flags = e["diagnostics"]["flags"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(flags.begin(), flags.end(), "frozen_sampler"), flags.end()) << m;
    EXPECT_LT(e["diagnostics"]["frozen_acceptance"].get<double>(), 0.05) << m;
  }
  ASSERT_EQ(run_cli("run " + model + " -q -o " + tuned + pt +
                    " --set kernel.step_size_adaptation=per_temperature")
                .exit_code,
            0);
  const auto j = nlohmann::json::parse(read_file(tuned));
  EXPECT_EQ(j["kernel"]["step_size_adaptation"].get<std::string>().rfind("per_temperature", 0), 0u);
  for (const auto& [m, e] : j["estimates"].items()) {
    const auto flags = e["diagnostics"]["flags"].get<std::vector<std::string>>();
    EXPECT_EQ(std::find(flags.begin(), flags.end(), "frozen_sampler"), flags.end()) << m;
  }
  expect_pt_near_exact(j, "stepping_stone");
}

// Thermodynamic integration on the RBM's marginal path and the 8 replicas the ladder chose: the
// trapezoid rule is many error bars off (18 here), and says so beside stepping stone.
TEST(ParallelTemperingCli, BiasedIntegrationIsFlagged) {
  const std::string out = temp_path("pt_rbm_ti.json");
  const auto r =
      run_cli("run " + std::string(LOGZ_SOURCE_DIR) + "/examples/rbm-random-20.toml -q -o " + out +
              " --set run.method=parallel_tempering --set pt.rounds=8 --set "
              "'pt.estimators=[\"stepping_stone\", \"ti_trapezoid\"]'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(out));
  const auto ti = j["estimates"]["ti_trapezoid"]["diagnostics"]["flags"];
  EXPECT_NE(std::find(ti.begin(), ti.end(), "discretization_bias"), ti.end()) << ti.dump();
  expect_pt_near_exact(j, "stepping_stone");
}

TEST(ParallelTemperingCli, BadKeysAndUnsupportedRunsAreOneLineErrors) {
  const std::string cfg = temp_path("pt_bad.toml");
  write_file(cfg, kPtIsing);
  const std::pair<const char*, const char*> cases[] = {
      {"pt.rounds=0", "[pt] rounds"},
      {"pt.rounds=30", "[pt] rounds"},
      {"pt.num_replicas=1", "[pt] num_replicas"},
      {"pt.scheme=random", "[pt] scheme"},
      {"pt.blocks_per_chain=1000", "[pt] blocks_per_chain"},
      {"pt.estimators=[\"rts\"]", "[pt] estimators"},
      {"pt.replicas=10", "replicas"},
  };
  for (const auto& [set, needle] : cases) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + cfg + " -q --set '" + std::string(set) + "'"), needle);
  }
  expect_one_line_error(run_cli("run " + cfg + " -q --set kernel.type=multispin"), "[kernel] type");
  expect_one_line_error(
      run_cli("run " + std::string(LOGZ_SOURCE_DIR) +
              "/examples/rbm-random-20.toml -q --set run.method=parallel_tempering --set "
              "model.path=marginal_h"),
      "[model] path: expected \"marginal_v\" or \"full\" for [run] method = "
      "\"parallel_tempering\"");
}

TEST(ParallelTemperingCli, ListJsonShowsTheMethod) {
  const auto r = run_cli("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["methods"].contains("parallel_tempering"));
  EXPECT_EQ(j["methods"]["parallel_tempering"]["docs"], "docs/parallel_tempering.md");
  for (const char* m : {"ising", "potts", "pairwise_mrf", "poe", "gaussian_mixture", "rbm"}) {
    const auto methods = j["models"][m]["methods"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(methods.begin(), methods.end(), "parallel_tempering"), methods.end()) << m;
  }
}

}  // namespace
