// `logz run`, `logz loglik` and `logz sample` on the bilinear generative model and the mcRBM
// as a user runs them: the examples at a reduced size, exact references where the parameter
// file makes one exist (Phi = 0; P = 0), and one-line errors for bad parameter files and
// config values.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/models/bilinear_generative.hpp"
#include "logz/models/mcrbm.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

const std::string kExamples = std::string(LOGZ_SOURCE_DIR) + "/examples/";

logz::io::Array to_array(const Eigen::MatrixXd& m) {
  logz::io::Array a{{static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())}, {}};
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) a.doubles().push_back(m(i, j));
  return a;
}

logz::io::Array to_array(const Eigen::VectorXd& v) {
  return logz::io::Array{{static_cast<std::size_t>(v.size())},
                         std::vector<double>(v.data(), v.data() + v.size())};
}

// A bilinear parameter file (Phi, Theta, Psi) of random parameters, Phi replaced if given.
std::map<std::string, logz::io::Array> bilinear_arrays(const Eigen::MatrixXd* phi = nullptr) {
  const auto r = logz::BilinearGenerative::random(4, 3, 2, 2, 0.1, 5);
  return {{"Phi", to_array(phi ? *phi : r.phi())},
          {"Theta", to_array(r.theta())},
          {"Psi", to_array(r.psi())}};
}

std::map<std::string, logz::io::Array> mcrbm_arrays(bool zero_p = false) {
  const auto r = logz::McRbm::random(4, 4, 3, 3, 1.0, logz::McRbmNorm::sum, 6);
  return {{"P", to_array(zero_p ? Eigen::MatrixXd(Eigen::MatrixXd::Zero(4, 3)) : r.P())},
          {"C", to_array(r.C())},
          {"W", to_array(r.W())},
          {"b_m", to_array(r.b_mean())},
          {"b_c", to_array(r.b_cov())},
          {"b_v", to_array(r.b_vis())}};
}

TEST(ImageModelsCli, BilinearExampleRunsAndZeroBasisIsExact) {
  const std::string out = temp_path("bilinear.json");
  auto r = run_cli("run " + kExamples + "bilinear-generative.toml -q -o " + out +
                   " --set schedule.num_steps=200 --set run.num_paths=20");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["model"]["type"], "bilinear_generative");
  EXPECT_EQ(j["model"]["num_c"], 6);
  EXPECT_EQ(j["config"]["base"]["type"], "prior");
  EXPECT_NEAR(j["base_log_z"].get<double>(), 6 * std::log(2.0), 1e-12);
  EXPECT_TRUE(std::isfinite(j["estimates"]["ais"]["log_z"].get<double>()));
  EXPECT_EQ(j["reverse"]["works"].size(), 20u);
  EXPECT_FALSE(j.contains("reference"));

  // Phi = 0: the reference N(x; 0, sigma_n^2 I) and zero-variance works.
  const std::string npz = temp_path("zero_phi.npz");
  const Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(4, 3);
  logz::io::write_npz(npz, bilinear_arrays(&zero));
  r = run_cli("run " + kExamples + "bilinear-generative.toml -q -o " + out +
              " --set model.parameters=\"" + npz +
              "\" --set model.data_dim=4 --set schedule.num_steps=50 --set run.num_paths=10");
  expect_one_line_error(r, "[model] data_dim: expected no such key with a parameters file");
  const std::string cfg = temp_path("zero_phi.toml");
  write_file(
      cfg, "[model]\ntype = \"bilinear_generative\"\nparameters = \"" + npz +
               "\"\n[schedule]\nnum_steps = 50\n[run]\nnum_paths = 10\ndirections = [\"forward\"]\n"
               "[data]\nnum_points = 3\nindex = 2\n");
  r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(read_file(out));
  ASSERT_TRUE(j.contains("reference")) << j.dump();
  EXPECT_NEAR(j["estimates"]["ais"]["log_z"].get<double>(), j["reference"]["log_z"].get<double>(),
              1e-9);
}

TEST(ImageModelsCli, BilinearLoglikAndSample) {
  const std::string out = temp_path("bilinear_loglik.json");
  auto r = run_cli("loglik " + kExamples + "bilinear-generative.toml -q -o " + out +
                   " --set schedule.num_steps=200 --set run.num_paths=20 --set data.num_points=3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["points"].size(), 3u);
  EXPECT_TRUE(std::isfinite(j["log_likelihood"].get<double>()));
  EXPECT_TRUE(j["exact"].is_null());
  // One run per point, each on one thread: the same numbers for any thread count.
  const std::string out3 = temp_path("bilinear_loglik3.json");
  r = run_cli("loglik " + kExamples + "bilinear-generative.toml -q --threads 3 -o " + out3 +
              " --set schedule.num_steps=200 --set run.num_paths=20 --set data.num_points=3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(out3))["points"].dump(), j["points"].dump());

  // The HMC sampler on the posterior of one data point: draws keep d >= 0.
  const std::string cfg = temp_path("bilinear_sample.toml"),
                    draws = temp_path("bilinear_draws.npy");
  write_file(
      cfg,
      "[model]\ntype = \"bilinear_generative\"\ndata_dim = 4\nbasis_dim = 3\nnum_c = 2\nnum_d = 2\n"
      "sigma_noise = 0.3\n[data]\nnum_points = 2\n[sampler]\nchains = 4\nburn_in = 100\nnum_draws "
      "= 200\n"
      "leapfrog_steps = 10\ninitial_step_size = 0.05\n");
  r = run_cli("sample " + cfg + " -o " + draws);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const logz::io::Array a = logz::io::read_npy(draws);
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{200, 4, 4}));
  double min_d = INFINITY;
  for (std::size_t k = 0; k < a.doubles().size(); ++k)
    if (k % 4 >= 2) min_d = std::min(min_d, a.doubles()[k]);
  EXPECT_GE(min_d, -1e-12);
  expect_one_line_error(
      run_cli("sample " + cfg + " --set sampler.initial_sd=2"),
      "[sampler] initial_sd: expected no initial_sd with [model] type = \"bilinear_generative\"");
}

TEST(ImageModelsCli, McRbmExampleLoglikSampleAndExactWithoutCovariance) {
  const std::string out = temp_path("mcrbm.json");
  const std::string small = " --set schedule.num_steps=100 --set run.num_paths=20";
  auto r = run_cli("run " + kExamples + "mcrbm.toml -q -o " + out + small);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["model"]["type"], "mcrbm");
  EXPECT_EQ(j["model"]["base"]["type"], "fitted");
  EXPECT_TRUE(std::isfinite(j["estimates"]["ais"]["log_z"].get<double>()));

  r = run_cli("loglik " + kExamples + "mcrbm.toml -q -o " + out + small);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["num_points"], 200);
  EXPECT_NEAR(j["log_likelihood"].get<double>(),
              -j["mean_energy"].get<double>() - j["log_z"]["log_z"].get<double>(), 1e-9);

  // P = 0 in a file: the exact log Z is reported and the estimate agrees with it.
  const std::string npz = temp_path("zero_p.npz"), cfg = temp_path("zero_p.toml");
  logz::io::write_npz(npz, mcrbm_arrays(true));
  write_file(cfg, "[model]\ntype = \"mcrbm\"\nparameters = \"" + npz +
                      "\"\n[schedule]\nnum_steps = 300\n[run]\nnum_paths = 100\n");
  r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(read_file(out));
  ASSERT_TRUE(j.contains("reference")) << j.dump();
  const double se = j["estimates"]["bar"]["std_error"].get<double>();
  EXPECT_NEAR(j["estimates"]["bar"]["log_z"].get<double>(), j["reference"]["log_z"].get<double>(),
              5 * se + se * se);

  // logz sample on the model; [data] source = "model" is not available (no exact sampler).
  const std::string sample_cfg = temp_path("mcrbm_sample.toml");
  write_file(sample_cfg, "[model]\ntype = \"mcrbm\"\nparameters = \"" + npz +
                             "\"\n[sampler]\nchains = 2\nburn_in = 50\nnum_draws = 50\n");
  r = run_cli("sample " + sample_cfg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("acceptance"), std::string::npos) << r.out;
  expect_one_line_error(
      run_cli("loglik " + cfg + " --set data.source=model"),
      "[data] source: expected \"file\" (this model has no exact sampler: an mcRBM has none");
}

TEST(ImageModelsCli, BadParameterFilesAndValuesGiveOneLineErrors) {
  // Bilinear: a missing array, a wrong shape, a NaN, bad config values.
  const std::string npz = temp_path("bad_bilinear.npz"), cfg = temp_path("bad_bilinear.toml");
  write_file(cfg, "[model]\ntype = \"bilinear_generative\"\nparameters = \"" + npz +
                      "\"\n[schedule]\nnum_steps = 10\n[run]\nnum_paths = 4\n");
  auto arrays = bilinear_arrays();
  arrays.erase("Psi");
  logz::io::write_npz(npz, arrays);
  expect_one_line_error(run_cli("run " + cfg + " -q"), "Psi");
  arrays = bilinear_arrays();
  arrays["Theta"] = to_array(Eigen::MatrixXd(Eigen::MatrixXd::Ones(2, 2)));
  logz::io::write_npz(npz, arrays);
  expect_one_line_error(run_cli("run " + cfg + " -q"),
                        npz + ": Theta: expected an L x K_c matrix with L = 3");
  arrays = bilinear_arrays();
  arrays["Phi"].doubles()[3] = std::nan("");
  logz::io::write_npz(npz, arrays);
  expect_one_line_error(run_cli("run " + cfg + " -q"), npz + ": Phi: expected finite values");
  logz::io::write_npz(npz, bilinear_arrays());
  ASSERT_EQ(run_cli("run " + cfg + " -q").exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> bad_bilinear = {
      {"model.sigma_noise=0", "[model] sigma_noise"},
      {"base.type=gaussian", "[base] type: expected one of"},
      {"base.sigma=2", "[base] sigma: unknown key"},
      {"model.theta_key=T", "Theta"},
      {"model.num_c=2", "[model] num_c: expected no such key with a parameters file"},
      {"run.reverse_start=exact", "[run] reverse_start"},
      {"data.file=missing.npy", "missing.npy"},
  };
  for (const auto& [set, needle] : bad_bilinear) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + cfg + " -q --set " + set), needle);
  }
  expect_one_line_error(
      run_cli("run " + kExamples + "bilinear-generative.toml -q --set model.num_d=0"),
      "[model] num_d: expected an integer in [1, 4096], got 0");

  // mcRBM: a missing array, a wrong shape, a NaN, bad config values.
  const std::string mnpz = temp_path("bad_mcrbm.npz"), mcfg = temp_path("bad_mcrbm.toml");
  write_file(mcfg, "[model]\ntype = \"mcrbm\"\nparameters = \"" + mnpz +
                       "\"\n[schedule]\nnum_steps = 10\n[run]\nnum_paths = 4\n");
  auto m = mcrbm_arrays();
  m.erase("b_v");
  logz::io::write_npz(mnpz, m);
  expect_one_line_error(run_cli("run " + mcfg + " -q"), "b_v");
  m = mcrbm_arrays();
  m["W"] = to_array(Eigen::MatrixXd(Eigen::MatrixXd::Ones(3, 5)));
  logz::io::write_npz(mnpz, m);
  expect_one_line_error(run_cli("run " + mcfg + " -q"),
                        mnpz + ": W: expected a J x M matrix with M = 4");
  m = mcrbm_arrays();
  m["C"].doubles()[0] = INFINITY;
  logz::io::write_npz(mnpz, m);
  expect_one_line_error(run_cli("run " + mcfg + " -q"), mnpz + ": C: expected finite values");
  logz::io::write_npz(mnpz, mcrbm_arrays());
  ASSERT_EQ(run_cli("run " + mcfg + " -q").exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> bad_mcrbm = {
      {"model.squared_norm=median", "[model] squared_norm: expected one of"},
      {"model.sigma=-1", "[model] sigma"},
      {"model.dim=3", "[model] dim: expected no such key with a parameters file"},
      {"model.b_vis_key=bv", "bv"},
      {"base.type=prior", "[base] type: expected one of"},
      {"model.prior=laplace", "[model] prior: unknown key"},
  };
  for (const auto& [set, needle] : bad_mcrbm) {
    SCOPED_TRACE(set);
    expect_one_line_error(run_cli("run " + mcfg + " -q --set " + set), needle);
  }
  expect_one_line_error(run_cli("run " + kExamples + "mcrbm.toml -q --set model.p_key=Q"),
                        "[model] p_key: expected no such key with parameters = \"random\"");
}

}  // namespace
