// `logz sample` and `logz loglik` as a user runs them: draws written as .npy with the shape the
// summary states, means within 5 SE of the truth (SE from the reported ESS), log-likelihoods
// of a complete product of experts and of the linear-Gaussian model within 5 Monte Carlo SE
// (+ SE^2 for the log-mean-exp bias) of the exact values the tool reports, and one-line
// errors that name the file or key for bad data and configs.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/random/philox.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// The tutorial's 5-d Gaussian, as in examples/sample-gaussian-5d.toml.
const double kMean5[5] = {6.96469186, 2.86139335, 2.26851454, 5.51314769, 7.1946897};

// A complete 6-d product of Laplace experts, K = 1000 temperatures of HAIS, 200 paths:
// docs/hais.md lists SE 0.019 for log Z of this size.
const char* kPoeConfig = R"([model]
type = "poe"
expert = "laplace"
dim = 6
parameter_seed = 3
[base]
sigma = 1.5
[kernel]
type = "hais"
step_size = 0.2
[schedule]
type = "linear"
num_steps = 1000
[run]
num_paths = 200
directions = ["forward"]
seed = 11
[estimators]
methods = ["ais"]
)";

// The linear-Gaussian model, M = 6 data dimensions, L = 3 latents, sigma_n = 0.1: log p(x)
// of 4 exact draws of the model, one HAIS run of 100 paths and K = 3000 temperatures each.
const char* kLinearConfig = R"([model]
type = "linear_generative"
data_dim = 6
latent_dim = 3
parameter_seed = 2
sigma_noise = 0.1
prior = "gaussian"
[kernel]
type = "hais"
step_size = 0.1
[schedule]
type = "sigmoid"
num_steps = 3000
[run]
num_paths = 100
seed = 5
[data]
source = "model"
num_points = 4
seed = 9
)";

// N x d data, entries N(0, 1) from the test stream (seed 21): a valid data file for a d-dim model.
logz::io::Array gaussian_rows(std::size_t n, std::size_t d) {
  logz::io::Array a;
  a.shape = {n, d};
  for (std::size_t i = 0; i < n; ++i) {
    logz::RandomStream s(21, i, logz::Purpose::test, 0);
    for (std::size_t j = 0; j < d; ++j) a.doubles().push_back(s.normal());
  }
  return a;
}

TEST(ContinuousCli, SampleTutorialGaussianWritesDrawsAndSummary) {
  const std::string cfg = std::string(LOGZ_SOURCE_DIR) + "/examples/sample-gaussian-5d.toml";
  const std::string npy = temp_path("draws.npy"), js = temp_path("summary.json");
  const auto r = run_cli("sample " + cfg + " --output " + npy + " --json " + js);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* field : {"acceptance", "final step size", "ESS", "mean", "sd"})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r.out;

  const auto j = nlohmann::json::parse(read_file(js));
  EXPECT_EQ(j["draws_shape"], nlohmann::json({1000, 3, 5}));
  const double acc = j["acceptance_rate"].get<double>();
  EXPECT_GT(acc, 0.5);  // adapted towards 0.9 during burn-in
  EXPECT_LE(acc, 1.0);
  const double eps = j["final_step_size"].get<double>();
  EXPECT_GE(eps, 0.001);  // inside [min_step, max_step] of the config
  EXPECT_LE(eps, 0.5);
  EXPECT_EQ(j["sampler"]["leapfrog_steps"], 20);
  ASSERT_EQ(j["ess"].size(), 5u);

  const logz::io::Array draws = logz::io::read_npy(npy);
  ASSERT_EQ(draws.shape, (std::vector<std::size_t>{1000, 3, 5}));
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    double sum = 0.0, sum2 = 0.0;
    for (std::size_t t = 0; t < draws.size() / 5; ++t) {
      const double x = draws.doubles()[t * 5 + i];
      sum += x;
      sum2 += x * x;
    }
    const double n = static_cast<double>(draws.size() / 5);
    const double mean = sum / n, sd = std::sqrt((sum2 - n * mean * mean) / (n - 1));
    // The summary describes the file it wrote.
    EXPECT_NEAR(j["mean"][i].get<double>(), mean, 1e-9 * (1 + std::abs(mean)));
    EXPECT_NEAR(j["sd"][i].get<double>(), sd, 1e-9 * (1 + sd));
    const double ess = j["ess"][i].get<double>();
    EXPECT_TRUE(std::isfinite(ess));
    EXPECT_GT(ess, 100.0);  // 3000 draws of a well-tuned HMC chain
    EXPECT_LE(ess, 3.0 * n);
    // The mean's SE is sd / sqrt(ESS). Unit marginal variances: the sd's SE is about
    // 1 / sqrt(2 ESS) = 0.05 at ESS 200, so 0.25 is about 5 SE.
    EXPECT_NEAR(mean, kMean5[i], 5.0 * sd / std::sqrt(ess));
    EXPECT_NEAR(sd, 1.0, 0.25);
    EXPECT_DOUBLE_EQ(j["exact_mean"][i].get<double>(),
                     kMean5[i]);  // the target's, beside the draws'
  }
  // The covariance (numpy.cov's n - 1) describes the same draws; the exact one is the config's.
  const std::size_t n = draws.size() / 5;
  ASSERT_EQ(j["covariance"].size(), 5u);
  for (std::size_t a = 0; a < 5; ++a)
    for (std::size_t b = 0; b < 5; ++b) {
      double sum = 0.0;
      for (std::size_t t = 0; t < n; ++t)
        sum += (draws.doubles()[t * 5 + a] - j["mean"][a].get<double>()) *
               (draws.doubles()[t * 5 + b] - j["mean"][b].get<double>());
      EXPECT_NEAR(j["covariance"][a][b].get<double>(), sum / static_cast<double>(n - 1), 1e-12)
          << a << "," << b;
      EXPECT_NEAR(j["exact_covariance"][a][b].get<double>(),
                  j["model"]["covariance"][a][b].get<double>(), 1e-12)
          << a << "," << b;  // L L^T of its Cholesky factor
    }
  for (const char* field :
       {"exact mean", "covariance of the kept draws", "largest |covariance - exact covariance|"})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r.out;
}

TEST(ContinuousCli, SamplePoeDrawsAreCentred) {
  // A complete 4-d product of Laplace experts is symmetric about 0: every mean is 0.
  const std::string cfg = temp_path("poe_sample.toml"), npy = temp_path("poe.npy"),
                    js = temp_path("poe.json");
  write_file(cfg,
             "[model]\ntype = \"poe\"\nexpert = \"laplace\"\ndim = 4\n[sampler]\nchains = "
             "4\nburn_in = 300\n"
             "num_draws = 500\nleapfrog_steps = 10\ninitial_step_size = 0.1\nseed = 4\n");
  const auto r = run_cli("sample " + cfg + " -o " + npy + " --json " + js + " --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(js));
  EXPECT_EQ(j["model"]["type"], "poe");
  EXPECT_EQ(logz::io::read_npy(npy).shape, (std::vector<std::size_t>{500, 4, 4}));
  for (std::size_t i = 0; i < 4; ++i) {
    const double ess = j["ess"][i].get<double>(), sd = j["sd"][i].get<double>();
    ASSERT_TRUE(std::isfinite(ess) && ess > 20.0) << i;
    EXPECT_NEAR(j["mean"][i].get<double>(), 0.0, 5.0 * sd / std::sqrt(ess)) << i;
  }
}

TEST(ContinuousCli, LoglikCompletePoeMatchesExact) {
  // 100 data points from a file: the likelihood is of these points, whatever they are.
  const std::string cfg = temp_path("poe.toml"), data = temp_path("poe_data.npy"),
                    out = temp_path("poe.json");
  write_file(cfg, std::string(kPoeConfig) + "[data]\nfile = \"" + data + "\"\n");
  logz::io::write_npy(data, gaussian_rows(100, 6));
  const auto r = run_cli("loglik " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("average log-likelihood"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact"), std::string::npos) << r.out;

  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["num_points"], 100);
  EXPECT_EQ(j["model"]["complete"], true);
  EXPECT_EQ(j["log_z"]["method"], "ais");
  const double L = j["log_likelihood"].get<double>(), exact = j["exact"].get<double>();
  const double se_mc = j["std_error_monte_carlo"].get<double>(),
               se_data = j["std_error_data"].get<double>();
  const double mean_e = j["mean_energy"].get<double>(), log_z = j["log_z"]["log_z"].get<double>();
  EXPECT_NEAR(L, -mean_e - log_z, 1e-9);  // L = -mean E - log Z
  EXPECT_NEAR(se_mc, j["log_z"]["std_error"].get<double>(), 1e-12);
  ASSERT_TRUE(std::isfinite(se_mc) && se_mc > 0) << se_mc;
  EXPECT_LT(se_mc, 0.1);  // docs/hais.md: about 0.02 at this size
  EXPECT_TRUE(std::isfinite(se_data) && se_data > 0);
  EXPECT_NEAR(L, exact, 5 * se_mc + se_mc * se_mc);
}

TEST(ContinuousCli, LoglikLinearGaussianMatchesExactForAnyThreadCount) {
  const std::string cfg = temp_path("lin.toml"), a = temp_path("lin1.json"),
                    b = temp_path("lin2.json");
  write_file(cfg, kLinearConfig);
  const auto r = run_cli("loglik " + cfg + " -q --threads 1 -o " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_cli("loglik " + cfg + " -q --threads 2 -o " + b).exit_code, 0);
  const auto j = nlohmann::json::parse(read_file(a)), j2 = nlohmann::json::parse(read_file(b));
  EXPECT_EQ(j["points"].dump(), j2["points"].dump());  // one run per point, each on one thread

  EXPECT_EQ(j["num_points"], 4);
  EXPECT_EQ(j["model"]["latent_dim"], 3);
  ASSERT_EQ(j["points"].size(), 4u);
  double sum = 0.0, var = 0.0, exact = 0.0;
  for (const auto& p : j["points"]) {
    const double est = p["log_likelihood"].get<double>(), se = p["std_error"].get<double>();
    ASSERT_TRUE(std::isfinite(se) && se > 0 && se < 0.2) << p.dump();
    EXPECT_TRUE(p["ess"].get<double>() > 1.0) << p.dump();
    EXPECT_NEAR(est, p["exact"].get<double>(), 5 * se + se * se) << p.dump();
    sum += est;
    var += se * se;
    exact += p["exact"].get<double>();
  }
  const double L = j["log_likelihood"].get<double>(),
               se_mc = j["std_error_monte_carlo"].get<double>();
  EXPECT_NEAR(L, sum / 4, 1e-9);
  EXPECT_NEAR(se_mc, std::sqrt(var) / 4, 1e-12);
  EXPECT_NEAR(j["exact"].get<double>(), exact / 4, 1e-9);
  EXPECT_NEAR(L, j["exact"].get<double>(), 5 * se_mc + se_mc * se_mc);
}

TEST(ContinuousCli, LoglikFlagsPointsWhoseAisEssIsLow) {
  // ESS below max(10, 1% of the paths) flags a point (its SE understates the error): with 100
  // paths exactly the points of ESS < 10; with 8 paths every point, and the table warns.
  const std::string cfg = temp_path("lin_ess.toml"), a = temp_path("lin_ess1.json"),
                    b = temp_path("lin_ess2.json");
  write_file(cfg, kLinearConfig);
  ASSERT_EQ(run_cli("loglik " + cfg + " -q --set schedule.num_steps=300 -o " + a).exit_code, 0);
  const auto j = nlohmann::json::parse(read_file(a));
  std::size_t low = 0;
  for (const auto& p : j["points"]) {
    EXPECT_EQ(p["low_ess"].get<bool>(), p["ess"].get<double>() < 10.0) << p.dump();
    low += p["low_ess"].get<bool>();
  }
  EXPECT_EQ(j["num_low_ess_points"].get<std::size_t>(), low);
  EXPECT_EQ(j["flags"].size(), low > 0 ? 1u : 0u);

  const auto few = run_cli("loglik " + cfg + " --set run.num_paths=8 -o " + b);
  ASSERT_EQ(few.exit_code, 0) << few.err;
  const auto k = nlohmann::json::parse(read_file(b));
  EXPECT_EQ(k["num_low_ess_points"], 4);
  EXPECT_EQ(k["flags"], nlohmann::json::array({"low_ess_points"}));
  EXPECT_NE(few.out.find("warning: 4 of 4 points have an AIS ESS below"), std::string::npos)
      << few.out;
}

TEST(ContinuousCli, BadDataAndKeysGiveOneLineErrors) {
  const std::string cfg = temp_path("bad.toml"), good = temp_path("good.npy");
  logz::io::write_npy(good, gaussian_rows(10, 6));
  write_file(cfg, std::string(kPoeConfig) + "[data]\nfile = \"" + good + "\"\n");
  const std::string dir = cfg.substr(0, cfg.rfind('/') + 1);
  // Missing file: resolved relative to the config, and named.
  expect_one_line_error(run_cli("loglik " + cfg + " -q --set 'data.file=\"nothere.npy\"'"),
                        dir + "nothere.npy");
  // Wrong shape: N x 5 for a 6-d model.
  const std::string narrow = temp_path("narrow.npy");
  logz::io::write_npy(narrow, gaussian_rows(10, 5));
  const auto shape = run_cli("loglik " + cfg + " -q --set 'data.file=\"" + narrow + "\"'");
  expect_one_line_error(shape, narrow);
  EXPECT_NE(shape.err.find("N x 6"), std::string::npos) << shape.err;
  EXPECT_NE(shape.err.find("10 x 5"), std::string::npos) << shape.err;
  // NaN in the data, in an .npz under the configured key.
  logz::io::Array nan = gaussian_rows(10, 6);
  nan.doubles()[17] = std::nan("");
  const std::string npz = temp_path("nan.npz");
  logz::io::write_npz(npz, {{"patches", nan}});
  const auto bad_value = run_cli("loglik " + cfg + " -q --set 'data.file=\"" + npz +
                                 "\"' --set 'data.key=\"patches\"'");
  expect_one_line_error(bad_value, npz);
  EXPECT_NE(bad_value.err.find("finite"), std::string::npos) << bad_value.err;
  expect_one_line_error(
      run_cli("loglik " + cfg + " -q --set 'data.file=\"" + npz + "\"' --set 'data.key=\"X\"'"),
      "X");
  // Unknown keys name the section, the key and where the key came from (here --set).
  const auto unknown = run_cli("loglik " + cfg + " -q --set model.dimm=6");
  expect_one_line_error(unknown, "[model] dimm: unknown key");
  EXPECT_NE(unknown.err.find("--set model.dimm=6"), std::string::npos) << unknown.err;
  expect_one_line_error(run_cli("loglik " + cfg + " -q --set kernel.proposal_sd=0.1"),
                        "[kernel] proposal_sd");
  expect_one_line_error(run_cli("loglik " + cfg + " -q --set model.type=ising"), "[model] type");
  const std::string lin = temp_path("bad_lin.toml");
  write_file(lin, kLinearConfig);
  expect_one_line_error(run_cli("loglik " + lin + " -q --set model.prior=cauchy"), "[model] prior");
  expect_one_line_error(run_cli("loglik " + lin + " -q --set data.num_points=0"),
                        "[data] num_points");

  const std::string sample = temp_path("bad_sample.toml");
  write_file(
      sample,
      "[model]\ntype = \"gaussian\"\nmean = [0.0, 1.0]\n[sampler]\nnum_draws = 10\nburn_in = 0\n");
  expect_one_line_error(run_cli("sample " + sample + " --set sampler.chainz=3"),
                        "[sampler] chainz: unknown key");
  expect_one_line_error(
      run_cli("sample " + sample + " --set 'model.covariance=[[1.0, 2.0], [2.0, 1.0]]'"),
      "[model] covariance");
  expect_one_line_error(run_cli("sample /nonexistent/sample.toml"), "/nonexistent/sample.toml");
  expect_one_line_error(run_cli("sample " + sample + " -o /nonexistent/dir/draws.npy"),
                        "/nonexistent/dir/draws.npy");
}

}  // namespace

namespace {

// MALA, a kernel added as its header and one line of kernels/continuous_kernels.hpp: listed with
// its keys, run from a config on every continuous model, its log Z within 5 SE of the exact
// value, its pilot tuning its step size, and the keys it does not read refused by name.
TEST(ContinuousCli, MalaRunsFromAConfigAndIsListed) {
  const auto list = run_cli("list --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto reg = nlohmann::json::parse(list.out);
  ASSERT_TRUE(reg["kernels"]["continuous"].contains("mala"));
  EXPECT_EQ(reg["kernels"]["continuous"]["mala"]["uses_gradient"], true);
  EXPECT_EQ(reg["kernels"]["continuous"]["metropolis"]["uses_gradient"], false);
  EXPECT_NE(reg["models"]["poe"]["kernels"].dump().find("mala"), std::string::npos);

  const std::string cfg = temp_path("poe_mala.toml"), out = temp_path("poe_mala.json");
  write_file(cfg, kPoeConfig);
  const auto r = run_cli(
      "run " + cfg + " -q -o " + out +
      " --set kernel.type=mala --set kernel.step_size_adaptation=pilot --set kernel.max_step=0.6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["kernel"]["type"], "mala");
  EXPECT_EQ(j["kernel"]["step_size_adaptation"], "pilot (adapted before the run, fixed during it)");
  const double eps = j["kernel"]["step_size"].get<double>();
  EXPECT_NE(eps, 0.2);  // the pilot moved it
  EXPECT_EQ(j["budget"]["unit"], "gradient evaluation");
  const auto& e = j["estimates"]["ais"];
  const double se = e["std_error"].get<double>(), exact = j["reference"]["log_z"].get<double>();
  ASSERT_TRUE(std::isfinite(se) && se > 0.0 && se < 0.2) << se;
  EXPECT_NEAR(e["log_z"].get<double>(), exact, 5 * se + se * se);

  expect_one_line_error(
      run_cli("run " + cfg + " -q --set kernel.type=mala --set kernel.leapfrog_steps=3"),
      "[kernel] leapfrog_steps: expected no such key with type = \"mala\" (it belongs to \"hais\" "
      "or \"hmc\")");
}

// The step size adapts per temperature unless one is given: without [kernel] step_size the
// report names the per-temperature pilot, its budget part and what it saw, and the estimate is
// within 5 SE of exact; a stated step size is kept fixed; tempering keeps it (a stated
// per-temperature adaptation is refused there by name).
TEST(ContinuousCli, StepSizeAdaptsPerTemperatureUnlessOneIsGiven) {
  std::string config = kPoeConfig;
  const std::string stated = "step_size = 0.2\n";
  config.erase(config.find(stated), stated.size());
  const std::string cfg = temp_path("poe_profile.toml"), out = temp_path("poe_profile.json");
  write_file(cfg, config);
  auto r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["kernel"]["step_size_adaptation"].get<std::string>().rfind("per_temperature", 0), 0u)
      << j["kernel"].dump();
  const auto& pilot = j["kernel"]["pilot"];
  EXPECT_EQ(pilot["temperatures"], 500);  // every second of 999 intermediate temperatures
  EXPECT_LT(pilot["smallest_step_size"].get<double>(), pilot["largest_step_size"].get<double>());
  EXPECT_NEAR(pilot["mean_acceptance"].get<double>(), 0.9, 0.1);
  EXPECT_EQ(j["budget"]["step_size_pilot"], 32 * 500) << j["budget"].dump();
  const auto& e = j["estimates"]["ais"];
  const double se = e["std_error"].get<double>(), exact = j["reference"]["log_z"].get<double>();
  ASSERT_TRUE(std::isfinite(se) && se > 0.0 && se < 0.2) << se;
  EXPECT_NEAR(e["log_z"].get<double>(), exact, 5 * se + se * se);

  r = run_cli("run " + cfg + " -q -o " + out + " --set kernel.step_size=0.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["kernel"]["step_size_adaptation"], "fixed (as configured)");
  EXPECT_EQ(j["kernel"]["step_size"], 0.1);
  EXPECT_FALSE(j["kernel"].contains("pilot"));

  expect_one_line_error(
      run_cli("run " + std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-mixture-rts.toml" +
              " -q --set kernel.step_size_adaptation=per_temperature"),
      "[kernel] step_size_adaptation: expected \"fixed\" for [run] method = \"tempering\"");
}

}  // namespace
