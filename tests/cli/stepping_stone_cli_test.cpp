// `logz run` with [estimators] methods = ["stepping_stone", ...] on a tempering config: the
// final run records its samples because the registry entry asks for them, and the estimate is
// beside the exact value, and in the per-level ladders like every other one.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.hpp"

namespace {

using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;

const char* kSteppingStoneConfig = R"([model]
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
methods = ["stepping_stone", "rts"]
)";

TEST(SteppingStoneCli, RunsFromAConfigWithinErrorOfTheExactValue) {
  const std::string cfg = temp_path("cfg.toml"), out = temp_path("out.json");
  std::ofstream(cfg) << kSteppingStoneConfig;
  const auto r = run_cli("run " + cfg + " -q -o " + out);
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
}

TEST(SteppingStoneCli, IsNotAWorksEstimator) {
  const std::string cfg = temp_path("cfg.toml");
  std::string text = kSteppingStoneConfig;
  text.replace(text.find("method = \"tempering\""), 20, "method = \"annealing\"");
  std::ofstream(cfg) << text;
  logz::test_support::expect_one_line_error(run_cli("run " + cfg + " -q"), "[estimators] methods");
}

}  // namespace
