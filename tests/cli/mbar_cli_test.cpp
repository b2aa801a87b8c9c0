// `logz estimate --u-kn U.npy --n-k N`: MBAR on the user's reduced energies streamed from the
// file, the library's answer to the bit (C and Fortran order), and one-line errors for bad input.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "logz/estimators/mbar.hpp"
#include "logz/io/npy.hpp"
#include "logz/random/philox.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// Harmonic states u_k(x) = c_k x^2 / 2, n exact draws from each; exact log(Z_k / Z_0) =
// -log(c_k / c_0) / 2.
struct Harmonic {
  std::vector<double> springs = {1.0, 1.6, 2.5, 4.0, 6.0};
  std::size_t per_state = 4000;
  Eigen::MatrixXd u;  // K x N
  std::vector<double> counts;
};

Harmonic harmonic() {
  Harmonic h;
  const std::size_t k = h.springs.size(), n = k * h.per_state;
  h.u.resize(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j) {
    logz::RandomStream rng(17, j, logz::Purpose::test, 0);
    const double x = rng.normal() / std::sqrt(h.springs[j / h.per_state]);
    for (std::size_t l = 0; l < k; ++l)
      h.u(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(j)) = 0.5 * h.springs[l] * x * x;
  }
  h.counts.assign(k, static_cast<double>(h.per_state));
  return h;
}

// u as pymbar's u_kn: a C-order (K, N) .npy.
std::string write_u_kn(const Eigen::MatrixXd& u, const std::string& name) {
  logz::io::Array a = logz::io::Array::zeros(
      logz::io::Dtype::float64,
      {static_cast<std::size_t>(u.rows()), static_cast<std::size_t>(u.cols())});
  for (Eigen::Index k = 0; k < u.rows(); ++k)
    for (Eigen::Index n = 0; n < u.cols(); ++n)
      a.doubles()[static_cast<std::size_t>(k * u.cols() + n)] = u(k, n);
  const std::string path = temp_path(name);
  logz::io::write_npy(path, a);
  return path;
}

TEST(MbarCli, StreamsUknFromAFileToTheLibrarysAnswer) {
  const Harmonic h = harmonic();
  const std::string u_path = write_u_kn(h.u, "u_kn.npy"), n_path = temp_path("n_k.txt"),
                    out = temp_path("mbar.json");
  write_file(n_path, "# samples per state\n4000\n4000\n4000\n4000\n4000\n");
  const auto r = run_cli("estimate --u-kn " + u_path + " --n-k " + n_path + " --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("MBAR on 5 states x 20000 samples: converged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(reference)"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(logz::test_support::read_file(out));
  const logz::MbarResult lib = logz::mbar(h.u, h.counts);
  ASSERT_EQ(j["log_z"].size(), 5u);
  EXPECT_TRUE(j["std_error"][0].is_null());  // the reference state: nothing to estimate
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(j["log_z"][k].get<double>(), lib.log_z[k]) << k;  // the same blocks: the same bits
    if (k > 0) {
      EXPECT_EQ(j["std_error"][k].get<double>(), lib.std_error[k]) << k;
      const double exact = -0.5 * std::log(h.springs[k] / h.springs[0]), se = lib.std_error[k];
      EXPECT_NEAR(lib.log_z[k], exact, 5 * se + se * se) << k;
    }
  }
  EXPECT_TRUE(j["converged"].get<bool>());
  EXPECT_EQ(j["flags"], nlohmann::json::array());
}

TEST(MbarCli, StatesCutOffFromStateZeroAreNaNAndFlagged) {
  // Three harmonic states: state 0 at 0, states 1 and 2 at 1000 and 1000.5 (sd 1): 1 and 2
  // overlap each other, neither overlaps state 0. Once "0 +- 0.025, converged" and no flag.
  const std::vector<double> mu = {0.0, 1000.0, 1000.5};
  const std::size_t per_state = 400, n = 3 * per_state;
  Eigen::MatrixXd u(3, static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j) {
    logz::RandomStream rng(31, j, logz::Purpose::test, 0);
    const double x = mu[j / per_state] + rng.normal();
    for (Eigen::Index l = 0; l < 3; ++l)
      u(l, static_cast<Eigen::Index>(j)) = 0.5 * (x - mu[l]) * (x - mu[l]);
  }
  const std::string u_path = write_u_kn(u, "cut_u_kn.npy"), n_path = temp_path("cut_n_k.txt"),
                    out = temp_path("cut_mbar.json");
  write_file(n_path, "400\n400\n400\n");
  const auto r = run_cli("estimate --u-kn " + u_path + " --n-k " + n_path + " --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("disconnected: states 1, 2 share no samples with state 0"),
            std::string::npos)
      << r.out;
  // Their rows: NaN log Z and error, marked (no 0 +- 0).
  std::istringstream lines(r.out);
  int marked = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("  disconnected") == std::string::npos || line.rfind("disconnected:", 0) == 0)
      continue;
    ++marked;
    std::istringstream fields(line);
    std::string state, log_z, std_error, mark;
    fields >> state >> log_z >> std_error >> mark;
    EXPECT_EQ(state + " " + log_z + " " + std_error + " " + mark,
              std::to_string(marked) + " nan nan disconnected");
  }
  EXPECT_EQ(marked, 2) << r.out;
  const auto j = nlohmann::json::parse(logz::test_support::read_file(out));
  EXPECT_NE(std::find(j["flags"].begin(), j["flags"].end(), "disconnected"), j["flags"].end())
      << j.dump();
  EXPECT_EQ(j["disconnected_states"], nlohmann::json::array({1, 2}));
  for (std::size_t k : {1, 2}) {
    EXPECT_TRUE(j["log_z"][k].is_null()) << j.dump();
    EXPECT_TRUE(j["std_error"][k].is_null()) << j.dump();
  }
}

TEST(MbarCli, BadInputGivesOneLineErrors) {
  const Harmonic h = harmonic();
  const std::string u = write_u_kn(h.u, "u_kn.npy"), n = temp_path("n_k.txt");
  write_file(n, "4000\n4000\n4000\n4000\n4000\n");
  const auto counts = [&](const std::string& name, const std::string& text) {
    const std::string p = temp_path(name);
    write_file(p, text);
    return p;
  };
  expect_one_line_error(run_cli("estimate --u-kn " + u), "--n-k: expected both --u-kn");
  expect_one_line_error(run_cli("estimate --n-k " + n), "--u-kn: expected both --u-kn");
  expect_one_line_error(run_cli("estimate --u-kn " + u + " --n-k " + n + " --forward " + n),
                        "expected no --forward");
  expect_one_line_error(
      run_cli("estimate --u-kn " + u + " --n-k " + counts("four.txt", "5000\n5000\n5000\n5000\n")),
      "four.txt: expected one count per state of " + u + " (5 states), got 4");
  expect_one_line_error(
      run_cli("estimate --u-kn " + u + " --n-k " +
              counts("sum.txt", "4000\n4000\n4000\n4000\n3999\n")),
      "sum.txt: expected counts that add up to the samples of " + u + " (20000), got 19999");
  expect_one_line_error(run_cli("estimate --u-kn " + u + " --n-k " +
                                counts("half.txt", "4000.5\n4000\n4000\n4000\n3999.5\n")),
                        "half.txt: expected whole numbers of samples >= 0, got 4000.5");
  expect_one_line_error(run_cli("estimate --u-kn " + temp_path("missing.npy") + " --n-k " + n),
                        "missing.npy");
  expect_one_line_error(run_cli("estimate --u-kn " + n + " --n-k " + n),
                        "n_k.txt");  // text, not .npy
  // A value that is not finite: named by its state (row) and sample (column).
  Eigen::MatrixXd bad = h.u;
  bad(3, 12345) = std::numeric_limits<double>::infinity();
  expect_one_line_error(run_cli("estimate --u-kn " + write_u_kn(bad, "bad.npy") + " --n-k " + n),
                        "bad.npy: data: expected finite values, got inf at row 3, column 12345");
  // K x K matrices for 10^6 states cannot fit: refused before anything is read.
  const Eigen::MatrixXd tall = Eigen::MatrixXd::Zero(1000000, 1);
  expect_one_line_error(run_cli("estimate --u-kn " + write_u_kn(tall, "tall.npy") + " --n-k " + n),
                        "--u-kn");
}

}  // namespace
