// `logz list` and what the registries give every command: the JSON lists every model with its
// capabilities and keys; the names in error messages, `logz sample` and `logz loglik` come from
// the same tables (gaussian_mixture, which they once left out, among them), and the mixture's
// new loglik and sample agree with its exact answers.
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

nlohmann::json registry() {
  const auto r = run_cli("list --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(ListCli, JsonHasEveryModelKernelEstimatorAndSchedule) {
  const auto j = registry();
  for (const char* m : {"ising", "potts", "gaussian_toy", "rbm", "poe", "linear_generative",
                        "bilinear_generative", "mcrbm", "gaussian_mixture", "gaussian"})
    EXPECT_TRUE(j["models"].contains(m)) << m;
  const auto& ising = j["models"]["ising"];
  EXPECT_EQ(ising["methods"], nlohmann::json({"annealing", "tempering", "ground_state_integration",
                                              "population_annealing", "parallel_tempering"}));
  EXPECT_EQ(ising["keys"]["model"]["coupling"]["default"], "1.0");
  EXPECT_EQ(ising["keys"]["run"]["num_paths"]["default"], "100");
  EXPECT_EQ(ising["keys"]["kernel"]["type"]["choices"],
            nlohmann::json({"metropolis", "heat_bath", "multispin", "swendsen_wang", "wolff"}));
  EXPECT_EQ(
      j["models"]["rbm"]["methods"],
      nlohmann::json({"annealing", "tempering", "population_annealing", "parallel_tempering"}));
  EXPECT_EQ(j["models"]["gaussian_mixture"]["commands"],
            nlohmann::json({"run", "loglik", "sample"}));
  EXPECT_EQ(j["models"]["gaussian"]["commands"], nlohmann::json({"sample"}));
  EXPECT_TRUE(j["kernels"]["continuous"].contains("hais"));
  EXPECT_TRUE(j["kernels"]["lattice"].contains("multispin"));
  EXPECT_TRUE(j["kernels"]["lattice"].contains("swendsen_wang"));
  EXPECT_EQ(j["estimators"]["bar"]["needs"], "both");
  EXPECT_EQ(j["estimators"]["bounds"]["default"], true);
  EXPECT_EQ(j["estimators"]["mbar"]["family"], "tempered");
  EXPECT_EQ(j["schedules"].size(), 7u);
  EXPECT_EQ(j["schedules"].back(), "adaptive");
  EXPECT_TRUE(j["training"]["rbm"]["keys"]["training"].contains("learning_rate"));
  const auto table = run_cli("list");
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("gaussian_mixture"), std::string::npos);
  EXPECT_NE(table.out.find("histogram_posterior"), std::string::npos);
}

TEST(ListCli, ErrorsListTheRegisteredNames) {
  const std::string toy = std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-toy.toml";
  // Which models have tempering is read from the registry: every model whose setup has a path
  // and kernels (services/method_list.hpp), and the RBM.
  const auto r = run_cli("run " + toy + " -q --set run.method=tempering");
  expect_one_line_error(r,
                        "tempering is for ising, potts, rbm, poe, linear_generative, mcrbm, "
                        "gaussian_mixture and pairwise_mrf");
  const std::string cfg = temp_path("unknown.toml");
  write_file(cfg, "[model]\ntype = \"isign\"\n");
  expect_one_line_error(run_cli("run " + cfg + " -q"), "\"gaussian_mixture\"");
  expect_one_line_error(run_cli("sample " + cfg), "\"gaussian_mixture\"");
  expect_one_line_error(run_cli("loglik " + cfg + " -q"), "\"gaussian_mixture\"");
  // A section the model does not read is refused, naming the ones it does.
  write_file(cfg, "[model]\ntype = \"ising\"\nsize = 4\n[sampler]\nchains = 2\n");
  expect_one_line_error(run_cli("run " + cfg + " -q"), "[sampler]: expected one of the sections");
  const std::string works = temp_path("works.txt");
  write_file(works, "0.1\n0.3\n");
  expect_one_line_error(run_cli("estimate -f " + works + " -m ,"),
                        "--methods: expected at least one estimator");
}

// L = -mean E(x) - log Z of data drawn from the mixture: within 5 Monte Carlo SE of the exact L
// (the same formula with the exact log Z).
TEST(ListCli, MixtureLoglikMatchesItsExactValue) {
  const std::string cfg = temp_path("mixture_loglik.toml");
  write_file(cfg, R"([model]
type = "gaussian_mixture"
dim = 2
[run]
num_paths = 200
seed = 3
directions = ["forward", "reverse"]
[schedule]
num_steps = 200
[estimators]
methods = ["bar"]
[data]
source = "model"
num_points = 50
)");
  const std::string out = temp_path("mixture_loglik.json");
  const auto r = run_cli("loglik " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(out));
  const double l = j["log_likelihood"].get<double>(), exact = j["exact"].get<double>();
  const double se = j["std_error_monte_carlo"].get<double>();
  ASSERT_TRUE(std::isfinite(se) && se > 0 && se < 0.5) << se;
  EXPECT_LE(std::abs(l - exact), 5 * se) << l << " vs " << exact;
  EXPECT_EQ(j["num_points"], 50);
}

// HMC draws from a one-component mixture: the means within 5 SE (ESS-based) of the component's.
TEST(ListCli, MixtureSampleHasTheComponentsMoments) {
  const std::string cfg = temp_path("mixture_sample.toml");
  write_file(cfg, R"([model]
type = "gaussian_mixture"
weights = [1.0]
means = [[1.0, -2.0]]
covariances = [0.5]
[sampler]
chains = 4
burn_in = 500
num_draws = 2000
seed = 5
)");
  const std::string out = temp_path("mixture_sample.json");
  const auto r = run_cli("sample " + cfg + " --json " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(out));
  const double mu[] = {1.0, -2.0};
  for (int i = 0; i < 2; ++i) {
    const double ess = j["ess"][i].get<double>(), sd = j["sd"][i].get<double>();
    ASSERT_GT(ess, 100.0);
    EXPECT_NEAR(j["mean"][i].get<double>(), mu[i], 5 * std::sqrt(0.5 / ess));
    EXPECT_NEAR(sd, std::sqrt(0.5), 5 * std::sqrt(0.5) / std::sqrt(2 * ess));
  }
}

}  // namespace
