#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/exact/ising_enumeration.hpp"
#include "logz/exact/ising_kaufman.hpp"

namespace {

using logz::exact::ising_log_z_enumeration;
using logz::exact::ising_log_z_kaufman;
using logz::exact::ising_mean_energy_enumeration;
using logz::exact::ising_mean_energy_kaufman;

constexpr double kLn2 = std::numbers::ln2;
constexpr double kBetas[] = {0.1, 0.4406868, 1.0, 2.0};

// |a - b| <= tol * max(1, |b|): relative for large values, absolute for small ones.
void expect_close(double a, double b, double tol, const char* what, int rows, int cols, double beta,
                  double coupling) {
  EXPECT_LE(std::fabs(a - b), tol * std::max(1.0, std::fabs(b)))
      << what << ": " << rows << " x " << cols << ", beta = " << beta << ", J = " << coupling
      << ": " << a << " vs " << b;
}

// The most literal reading of the model: every configuration, every bond, no tricks.
std::pair<double, double> naive_log_z_and_energy(int rows, int cols, double beta, double j) {
  const int n = rows * cols;
  std::vector<double> log_w, energy;
  for (long long mask = 0; mask < (1LL << n); ++mask) {
    auto s = [&](int r, int c) { return (mask >> (r * cols + c)) & 1 ? -1.0 : 1.0; };
    double e = 0.0;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        e -= j * s(r, c) * s(r, (c + 1) % cols);
        e -= j * s(r, c) * s((r + 1) % rows, c);
      }
    }
    energy.push_back(e);
    log_w.push_back(-beta * e);
  }
  double top = -std::numeric_limits<double>::infinity();
  for (double v : log_w) top = std::max(top, v);
  double sum = 0.0, esum = 0.0;
  for (std::size_t i = 0; i < log_w.size(); ++i) {
    sum += std::exp(log_w[i] - top);
    esum += std::exp(log_w[i] - top) * energy[i];
  }
  return {top + std::log(sum), esum / sum};
}

// Onsager's infinite-lattice free energy per site, -beta f = log(2 cosh 2K)
//   + (1/pi) int_0^{pi/2} log[(1 + sqrt(1 - k^2 sin^2 t)) / 2] dt,  k = 2 sinh 2K / cosh^2 2K,
// by the midpoint rule (the integrand is smooth and periodic for K != K_c: fast convergence).
double onsager_log_z_per_site(double k_coupling) {
  const double ch = std::cosh(2.0 * k_coupling);
  const double k = 2.0 * std::sinh(2.0 * k_coupling) / (ch * ch);
  const int steps = 20000;
  const double h = 0.5 * std::numbers::pi / steps;
  double sum = 0.0;
  for (int i = 0; i < steps; ++i) {
    const double st = std::sin((i + 0.5) * h);
    sum += std::log(0.5 * (1.0 + std::sqrt(1.0 - k * k * st * st)));
  }
  return std::log(2.0 * ch) + sum * h / std::numbers::pi;
}

TEST(IsingEnumeration, MatchesNaiveSumOverConfigurations) {
  const std::pair<int, int> lattices[] = {{1, 1}, {1, 2}, {2, 1}, {1, 3}, {2, 2},
                                          {2, 3}, {3, 2}, {3, 3}, {1, 5}, {4, 4}};
  for (auto [r, c] : lattices) {
    for (double j : {1.0, -1.0, 0.5}) {
      for (double beta : {0.0, 0.3, 1.7}) {
        const auto [lz, e] = naive_log_z_and_energy(r, c, beta, j);
        expect_close(ising_log_z_enumeration(r, c, beta, j), lz, 1e-12, "log Z", r, c, beta, j);
        expect_close(ising_mean_energy_enumeration(r, c, beta, j), e, 1e-12, "<E>", r, c, beta, j);
      }
    }
  }
}

TEST(IsingExact, HandComputedTinyTori) {
  for (double j : {1.0, -0.7}) {
    for (double beta : {0.0, 0.25, 3.0}) {
      const double k = beta * j;
      // 1 x 1: both bonds are self-bonds, E = -2J: Z = 2 e^{2K}.
      const double z11 = kLn2 + 2.0 * k;
      EXPECT_NEAR(ising_log_z_enumeration(1, 1, beta, j), z11, 1e-13);
      EXPECT_NEAR(ising_log_z_kaufman(1, 1, beta, j), z11, 1e-13);
      EXPECT_NEAR(ising_mean_energy_kaufman(1, 1, beta, j), -2.0 * j, 1e-13);
      // 1 x 2: two bonds between sites 0 and 1, two self-bonds: E = -J (2 s0 s1 + 2),
      // Z = 2 e^{4K} + 2.
      const double z12 = kLn2 + std::log1p(std::exp(4.0 * k));
      EXPECT_NEAR(ising_log_z_enumeration(1, 2, beta, j), z12, 1e-13);
      EXPECT_NEAR(ising_log_z_kaufman(1, 2, beta, j), z12, 1e-13);
      EXPECT_NEAR(ising_log_z_kaufman(2, 1, beta, j), z12, 1e-13);
    }
  }
}

TEST(IsingKaufman, MatchesEnumerationOnEverySmallTorus) {
  for (int r = 1; r <= 5; ++r) {
    for (int c = 1; c <= 5; ++c) {
      for (double beta : kBetas) {
        expect_close(ising_log_z_kaufman(r, c, beta), ising_log_z_enumeration(r, c, beta), 1e-9,
                     "log Z", r, c, beta, 1.0);
      }
    }
  }
}

TEST(IsingKaufman, MatchesEnumerationForOtherCouplings) {
  // J = 0.5 everywhere; J < 0 where supported: both sides even (gauge to J > 0) or a single
  // row or column (closed-form ring, frustrated for odd length).
  for (int r = 1; r <= 5; ++r) {
    for (int c = 1; c <= 5; ++c) {
      for (double j : {0.5, -1.0, -0.5}) {
        const bool supported = j > 0.0 || (r % 2 == 0 && c % 2 == 0) || r == 1 || c == 1;
        if (!supported) continue;
        for (double beta : {0.1, 0.4406868, 1.0, 2.0, 10.0}) {
          expect_close(ising_log_z_kaufman(r, c, beta, j), ising_log_z_enumeration(r, c, beta, j),
                       1e-9, "log Z", r, c, beta, j);
          expect_close(ising_mean_energy_kaufman(r, c, beta, j),
                       ising_mean_energy_enumeration(r, c, beta, j), 1e-9, "<E>", r, c, beta, j);
        }
      }
    }
  }
}

TEST(IsingKaufman, NonSquareOrientationAndSymmetry) {
  // Z(R, C) = Z(C, R) for equal couplings; and both equal enumeration on non-square lattices.
  for (auto [r, c] : {std::pair{2, 5}, {3, 4}, {4, 6}, {1, 6}}) {
    for (double beta : {0.3, 0.9}) {
      const double e = ising_log_z_enumeration(r, c, beta);
      expect_close(ising_log_z_kaufman(r, c, beta), e, 1e-12, "log Z", r, c, beta, 1.0);
      expect_close(ising_log_z_kaufman(c, r, beta), e, 1e-12, "log Z", c, r, beta, 1.0);
    }
  }
}

TEST(IsingKaufman, MeanEnergyMatchesEnumeration) {
  const std::pair<int, int> lattices[] = {{1, 3}, {2, 2}, {2, 5}, {3, 3}, {3, 4}, {4, 5}, {5, 5}};
  for (auto [r, c] : lattices) {
    for (double beta : {0.05, 0.3, 0.4406868, 0.6, 1.5}) {
      expect_close(ising_mean_energy_kaufman(r, c, beta), ising_mean_energy_enumeration(r, c, beta),
                   1e-10, "<E>", r, c, beta, 1.0);
    }
  }
}

TEST(IsingKaufman, MeanEnergyMatchesCentralDifferenceOfLogZ) {
  const double h = 1e-5;
  for (int l : {4, 7, 16, 64}) {
    for (double beta : {0.2, 0.4406868, 0.7}) {
      const double fd =
          -(ising_log_z_kaufman(l, l, beta + h) - ising_log_z_kaufman(l, l, beta - h)) / (2 * h);
      // Truncation h^2 |E'''| / 6 and rounding ~1e-16 |log Z| / h, relative to |E| ~ l^2.
      expect_close(ising_mean_energy_kaufman(l, l, beta), fd, 2e-7 * l * l, "<E> vs FD", l, l, beta,
                   1.0);
      EXPECT_NEAR(ising_mean_energy_kaufman(l, l, beta) / fd, 1.0, 1e-7);
    }
  }
}

TEST(IsingKaufman, PublishedValue32x32AtBetaOne) {
  // Beale (1996) / standard reference value: log Z - 1024 log 2 = 1339.26708 at beta = 1.
  EXPECT_NEAR(ising_log_z_kaufman(32, 32, 1.0) - 1024 * kLn2, 1339.26708, 1e-4);
}

TEST(IsingKaufman, LargeLatticesAreFiniteAndBounded) {
  const int l = 256;
  const double n = static_cast<double>(l) * l;
  for (double beta : {0.1, 0.44, 2.0}) {
    const double lz = ising_log_z_kaufman(l, l, beta);
    const double e = ising_mean_energy_kaufman(l, l, beta);
    ASSERT_TRUE(std::isfinite(lz)) << beta;
    ASSERT_TRUE(std::isfinite(e)) << beta;
    // Two ground states with E = -2N: log 2 + 2N beta <= log Z <= N log 2 + 2N beta.
    EXPECT_GE(lz, kLn2 + 2.0 * n * beta);
    EXPECT_LE(lz, n * kLn2 + 2.0 * n * beta);
    EXPECT_GE(e, -2.0 * n);
    EXPECT_LE(e, 0.0);
  }
  // Deep in the ordered phase Z = 2 e^{2N beta} (1 + O(N e^{-8 beta})).
  EXPECT_NEAR(ising_log_z_kaufman(l, l, 2.0) - 2.0 * n * 2.0 - kLn2, n * std::exp(-16.0),
              1e-3 * n * std::exp(-16.0));
  EXPECT_TRUE(std::isfinite(ising_log_z_kaufman(1024, 1024, 0.4406868)));
}

TEST(IsingKaufman, ApproachesOnsagerOnLargeLattices) {
  const int l = 256;
  const double n = static_cast<double>(l) * l;
  // High temperature: finite-size corrections are exponentially small in L.
  for (double beta : {0.1, 0.3}) {
    EXPECT_NEAR(ising_log_z_kaufman(l, l, beta) / n, onsager_log_z_per_site(beta), 1e-9) << beta;
  }
  // Low temperature: the excess over N (-beta f) is the two-fold ground-state degeneracy, log 2.
  EXPECT_NEAR(ising_log_z_kaufman(l, l, 1.0) - n * onsager_log_z_per_site(1.0), kLn2, 1e-6);
  // Near K_c the convergence is slow but the per-site value is close.
  EXPECT_NEAR(ising_log_z_kaufman(l, l, 0.4406868) / n, onsager_log_z_per_site(0.4406868), 2e-5);
}

TEST(IsingKaufman, SingleRowMatchesClosedFormRing) {
  // One row of L sites: L self-bonds (-J each) plus a ring: Z = e^{KL} ((2cosh K)^L + (2sinh K)^L).
  for (int l : {3, 50, 1000}) {
    for (double beta : {0.1, 1.0, 5.0}) {
      const double expected =
          beta * l + l * std::log(2.0 * std::cosh(beta)) + std::log1p(std::pow(std::tanh(beta), l));
      expect_close(ising_log_z_kaufman(1, l, beta), expected, 1e-13, "log Z", 1, l, beta, 1.0);
      expect_close(ising_log_z_kaufman(l, 1, beta), expected, 1e-13, "log Z", l, 1, beta, 1.0);
    }
  }
}

TEST(IsingKaufman, AntiferromagnetOnEvenTorusEqualsFerromagnet) {
  for (int l : {2, 4, 64}) {
    for (double beta : {0.2, 0.4406868, 3.0}) {
      EXPECT_EQ(ising_log_z_kaufman(l, l + 2, beta, -1.0), ising_log_z_kaufman(l, l + 2, beta));
      EXPECT_EQ(ising_mean_energy_kaufman(l, l + 2, beta, -1.0),
                ising_mean_energy_kaufman(l, l + 2, beta));
    }
  }
}

TEST(IsingKaufman, InfiniteTemperatureAndWeakCoupling) {
  for (auto [r, c] : {std::pair{1, 1}, {1, 4}, {3, 1}, {2, 2}, {5, 7}, {128, 128}}) {
    const double n = static_cast<double>(r) * c;
    const double self_bonds = (r == 1 ? c : 0) + (c == 1 ? r : 0);
    EXPECT_DOUBLE_EQ(ising_log_z_kaufman(r, c, 0.0), n * kLn2);
    EXPECT_DOUBLE_EQ(ising_log_z_kaufman(r, c, 0.7, 0.0), n * kLn2);
    EXPECT_DOUBLE_EQ(ising_mean_energy_kaufman(r, c, 0.0, 1.5), -1.5 * self_bonds);
    EXPECT_TRUE(std::isfinite(ising_mean_energy_kaufman(r, c, 1e-300)));
    EXPECT_TRUE(std::isfinite(ising_mean_energy_kaufman(r, c, 5e-324)));
  }
  // <E> ~ -beta Var_0(E) for small beta: 3 x 3 has 18 distinct bonds, Var_0 = 18 J^2.
  EXPECT_DOUBLE_EQ(ising_mean_energy_kaufman(3, 3, 1e-200), -18e-200);
  EXPECT_NEAR(ising_mean_energy_kaufman(3, 3, 1e-3) / ising_mean_energy_enumeration(3, 3, 1e-3),
              1.0, 1e-9);
}

TEST(IsingExact, BadArgumentsThrow) {
  using logz::InvalidArgument;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (auto f : {&ising_log_z_kaufman, &ising_mean_energy_kaufman, &ising_log_z_enumeration,
                 &ising_mean_energy_enumeration}) {
    EXPECT_THROW(f(0, 3, 0.5, 1.0), InvalidArgument);
    EXPECT_THROW(f(3, -1, 0.5, 1.0), InvalidArgument);
    EXPECT_THROW(f(3, 3, -0.1, 1.0), InvalidArgument);
    EXPECT_THROW(f(3, 3, nan, 1.0), InvalidArgument);
    EXPECT_THROW(f(3, 3, inf, 1.0), InvalidArgument);
    EXPECT_THROW(f(3, 3, 0.5, nan), InvalidArgument);
    EXPECT_THROW(f(3, 3, 0.5, -inf), InvalidArgument);
  }
  EXPECT_THROW(ising_log_z_enumeration(6, 6, 0.5), InvalidArgument);
  EXPECT_THROW(ising_mean_energy_enumeration(1, 31, 0.5), InvalidArgument);
  EXPECT_THROW(ising_log_z_enumeration(100000, 100000, 0.5), InvalidArgument);
  // Frustrated antiferromagnet (an odd side > 1) is rejected by Kaufman, not by enumeration.
  EXPECT_THROW(ising_log_z_kaufman(3, 3, 0.5, -1.0), InvalidArgument);
  EXPECT_THROW(ising_mean_energy_kaufman(2, 3, 0.5, -1.0), InvalidArgument);
  EXPECT_THROW(ising_log_z_kaufman(5, 4, 0.5, -0.1), InvalidArgument);
  EXPECT_NO_THROW(ising_log_z_enumeration(3, 3, 0.5, -1.0));
  try {
    ising_log_z_kaufman(3, 3, 0.5, -1.0);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("ising_log_z_kaufman: coupling: expected"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
