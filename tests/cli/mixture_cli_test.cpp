// `logz run` with [model] type = "gaussian_mixture": tempering with the exact evidence of
// every level reported for a one-component mixture, annealing with each kernel beside the
// exact log Z, the example config, thread-count invariance, and one-line config errors.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// A 3-d Gaussian of mass 2 (one component): every level of the path is Gaussian.
const char* kGaussian = R"([model]
type = "gaussian_mixture"
weights = [2.0]
means = [[1.0, -0.5, 2.0]]
covariances = [[[0.6, 0.2, -0.1], [0.2, 0.5, 0.05], [-0.1, 0.05, 0.9]]]
[base]
sigma = 2.0
[kernel]
step_size = 0.3
leapfrog_steps = 5
[run]
method = "tempering"
seed = 4
[tempering]
num_temperatures = 8
num_chains = 24
sweeps_per_iteration = 100
num_sweeps = 1000
[estimators]
methods = ["rts", "mbar", "ti_rb"]
)";

nlohmann::json run_json(const std::string& cfg, const std::string& extra, const std::string& name) {
  const std::string out = temp_path(name + ".json");
  const auto r = run_cli("run " + cfg + " -q -o " + out + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(out));
}

TEST(MixtureCli, TemperingEveryLevelAgainstExactAndThreadInvariance) {
  const std::string cfg = temp_path("gaussian.toml");
  write_file(cfg, kGaussian);
  std::string reference;
  for (int t : {1, 2, 3}) {
    const auto j = run_json(cfg, "--threads " + std::to_string(t), "t" + std::to_string(t));
    const auto& tempering = j["details"]["tempering"];
    const auto exact = tempering["exact_evidence"].get<std::vector<double>>();
    ASSERT_EQ(exact.size(), 8u);
    EXPECT_NEAR(exact.back(), j["reference"]["evidence"].get<double>(), 1e-10);
    const auto& rts = tempering["levels"]["rts"];
    for (std::size_t k = 1; k < exact.size(); ++k) {
      const double est = rts["evidence"][k].get<double>(), se = rts["std_error"][k].get<double>();
      const double bias = rts["bias"][k].is_number() ? std::abs(rts["bias"][k].get<double>()) : 0.0;
      EXPECT_LT(se, 0.05);
      EXPECT_LE(std::abs(est - exact[k]), 5 * se + bias + se * se) << "level " << k;
    }
    EXPECT_GT(tempering["kernel_acceptance"].get<double>(), 0.7);
    const std::string estimates = j["estimates"].dump();
    if (reference.empty())
      reference = estimates;
    else
      EXPECT_EQ(estimates, reference) << t << " threads";
  }
}

TEST(MixtureCli, AnnealingWithEachKernelBesideTheExactLogZ) {
  const std::string cfg = temp_path("anneal.toml");
  write_file(cfg, R"([model]
type = "gaussian_mixture"
weights = [1.0, 3.0]
means = [-1.5, 1.5]
covariances = [1.0, [0.5, 0.8, 1.2]]
dim = 3
[base]
sigma = 2.5
[schedule]
type = "geometric"
beta_min = 0.01
num_steps = 300
[run]
num_paths = 64
seed = 3
[estimators]
methods = ["ais", "raise", "bar"]
)");
  for (const std::string kernel : {"type=\"hmc\"", "type=\"hais\"", "type=\"metropolis\""}) {
    SCOPED_TRACE(kernel);
    std::string sets = "--set kernel." + kernel;
    if (kernel.find("metropolis") != std::string::npos)
      sets += " --set kernel.steps_per_temperature=3";
    const auto j = run_json(cfg, sets, "anneal");
    EXPECT_EQ(j["model"]["dim"].get<int>(), 3);
    EXPECT_NEAR(j["reference"]["log_z"].get<double>(), std::log(4.0), 1e-12);
    const double exact = j["reference"]["evidence"].get<double>();
    // Forward AIS underestimates and reverse AIS overestimates in expectation; BAR sits
    // between, within its error.
    const double bar = j["estimates"]["bar"]["evidence"].get<double>();
    const double se = j["estimates"]["bar"]["std_error"].get<double>();
    EXPECT_LT(se, 0.2);
    EXPECT_LE(std::abs(bar - exact), 5 * se + se * se);
  }
}

TEST(MixtureCli, ExampleRunsAndReportsEveryMethod) {
  const auto j =
      run_json(std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-mixture-rts.toml",
               "--set tempering.num_sweeps=200 --set tempering.num_chains=40", "example");
  for (const char* m : {"rts", "ts", "mbar", "ti_riemann", "ti_trapezoid", "ti_corrected", "ti_rb"})
    ASSERT_TRUE(j["estimates"].contains(m)) << m;
  EXPECT_NEAR(j["reference"]["log_z"].get<double>(), std::log(10.0), 1e-12);
  const double rts = j["estimates"]["rts"]["evidence"].get<double>();
  const double se = j["estimates"]["rts"]["std_error"].get<double>();
  EXPECT_LE(std::abs(rts - j["reference"]["evidence"].get<double>()), 5 * se + se * se);
}

TEST(MixtureCli, BadModelValuesGiveOneLineErrors) {
  const std::string cfg = temp_path("bad.toml");
  write_file(cfg, kGaussian);
  const std::pair<const char*, const char*> cases[] = {
      {"model.weights=[1.0,2.0]", "means"},
      {"model.weights=[-1.0]", "weights"},
      {"model.means=[[1.0,\"a\",2.0]]", "means"},
      {"model.means=[[1.0,2.0]]",
       "covariances"},  // a 2-d mean makes the 3 x 3 covariance the odd one
      {"model.covariances=[-1.0]", "covariances"},
      {"model.covariances=[[[1.0,2.0,0.0],[2.0,1.0,0.0],[0.0,0.0,1.0]]]", "covariances"},
      {"model.dim=5", "means"},
      {"model.colour=1", "colour"},
      {"base.sigma=-1", "sigma"},
      {"kernel.type=gibbs", "type"},
      {"kernel.proposal_sd=0.1", "proposal_sd"},
      {"run.method=ground_state_integration", "method"},
  };
  for (const auto& [set, needle] : cases) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + cfg + " -q --set " + std::string(set)), needle);
  }
}

}  // namespace
