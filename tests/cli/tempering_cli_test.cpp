// `logz run` with [run] method = "tempering": estimates beside the exact value,
// per-level ladders in JSON, thread-count invariance, config errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli.hpp"

namespace {

using logz::test_support::read_file;
using logz::test_support::temp_path;

int run_cli_code(const std::string& args, std::string* err = nullptr) {
  const auto r = logz::test_support::run_cli(args);
  if (err) *err = r.err;
  return r.exit_code;
}

const char* kConfig = R"([model]
type = "ising"
size = 4
beta = 0.5
[kernel]
steps_per_temperature = 16
[run]
method = "tempering"
seed = 3
[tempering]
num_temperatures = 8
num_chains = 16
sweeps_per_iteration = 50
num_sweeps = 400
[estimators]
methods = ["rts", "ts", "ti_trapezoid", "ti_rb", "mbar"]
)";

TEST(TemperingCli, EstimatesLaddersAndThreadInvariance) {
  const std::string cfg = temp_path("cfg.toml");
  std::ofstream(cfg) << kConfig;
  std::string reference;
  for (int t : {1, 2, 3}) {
    const std::string out = temp_path("out" + std::to_string(t) + ".json");
    std::string err;
    ASSERT_EQ(
        run_cli_code("run " + cfg + " -q --threads " + std::to_string(t) + " -o " + out, &err), 0)
        << err;
    const auto j = nlohmann::json::parse(read_file(out));
    const double exact = j["reference"]["log_z"].get<double>();
    for (const char* m : {"rts", "ts", "ti_trapezoid", "ti_rb", "mbar"}) {
      ASSERT_TRUE(j["estimates"].contains(m)) << m;
      const double se = j["estimates"][m]["std_error"].get<double>();
      EXPECT_TRUE(std::isfinite(se) && se > 0) << m;
    }
    const double rts = j["estimates"]["rts"]["log_z"].get<double>();
    const double se = j["estimates"]["rts"]["std_error"].get<double>();
    EXPECT_NEAR(rts, exact, 5 * se + se * se);
    EXPECT_EQ(j["details"]["tempering"]["levels"]["rts"]["evidence"].size(), 8u);
    EXPECT_TRUE(j["details"]["tempering"]["initialization"]["converged"].get<bool>());
    const std::string estimates = j["estimates"].dump();
    if (reference.empty())
      reference = estimates;
    else
      EXPECT_EQ(estimates, reference) << t << " threads";
  }
}

TEST(TemperingCli, BadTemperingKeysGiveOneLineErrors) {
  const std::string cfg = temp_path("bad.toml");
  std::ofstream(cfg) << kConfig;
  for (const std::string& set :
       {std::string("tempering.num_temperatures=1"), std::string("tempering.prior=flat"),
        std::string("estimators.methods=[\"ais\"]"), std::string("run.method=magic"),
        std::string("tempering.num_chainz=3")}) {
    std::string err;
    EXPECT_EQ(run_cli_code("run " + cfg + " -q --set " + set, &err), 2) << set;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("--set "), std::string::npos) << "the error names the --set: " << err;
  }
}

// [estimators] methods = ["stepping_stone", ...]: the final run records its samples because the
// registry entry asks for them, and the estimate is beside the exact value and RTS, and in the
// per-level ladders like every other one; it is no works estimator.
TEST(TemperingCli, SteppingStoneIsWithinErrorOfTheExactValueAndOfRts) {
  const std::string cfg = temp_path("stepping_stone.toml"), out = temp_path("stepping_stone.json");
  std::ofstream(cfg) << kConfig;
  const auto r = logz::test_support::run_cli("run " + cfg + " -q -o " + out +
                                             " --set estimators.methods=stepping_stone,rts");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(out));
  const double exact = j["reference"]["log_z"].get<double>();
  ASSERT_TRUE(j["estimates"].contains("stepping_stone")) << j["estimates"].dump();
  const auto& e = j["estimates"]["stepping_stone"];
  const double se = e["std_error"].get<double>();
  ASSERT_TRUE(std::isfinite(se) && se > 0);
  EXPECT_EQ(e["se_method"], "chain_jackknife");
  EXPECT_NEAR(e["log_z"].get<double>(), exact, 5 * se + se * se);
  const auto& rts = j["estimates"]["rts"];
  EXPECT_NEAR(e["log_z"].get<double>(), rts["log_z"].get<double>(),
              5 * std::hypot(se, rts["std_error"].get<double>()));
  EXPECT_EQ(j["details"]["tempering"]["levels"]["stepping_stone"]["evidence"].size(), 8u);
  logz::test_support::expect_one_line_error(
      logz::test_support::run_cli("run " + cfg +
                                  " -q --set run.method=annealing --set "
                                  "estimators.methods=stepping_stone,rts"),
      "[estimators] methods");
}

}  // namespace
