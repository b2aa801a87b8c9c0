// MBAR on harmonic states with known free energies, and against pymbar
// (Debian's python3-pymbar) on the same reduced energies to 1e-6; the form for energies linear
// in the level against the dense one; the vectorised column softmax under both against the
// scalar log-sum-exp.
#include "logz/estimators/mbar.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/softmax_columns.hpp"
#include "logz/random/philox.hpp"
#include "logz/tempering/tempering_stats.hpp"

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

// Harmonic states of sd 1 at the given means, per_state exact draws from each (0: unsampled).
struct Placed {
  Eigen::MatrixXd u;
  std::vector<double> counts;
};

Placed place_states(const std::vector<double>& mu, const std::vector<int>& per_state,
                    std::uint64_t seed) {
  Placed p;
  int n = 0;
  for (int c : per_state) n += c;
  const std::size_t k = mu.size();
  p.u.resize(static_cast<Eigen::Index>(k), n);
  for (std::size_t from = 0, j = 0; from < k; ++from) {
    p.counts.push_back(per_state[from]);
    for (int i = 0; i < per_state[from]; ++i, ++j) {
      logz::RandomStream rng(seed, j, logz::Purpose::test, 0);
      const double x = mu[from] + rng.normal();
      for (std::size_t l = 0; l < k; ++l)
        p.u(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(j)) =
            0.5 * (x - mu[l]) * (x - mu[l]);
    }
  }
  return p;
}

TEST(Mbar, StatesWithNoOverlapPathToTheFirstAreNaNAndFlagged) {
  // Two states 1000 sd apart: no sample has weight under both (the overlap matrix is the
  // identity). Once 0 +- 0, converged, no flag.
  const Placed two = place_states({0.0, 1000.0}, {500, 500}, 21);
  const auto r2 = logz::mbar(two.u, two.counts);
  EXPECT_EQ(r2.disconnected, std::vector<std::size_t>{1});
  EXPECT_TRUE(std::isnan(r2.log_z[1]));
  EXPECT_TRUE(std::isnan(r2.std_error[1]));
  EXPECT_EQ(r2.log_z[0], 0.0);
  // States 1 and 2 overlap each other but not state 0: both cut off (once 0 +- 0.025).
  const Placed three = place_states({0.0, 1000.0, 1000.5}, {500, 500, 500}, 22);
  const auto r3 = logz::mbar(three.u, three.counts);
  EXPECT_EQ(r3.disconnected, (std::vector<std::size_t>{1, 2}));
  for (std::size_t k : {1, 2}) {
    EXPECT_TRUE(std::isnan(r3.log_z[k])) << k;
    EXPECT_TRUE(std::isnan(r3.std_error[k])) << k;
    EXPECT_TRUE(std::isnan(r3.covariance(static_cast<Eigen::Index>(k), 0))) << k;
  }
  // A connected state keeps the estimate it has without the cut-off ones; an unsampled state
  // whose weights all come from a cut-off state's samples is cut off too.
  const Placed four = place_states({0.0, 0.5, 1000.0, 1000.3}, {500, 500, 500, 0}, 23);
  const auto r4 = logz::mbar(four.u, four.counts);
  EXPECT_EQ(r4.disconnected, (std::vector<std::size_t>{2, 3}));
  const auto alone = logz::mbar(four.u.topLeftCorner(2, 1000), std::vector<double>{500, 500});
  EXPECT_TRUE(alone.disconnected.empty());
  EXPECT_NEAR(r4.log_z[1], alone.log_z[1], 1e-9);
  EXPECT_NEAR(r4.std_error[1], alone.std_error[1], 1e-9);
  EXPECT_GT(r4.std_error[1], 0.0);
}

TEST(Mbar, WeakLinksAreFlaggedPoorOverlap) {
  // Unit Gaussians 1 sd apart overlap well (O_01 + O_10 about 0.6); 5 sd apart about 0.02,
  // below the 0.06 that Klimovich, Shirts & Mobley's 0.03 per element asks for: flagged, with
  // the error still estimated.
  const Placed near = place_states({0.0, 1.0}, {500, 500}, 31);
  const auto good = logz::mbar(near.u, near.counts);
  EXPECT_FALSE(good.poor_overlap);
  const Placed far = place_states({0.0, 5.0}, {500, 500}, 32);
  const auto poor = logz::mbar(far.u, far.counts);
  EXPECT_LT(poor.overlap(0, 1) + poor.overlap(1, 0), 0.06);
  EXPECT_TRUE(poor.poor_overlap);
  EXPECT_TRUE(poor.disconnected.empty());
  EXPECT_TRUE(std::isfinite(poor.std_error[1]));
  // A chain of well-overlapping neighbours is fine however far its ends are apart.
  const Placed chain = place_states({0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, std::vector<int>(6, 300), 33);
  EXPECT_FALSE(logz::mbar(chain.u, chain.counts).poor_overlap);
}

TEST(Mbar, InfiniteEnergiesAreZeroWeights) {
  // Hard walls: u_l(x) = x^2 / 2 right of wall_l, +inf left of it (state 0 has none, state 1 is
  // sampled by rejection, state 2 unsampled). The same numbers as an energy of 1e6 there, whose
  // weights underflow to 0, in both layouts; within error of exact log P(x >= wall).
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> wall = {-inf, 0.3, 1.0};
  const int per_state = 600;
  Eigen::MatrixXd walled(3, 2 * per_state), huge(3, 2 * per_state);
  for (int j = 0; j < 2 * per_state; ++j) {
    logz::RandomStream rng(35, static_cast<std::uint64_t>(j), logz::Purpose::test, 0);
    double x = rng.normal();
    while (j >= per_state && x < wall[1]) x = rng.normal();
    for (Eigen::Index l = 0; l < 3; ++l) {
      const bool inside = x >= wall[static_cast<std::size_t>(l)];
      walled(l, j) = inside ? 0.5 * x * x : inf;
      huge(l, j) = inside ? 0.5 * x * x : 1e6;
    }
  }
  const std::vector<double> counts = {per_state, per_state, 0};
  const auto r = logz::mbar(walled, counts);
  const auto reference = logz::mbar(huge, counts);
  ASSERT_TRUE(r.converged);
  EXPECT_TRUE(r.disconnected.empty());
  for (std::size_t k = 1; k < 3; ++k) {
    EXPECT_NEAR(r.log_z[k], reference.log_z[k], 1e-12) << k;
    EXPECT_NEAR(r.std_error[k], reference.std_error[k], 1e-12) << k;
    const double exact = std::log(0.5 * std::erfc(wall[k] / std::sqrt(2.0)));
    EXPECT_NEAR(r.log_z[k], exact, 5 * r.std_error[k]) << k;
  }
  std::vector<double> u_kn(walled.size());
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      u_kn.data(), walled.rows(), walled.cols()) = walled;
  EXPECT_EQ(logz::mbar_state_major(u_kn, 3, counts).log_z, r.log_z);
  // NaN and -inf are refused where they are; so is a sample +inf in every sampled state.
  Eigen::MatrixXd bad = walled;
  bad(2, 5) = -inf;
  EXPECT_THROW(logz::mbar(bad, counts), logz::InvalidArgument);
  bad = walled;
  bad(0, 7) = bad(1, 7) = inf;
  EXPECT_THROW(logz::mbar(bad, counts), logz::InvalidArgument);
}

TEST(Mbar, NonFiniteInitialValuesAreRefused) {
  const Harmonic h = make_harmonic(200, 7);
  logz::MbarOptions warm;
  warm.initial_log_z = {0.0, std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0, 0.0};
  try {
    logz::mbar(h.u, h.counts, warm);
    FAIL() << "a NaN warm start was taken";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("initial_log_z: expected finite values, got nan at [1]"),
              std::string::npos)
        << e.what();
  }
  warm.initial_log_z[1] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(logz::mbar(h.u, h.counts, warm), logz::InvalidArgument);
}

TEST(Mbar, AgreesWithPymbar) {
  if (std::system("/usr/bin/python3 -c 'import pymbar' >/dev/null 2>&1") != 0)
    GTEST_SKIP()
        << "python3-pymbar cannot be imported; install it (scripts/install-deps) to compare";
  const Harmonic h = make_harmonic(500, 7);
  const std::string dir = ::testing::TempDir();
  logz::io::Array a;
  a.shape = {static_cast<std::size_t>(h.u.rows()), static_cast<std::size_t>(h.u.cols())};
  for (Eigen::Index i = 0; i < h.u.rows(); ++i)
    for (Eigen::Index j = 0; j < h.u.cols(); ++j) a.doubles().push_back(h.u(i, j));
  logz::io::write_npy(dir + "logz_mbar_u.npy", a);
  logz::io::write_npy(dir + "logz_mbar_n.npy", logz::io::Array{{h.counts.size()}, h.counts});
  const std::string out = dir + "logz_mbar_pymbar.txt";
  const std::string script = "import numpy as np, pymbar; u = np.load('" + dir +
                             "logz_mbar_u.npy'); n = np.load('" + dir +
                             "logz_mbar_n.npy'); r = pymbar.MBAR(u, n, "
                             "relative_tolerance=1e-12).getFreeEnergyDifferences(); "
                             "print(' '.join(repr(-float(v)) for v in r[0][0])); print(' "
                             "'.join(repr(float(v)) for v in r[1][0]))";
  ASSERT_EQ(
      std::system(("/usr/bin/python3 -c \"" + script + "\" > " + out + " 2>/dev/null").c_str()), 0);
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

// K states u_k(x) = c_k x^2 / 2, linear in the level c_k, with exact draws x ~ N(0, 1 / c_k):
// log(Z_k / Z_1) = -log(c_k / c_1) / 2.
struct LinearStates {
  std::vector<double> levels, energies, counts;
  Eigen::MatrixXd u;
};

LinearStates make_linear(const std::vector<double>& counts, std::uint64_t seed) {
  LinearStates s;
  s.counts = counts;
  const std::size_t k = counts.size();
  for (std::size_t l = 0; l < k; ++l)
    s.levels.push_back(1.0 + 3.0 * static_cast<double>(l) / static_cast<double>(k));
  for (std::size_t l = 0; l < k; ++l) {
    for (int n = 0; n < static_cast<int>(counts[l]); ++n) {
      logz::RandomStream rng(seed, s.energies.size(), logz::Purpose::test, 0);
      const double x = rng.normal() / std::sqrt(s.levels[l]);
      s.energies.push_back(x * x / 2);
    }
  }
  s.u.resize(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(s.energies.size()));
  for (Eigen::Index l = 0; l < s.u.rows(); ++l)
    for (Eigen::Index n = 0; n < s.u.cols(); ++n) s.u(l, n) = s.levels[l] * s.energies[n];
  return s;
}

TEST(Mbar, LinearInLevelGivesTheDenseAnswerWithoutTheMatrix) {
  // Seven levels (not a whole number of vectors), one of them unsampled, and a warm start.
  const LinearStates s = make_linear({400, 300, 0, 500, 400, 300, 350}, 9);
  const auto dense = logz::mbar(s.u, s.counts);
  const auto linear = logz::mbar_linear_in_level(s.levels, s.energies, s.counts);
  ASSERT_TRUE(linear.converged);
  EXPECT_EQ(linear.iterations, dense.iterations);
  for (std::size_t k = 0; k < s.levels.size(); ++k) {
    EXPECT_NEAR(linear.log_z[k], dense.log_z[k], 1e-10) << k;
    EXPECT_NEAR(linear.std_error[k], dense.std_error[k], 1e-10) << k;
    const double exact = -0.5 * std::log(s.levels[k] / s.levels[0]);
    EXPECT_NEAR(linear.log_z[k], exact,
                5 * linear.std_error[k] + linear.std_error[k] * linear.std_error[k])
        << k;
  }
  EXPECT_LT((linear.covariance - dense.covariance).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((linear.overlap - dense.overlap).cwiseAbs().maxCoeff(), 1e-12);
  logz::MbarOptions warm;
  warm.initial_log_z = linear.log_z;
  const auto again = logz::mbar_linear_in_level(s.levels, s.energies, s.counts, warm);
  EXPECT_LE(again.iterations, 2);
  for (std::size_t k = 0; k < s.levels.size(); ++k)
    EXPECT_NEAR(again.log_z[k], linear.log_z[k], 1e-9) << k;
  // Energies whose products overflow are refused, as non-finite u is by mbar().
  const std::vector<double> huge_levels(s.levels.size(), 1e200),
      huge_energies(s.energies.size(), 1e200);
  EXPECT_THROW(logz::mbar_linear_in_level(huge_levels, huge_energies, s.counts),
               logz::InvalidArgument);
}

TEST(Mbar, StateMajorEnergiesGiveTheDenseAnswerToTheBit) {
  // pymbar's layout (row k = state k, a C-order numpy u_kn) read in place: the same blocks and
  // the same softmax inputs as the sample-major matrix, so the same numbers to the bit. Seven
  // states with one unsampled, and more samples than one block (2^15 / 7 = 4681 per block).
  const LinearStates s = make_linear({1400, 900, 0, 1500, 1200, 900, 1050}, 12);
  const Eigen::Index k = s.u.rows(), n = s.u.cols();
  ASSERT_GT(n, 4681);
  std::vector<double> u_kn(static_cast<std::size_t>(k * n));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(u_kn.data(), k,
                                                                                     n) = s.u;
  const auto dense = logz::mbar(s.u, s.counts);
  const auto rows = logz::mbar_state_major(u_kn, static_cast<std::size_t>(k), s.counts);
  ASSERT_TRUE(rows.converged);
  EXPECT_EQ(rows.iterations, dense.iterations);
  EXPECT_EQ(rows.log_z, dense.log_z);
  EXPECT_EQ(rows.std_error, dense.std_error);
  EXPECT_EQ(rows.covariance, dense.covariance);
  EXPECT_EQ(rows.overlap, dense.overlap);
  // Shapes and values are checked as mbar() checks them.
  EXPECT_THROW(logz::mbar_state_major(std::span(u_kn).first(u_kn.size() - 1), 7, s.counts),
               logz::InvalidArgument);
  EXPECT_THROW(logz::mbar_state_major(u_kn, 0, s.counts), logz::InvalidArgument);
  EXPECT_THROW(logz::mbar_state_major(u_kn, 6, s.counts),
               logz::InvalidArgument);  // 7 counts for 6 states
  u_kn[123] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(logz::mbar_state_major(u_kn, 7, s.counts), logz::InvalidArgument);
}

TEST(Mbar, TemperedLinearAndPerLevelEnergiesAgree) {
  // The same samples recorded both ways: Delta_n per sample on a path linear in t (u_k = -t_k
  // Delta_n, no K x N matrix), and every level's U_k - U_1 per sample (the K x N matrix in place).
  const LinearStates s = make_linear({300, 200, 250, 300, 0, 350}, 10);
  logz::TemperingStats linear;
  linear.num_levels = s.levels.size();
  for (std::size_t l = 0; l < s.counts.size(); ++l)
    linear.sample_level.insert(linear.sample_level.end(), static_cast<std::size_t>(s.counts[l]),
                               static_cast<std::uint32_t>(l));
  for (double e : s.energies) linear.sample_delta.push_back(-e);
  logz::TemperingStats per_level = linear;
  per_level.linear_in_t = false;
  for (std::size_t n = 0; n < s.energies.size(); ++n)
    for (std::size_t l = 0; l < s.levels.size(); ++l)
      per_level.sample_energies.push_back(s.levels[l] * s.energies[n]);
  const auto a = logz::mbar_tempered(linear, s.levels),
             b = logz::mbar_tempered(per_level, s.levels);
  EXPECT_TRUE(a.last.diagnostics.converged);
  ASSERT_EQ(a.log_z.size(), s.levels.size());
  for (std::size_t k = 0; k < s.levels.size(); ++k) {
    EXPECT_NEAR(a.log_z[k], b.log_z[k], 1e-10) << k;
    EXPECT_NEAR(a.std_error[k], b.std_error[k], 1e-10) << k;
  }
}

TEST(SoftmaxColumns, MatchesTheScalarLogSumExp) {
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t rows = 1; rows <= 19; ++rows) {
    const std::size_t cols = 5, ld = rows + 3;  // leading dimensions past the rows
    std::vector<double> bias(rows), levels(rows), u(ld * cols, 1e300), energies(cols);
    for (std::size_t k = 0; k < rows; ++k) {
      logz::RandomStream rng(11, k, logz::Purpose::test, 0);
      bias[k] = k == 1 ? -inf : 3.0 * rng.normal();  // an unsampled state drops out
      levels[k] = 1.0 + rng.uniform();
    }
    for (std::size_t j = 0; j < cols; ++j) {
      logz::RandomStream rng(12, j, logz::Purpose::test, 0);
      energies[j] =
          (j == 3 ? 1e4 : 1.0) * rng.normal();  // energies of 1e4 neither overflow nor underflow
      for (std::size_t k = 0; k < rows; ++k)
        u[j * ld + k] = (j == 2 ? -1e4 : 1.0) * (5.0 + rng.normal());
    }
    std::vector<double> p(ld * cols, -1.0), log_norm(cols), p_linear(ld * cols, -1.0),
        log_norm_linear(cols);
    logz::softmax_columns(bias, u.data(), ld, cols, p.data(), ld, log_norm.data());
    logz::softmax_columns_linear(bias, levels, energies, p_linear.data(), ld,
                                 log_norm_linear.data());
    for (std::size_t j = 0; j < cols; ++j) {
      std::vector<double> x(rows), y(rows);
      for (std::size_t k = 0; k < rows; ++k) {
        x[k] = bias[k] - u[j * ld + k];
        y[k] = bias[k] - levels[k] * energies[j];
      }
      const double want = logz::log_sum_exp(x), want_linear = logz::log_sum_exp(y);
      EXPECT_NEAR(log_norm[j], want, 1e-14 * std::max(1.0, std::abs(want))) << rows << " " << j;
      EXPECT_NEAR(log_norm_linear[j], want_linear, 1e-14 * std::max(1.0, std::abs(want_linear)))
          << rows << " " << j;
      for (std::size_t k = 0; k < rows; ++k) {
        EXPECT_NEAR(p[j * ld + k], std::exp(x[k] - want), 1e-14) << rows << " " << j << " " << k;
        EXPECT_NEAR(p_linear[j * ld + k], std::exp(y[k] - want_linear), 1e-14)
            << rows << " " << j << " " << k;
      }
      for (std::size_t k = rows; k < ld; ++k)
        EXPECT_EQ(p[j * ld + k], -1.0) << "wrote past the rows";
    }
  }
}

}  // namespace
