// MBAR on harmonic states with known free energies, and against pymbar
// (Debian's python3-pymbar) on the same reduced energies to 1e-6.
#include "logz/estimators/mbar.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "logz/io/npy.hpp"
#include "logz/random/philox.hpp"

namespace {

// K harmonic states u_k(x) = (x - mu_k)^2 / (2 s_k^2), N_k exact draws from each;
// exact log(Z_k / Z_1) = log(s_k / s_1).
struct Harmonic {
  Eigen::MatrixXd u;
  std::vector<double> counts;
  std::vector<double> mu = {0.0, 0.5, 1.0, 1.6, 2.0}, sd = {1.0, 0.8, 1.2, 0.9, 1.5};
};

Harmonic make_harmonic(int per_state, std::uint64_t seed) {
  Harmonic h;
  const int k = static_cast<int>(h.mu.size()), n = k * per_state;
  h.u.resize(k, n);
  h.counts.assign(k, per_state);
  for (int j = 0; j < n; ++j) {
    logz::RandomStream rng(seed, static_cast<std::uint64_t>(j), logz::Purpose::test, 0);
    const int from = j / per_state;
    const double x = h.mu[from] + h.sd[from] * rng.normal();
    for (int l = 0; l < k; ++l) h.u(l, j) = (x - h.mu[l]) * (x - h.mu[l]) / (2 * h.sd[l] * h.sd[l]);
  }
  return h;
}

TEST(Mbar, HarmonicStatesWithinErrorOfExact) {
  const Harmonic h = make_harmonic(2000, 5);
  const auto r = logz::mbar(h.u, h.counts);
  ASSERT_TRUE(r.converged);
  for (std::size_t k = 1; k < h.mu.size(); ++k) {
    const double exact = std::log(h.sd[k] / h.sd[0]);
    ASSERT_TRUE(std::isfinite(r.std_error[k]));
    EXPECT_LT(r.std_error[k], 0.05);
    EXPECT_NEAR(r.log_z[k], exact, 5 * r.std_error[k] + r.std_error[k] * r.std_error[k]) << k;
  }
}

TEST(Mbar, ConvergesFromZeroWhenFreeEnergiesDifferByThousands) {
  // The harmonic states shifted by offsets c_k of up to 2000 nats: from f = 0 the weights of
  // the shifted states underflow and the Newton system is singular at the start (the 784-500
  // RBM's tempering ladder spans hundreds of nats); exact log(Z_k / Z_1) = log(s_k / s_1) - c_k.
  Harmonic h = make_harmonic(1000, 8);
  const std::vector<double> offset = {0.0, 500.0, 1000.0, 1500.0, 2000.0};
  for (Eigen::Index l = 0; l < h.u.rows(); ++l) h.u.row(l).array() += offset[l];
  const auto r = logz::mbar(h.u, h.counts);
  ASSERT_TRUE(r.converged);
  for (std::size_t k = 1; k < h.mu.size(); ++k) {
    const double exact = std::log(h.sd[k] / h.sd[0]) - offset[k];
    EXPECT_NEAR(r.log_z[k], exact, 5 * r.std_error[k] + r.std_error[k] * r.std_error[k]) << k;
  }
}

TEST(Mbar, UnsampledStateAndWarmStart) {
  Harmonic h = make_harmonic(1000, 6);
  // Move the samples of state 2 to state 1's count: state 2 becomes unsampled.
  h.counts = {1000, 2000, 0, 1000, 1000};
  // Samples 2000..2999 were drawn from state 2; relabelling them is wrong, so draw afresh.
  const Harmonic fresh = make_harmonic(1000, 6);
  Eigen::MatrixXd u(5, 4000);
  u << fresh.u.leftCols(2000), fresh.u.rightCols(2000);
  const std::vector<double> counts = {1000, 1000, 0, 1000, 1000};
  const auto r = logz::mbar(u, counts);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.log_z[2], std::log(1.2), 5 * r.std_error[2] + 0.01);
  logz::MbarOptions warm;
  warm.initial_log_z = r.log_z;
  const auto again = logz::mbar(u, counts, warm);
  EXPECT_LE(again.iterations, 2);
  for (std::size_t k = 0; k < 5; ++k) EXPECT_NEAR(again.log_z[k], r.log_z[k], 1e-9);
}

TEST(Mbar, AgreesWithPymbar) {
  if (std::system("/usr/bin/python3 -c 'import pymbar' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3-pymbar cannot be imported; install it (scripts/install-deps) to compare";
  const Harmonic h = make_harmonic(500, 7);
  const std::string dir = ::testing::TempDir();
  logz::io::Array a;
  a.shape = {static_cast<std::size_t>(h.u.rows()), static_cast<std::size_t>(h.u.cols())};
  for (Eigen::Index i = 0; i < h.u.rows(); ++i)
    for (Eigen::Index j = 0; j < h.u.cols(); ++j) a.doubles().push_back(h.u(i, j));
  logz::io::write_npy(dir + "logz_mbar_u.npy", a);
  logz::io::write_npy(dir + "logz_mbar_n.npy", logz::io::Array{{h.counts.size()}, h.counts});
  const std::string out = dir + "logz_mbar_pymbar.txt";
  const std::string script =
      "import numpy as np, pymbar; u = np.load('" + dir + "logz_mbar_u.npy'); n = np.load('" + dir +
      "logz_mbar_n.npy'); r = pymbar.MBAR(u, n, relative_tolerance=1e-12).getFreeEnergyDifferences(); "
      "print(' '.join(repr(-float(v)) for v in r[0][0])); print(' '.join(repr(float(v)) for v in r[1][0]))";
  ASSERT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\" > " + out + " 2>/dev/null").c_str()), 0);
  std::ifstream in(out);
  std::vector<double> log_z(5), se(5);
  for (auto& v : log_z) in >> v;
  for (auto& v : se) in >> v;
  ASSERT_TRUE(in) << "could not read pymbar's output";
  const auto r = logz::mbar(h.u, h.counts);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_NEAR(r.log_z[k], log_z[k], 1e-6) << k;
    EXPECT_NEAR(r.std_error[k], se[k], 1e-6) << k;
  }
}

}  // namespace
