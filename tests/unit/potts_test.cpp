// The Potts model's bookkeeping (equal-bond counts kept by the kernels, base,
// ground state, works) and its exact oracles: enumeration against the most
// literal loop, the transfer matrix against enumeration (2 x 3, 3 x 3, 2 x 4,
// 3 x C, 4 x 2, 1 x C, q = 2..10, both signs of J), q = 2 against Kaufman's Ising
// formula (delta(x, y) = (1 + s s') / 2), and mean energies against finite
// differences of log Z.
#include "logz/models/potts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/core/error.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/exact/potts_enumeration.hpp"
#include "logz/exact/potts_transfer_matrix.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/potts_metropolis.hpp"

namespace {

using logz::exact::potts_log_z_enumeration;
using logz::exact::potts_log_z_transfer_matrix;
using logz::exact::potts_mean_energy_enumeration;
using logz::exact::potts_mean_energy_transfer_matrix;

// The test's own count of equal bonds: right and down neighbour of every site.
long literal_equal_bonds(const std::vector<int>& x, int rows, int cols) {
  long n = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int v = x[r * cols + c];
      n += v == x[r * cols + (c + 1) % cols];
      n += v == x[((r + 1) % rows) * cols + c];
    }
  return n;
}

// log Z and <E> by visiting every configuration, no symmetry, no incremental update.
std::pair<double, double> literal_log_z(int rows, int cols, int q, double beta, double j) {
  const int n = rows * cols;
  long total = 1;
  for (int i = 0; i < n; ++i) total *= q;
  std::vector<double> log_w(total), energy(total);
  std::vector<int> x(n);
  for (long s = 0; s < total; ++s) {
    long rest = s;
    for (int i = 0; i < n; ++i, rest /= q) x[i] = static_cast<int>(rest % q);
    energy[s] = -j * static_cast<double>(literal_equal_bonds(x, rows, cols));
    log_w[s] = -beta * energy[s];
  }
  const double top = *std::max_element(log_w.begin(), log_w.end());
  double z = 0, e = 0;
  for (long s = 0; s < total; ++s) {
    z += std::exp(log_w[s] - top);
    e += std::exp(log_w[s] - top) * energy[s];
  }
  return {top + std::log(z), e / z};
}

std::vector<int> to_vector(const std::uint8_t* x, int n) { return std::vector<int>(x, x + n); }

TEST(PottsModel, EqualBondsCountEveryRightAndDownBond) {
  for (auto [rows, cols] : {std::pair{1, 1}, {1, 4}, {3, 1}, {2, 2}, {2, 5}, {3, 4}, {5, 5}}) {
    const logz::PottsModel model(rows, cols, 3, 1.0, 1.0);
    auto batch = model.make_batch(20);
    model.sample_base(batch, logz::BatchRandom{3, logz::Purpose::base_sample, 0, 0});
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      const auto x = to_vector(batch.sites(p), model.num_sites());
      EXPECT_EQ(batch.bond_sum(p), literal_equal_bonds(x, rows, cols)) << rows << "x" << cols;
      EXPECT_EQ(model.equal_bonds(batch.sites(p)), literal_equal_bonds(x, rows, cols));
      for (int v : x) EXPECT_LT(v, 3);
    }
  }
}

TEST(PottsModel, BaseIsUniform) {
  // Colour frequencies of 4000 base draws of a 5 x 5 lattice with q = 7: each
  // colour's count ~ Binomial(100000, 1/7); 5 sd is a 1e-6 false-failure rate.
  const logz::PottsModel model(5, 5, 7, 2.0, 1.0);
  EXPECT_DOUBLE_EQ(model.base_log_z(), 25 * std::log(7.0));
  auto batch = model.make_batch(4000);
  model.sample_base(batch, logz::BatchRandom{9, logz::Purpose::base_sample, 0, 0});
  std::vector<long> count(7, 0);
  for (std::size_t p = 0; p < batch.num_particles(); ++p)
    for (int i = 0; i < 25; ++i) ++count[batch.sites(p)[i]];
  const double n = 4000 * 25, mean = n / 7, sd = std::sqrt(n / 7 * 6 / 7);
  for (long c : count) EXPECT_NEAR(c, mean, 5 * sd);
}

TEST(PottsModel, GroundStatesAndWorks) {
  const logz::PottsModel ferro(3, 4, 10, 2.0, 0.5);
  auto batch = ferro.make_batch(5);
  ferro.ground_state(batch, logz::BatchRandom{1, logz::Purpose::reverse_start, 0, 0});
  std::vector<double> out(5);
  ferro.trace_energy(batch, out);
  for (std::size_t p = 0; p < 5; ++p) {
    EXPECT_EQ(batch.bond_sum(p), 24);
    EXPECT_DOUBLE_EQ(out[p], -48.0);
    for (int i = 1; i < 12; ++i) EXPECT_EQ(batch.sites(p)[i], batch.sites(p)[0]);
  }
  // Tempered energies t beta E: the increment from t = 0.25 to 0.75 is 0.5 * 0.5 * E.
  ferro.work_increment(0.25, 0.75, batch, out);
  for (double w : out) EXPECT_DOUBLE_EQ(w, -12.0);
  // Antiferromagnet on an even torus: a checkerboard of two colours, no equal bond.
  const logz::PottsModel anti(4, 6, 3, -1.0, 1.0);
  auto b2 = anti.make_batch(6);
  anti.ground_state(b2, logz::BatchRandom{2, logz::Purpose::reverse_start, 0, 0});
  for (std::size_t p = 0; p < 6; ++p) {
    EXPECT_EQ(b2.bond_sum(p), 0);
    EXPECT_EQ(literal_equal_bonds(to_vector(b2.sites(p), 24), 4, 6), 0);
  }
}

TEST(PottsModel, TargetTables) {
  const logz::PottsModel model(4, 4, 10, 2.0, 1.0);
  const auto t = model.at(0.5);  // K = 1
  EXPECT_DOUBLE_EQ(t.beta_coupling, 1.0);
  EXPECT_EQ(t.num_colours, 10);
  EXPECT_EQ(t.accept_threshold[4], std::uint64_t{1} << 32);  // d = 0: always
  EXPECT_EQ(t.accept_threshold[8], std::uint64_t{1} << 32);  // more equal bonds: always
  EXPECT_NEAR(std::ldexp(static_cast<double>(t.accept_threshold[3]), -32), std::exp(-1.0), 1e-9);
  EXPECT_DOUBLE_EQ(t.bond_factor[2], std::exp(-2.0));
}

TEST(PottsModel, RejectsBadArguments) {
  EXPECT_THROW(logz::PottsModel(3, 3, 1, 1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsModel(3, 3, 256, 1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsModel(3, 3, 3, NAN, 1.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsModel(3, 3, 3, 1.0, -1.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsModel(0, 3, 3, 1.0, 1.0), logz::InvalidArgument);
}

// Every kernel keeps the equal-bond count equal to a recount, on lattices with
// self-bonds (1-wide), double bonds (2-wide) and odd sides.
template <class Kernel>
void check_kernel_bookkeeping(const Kernel& kernel, int rows, int cols, int q, double k) {
  const logz::PottsModel model(rows, cols, q, k, 1.0);
  auto batch = model.make_batch(6);
  model.sample_base(batch, logz::BatchRandom{4, logz::Purpose::base_sample, 0, 0});
  logz::KernelInfo total;
  for (std::uint32_t step = 1; step <= 3; ++step) {
    const auto info = kernel.step(model.at(1.0), batch,
                                  logz::BatchRandom{4, logz::Purpose::forward_kernel, step, 0});
    EXPECT_LE(info.accepted, info.attempted);
    total += info;
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      const auto x = to_vector(batch.sites(p), model.num_sites());
      ASSERT_EQ(batch.bond_sum(p), literal_equal_bonds(x, rows, cols))
          << rows << "x" << cols << " q " << q << " K " << k;
      for (int v : x) ASSERT_LT(v, q);
    }
  }
  EXPECT_GT(total.accepted, 0u) << rows << "x" << cols << " q " << q << " K " << k;
}

TEST(PottsKernels, KeepEqualBondCounts) {
  using logz::SiteOrder;
  for (auto [rows, cols] : {std::pair{1, 1}, {1, 5}, {4, 1}, {2, 3}, {3, 4}, {6, 6}})
    for (int q : {2, 3, 10, 255})
      for (double k : {0.7, -0.7, 3.0}) {
        check_kernel_bookkeeping(logz::PottsMetropolis(SiteOrder::random, 50), rows, cols, q, k);
        check_kernel_bookkeeping(logz::PottsMetropolis(SiteOrder::checkerboard, 2).reversed(), rows,
                                 cols, q, k);
        check_kernel_bookkeeping(logz::HeatBath(SiteOrder::random, 50), rows, cols, q, k);
        check_kernel_bookkeeping(logz::HeatBath(SiteOrder::checkerboard, 2), rows, cols, q, k);
        check_kernel_bookkeeping(logz::HeatBath(SiteOrder::checkerboard, 2).reversed(), rows, cols,
                                 q, k);
      }
}

TEST(PottsKernels, CountAttempts) {
  const logz::PottsModel model(4, 4, 10, 2.0, 1.0);
  auto batch = model.make_batch(3);
  model.sample_base(batch, logz::BatchRandom{5, logz::Purpose::base_sample, 0, 0});
  const logz::PottsMetropolis hot(logz::SiteOrder::random, 100);
  const auto info =
      hot.step(model.at(0.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(info.attempted, 300u);
  EXPECT_EQ(info.accepted, 300u);  // beta = 0: every proposal (always a new colour) is accepted
  const logz::HeatBath sweep(logz::SiteOrder::checkerboard, 2);
  EXPECT_EQ(
      sweep.step(model.at(1.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 2, 0})
          .attempted,
      3u * 2u * 16u);
}

TEST(PottsKernels, WorksDoNotDependOnThreadCount) {
  const logz::PottsModel model(5, 6, 10, 2.0, 1.0);
  const auto schedule = logz::linear_schedule(20);
  auto run = [&](const auto& kernel, int threads) {
    logz::AnnealOptions options;
    options.num_paths = 37;
    options.chunk_size = 4;
    options.seed = 77;
    options.threads = threads;
    return logz::anneal_forward(model, kernel, schedule, options).works;
  };
  const logz::HeatBath heat_bath(logz::SiteOrder::random, 30);
  const logz::PottsMetropolis metropolis(logz::SiteOrder::checkerboard, 1);
  EXPECT_EQ(run(heat_bath, 1), run(heat_bath, 3));
  EXPECT_EQ(run(metropolis, 1), run(metropolis, 2));
}

// ---------------------------------------------------------------- exact oracles

void expect_close(double a, double b, double tol, const std::string& what) {
  EXPECT_LE(std::abs(a - b), tol * std::max(1.0, std::abs(b))) << what << ": " << a << " vs " << b;
}

std::string name(int rows, int cols, int q, double beta, double j) {
  return std::to_string(rows) + "x" + std::to_string(cols) + " q=" + std::to_string(q) +
         " beta=" + std::to_string(beta) + " J=" + std::to_string(j);
}

TEST(PottsEnumeration, MatchesTheLiteralSum) {
  for (auto [rows, cols, q] : {std::tuple{1, 1, 3},
                               {1, 3, 4},
                               {2, 1, 5},
                               {2, 2, 3},
                               {2, 3, 3},
                               {3, 3, 3},
                               {2, 4, 4},
                               {1, 6, 5}})
    for (double beta : {0.0, 0.3, 1.0})
      for (double j : {2.0, -1.5}) {
        const auto [log_z, energy] = literal_log_z(rows, cols, q, beta, j);
        const auto what = name(rows, cols, q, beta, j);
        expect_close(potts_log_z_enumeration(rows, cols, q, beta, j), log_z, 1e-12, what);
        expect_close(potts_mean_energy_enumeration(rows, cols, q, beta, j), energy, 1e-11, what);
      }
}

TEST(PottsEnumeration, CountsAllStates) {
  const auto counts = logz::exact::potts_equal_bond_counts(2, 3, 4);
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  EXPECT_EQ(total, 4096u);
  EXPECT_EQ(counts.back(), 4u);  // all 12 bonds equal: the 4 uniform colourings
}

// log Z and <E> from the enumeration's density of states, summed here.
std::pair<double, double> from_counts(const std::vector<std::uint64_t>& counts, double beta,
                                      double j) {
  double top = -INFINITY;
  for (std::size_t n = 0; n < counts.size(); ++n)
    if (counts[n] > 0) top = std::max(top, std::log(double(counts[n])) + beta * j * double(n));
  double z = 0, e = 0;
  for (std::size_t n = 0; n < counts.size(); ++n) {
    if (counts[n] == 0) continue;
    const double w = std::exp(std::log(double(counts[n])) + beta * j * double(n) - top);
    z += w;
    e += w * -j * double(n);
  }
  return {top + std::log(z), e / z};
}

TEST(PottsTransferMatrix, MatchesEnumeration) {
  struct Lattice {
    int rows, cols, q;
  };
  // Each lattice is enumerated once (3 x 3 with q = 5: 4e5 configurations; with q = 10 it took
  // 1e8 and half a minute under the sanitizers, for no path of the transfer matrix not taken here).
  const std::vector<Lattice> lattices = {
      {2, 3, 3},  {2, 3, 4},  {2, 3, 10}, {3, 3, 3},  {3, 3, 4}, {3, 3, 5},   {2, 4, 3},
      {2, 4, 4},  {2, 4, 10}, {3, 1, 3},  {3, 2, 10}, {3, 4, 3}, {3, 5, 3},   {3, 4, 4},
      {4, 2, 10}, {4, 3, 3},  {1, 1, 7},  {1, 7, 3},  {5, 1, 4}, {2, 2, 255}, {4, 4, 2}};
  for (const auto& l : lattices) {
    const auto counts = logz::exact::potts_equal_bond_counts(l.rows, l.cols, l.q);
    for (double beta : {0.0, 0.35, 1.0, 4.0})
      for (double j : {2.0, -1.0}) {
        const auto what = name(l.rows, l.cols, l.q, beta, j);
        const auto [log_z, energy] = from_counts(counts, beta, j);
        expect_close(potts_log_z_transfer_matrix(l.rows, l.cols, l.q, beta, j), log_z, 1e-12, what);
        expect_close(potts_mean_energy_transfer_matrix(l.rows, l.cols, l.q, beta, j), energy, 1e-10,
                     what);
      }
  }
  // The enumeration's own log Z and <E> are the sums above.
  const auto [log_z, energy] = from_counts(logz::exact::potts_equal_bond_counts(2, 4, 3), 0.7, 2.0);
  EXPECT_DOUBLE_EQ(potts_log_z_enumeration(2, 4, 3, 0.7, 2.0), log_z);
  EXPECT_DOUBLE_EQ(potts_mean_energy_enumeration(2, 4, 3, 0.7, 2.0), energy);
}

TEST(PottsTransferMatrix, SymmetricUnderTranspositionAndAtZeroBeta) {
  for (int c = 1; c <= 9; ++c) {
    const double a = potts_log_z_transfer_matrix(3, c, 10, 1.0, 2.0);
    EXPECT_DOUBLE_EQ(a, potts_log_z_transfer_matrix(c, 3, 10, 1.0, 2.0));
    EXPECT_NEAR(potts_log_z_transfer_matrix(3, c, 10, 0.0, 2.0), 3 * c * std::log(10.0), 1e-12);
  }
}

TEST(PottsTransferMatrix, TwoColoursAreIsing) {
  // delta(x, y) = (1 + s s') / 2: Z_Potts(beta, J) = exp(beta J RC) Z_Ising(beta, J / 2).
  for (auto [rows, cols] : {std::pair{1, 5}, {2, 2}, {4, 4}, {4, 9}, {3, 6}, {10, 3}})
    for (double beta : {0.2, 0.8813735870195430, 3.0}) {
      const double ising = logz::exact::ising_log_z_kaufman(rows, cols, beta, 1.0);
      expect_close(potts_log_z_transfer_matrix(rows, cols, 2, beta, 2.0),
                   beta * 2.0 * rows * cols + ising, 1e-12, name(rows, cols, 2, beta, 2.0));
      const double e_ising = logz::exact::ising_mean_energy_kaufman(rows, cols, beta, 1.0);
      expect_close(potts_mean_energy_transfer_matrix(rows, cols, 2, beta, 2.0),
                   -2.0 * rows * cols + e_ising, 1e-10, name(rows, cols, 2, beta, 2.0));
    }
}

TEST(PottsTransferMatrix, MeanEnergyIsMinusTheDerivative) {
  // <E> = -d log Z / d beta, by central differences (error ~h^2, here ~1e-8).
  for (auto [rows, cols, q] : {std::tuple{4, 12, 10}, {3, 30, 10}, {2, 7, 50}})
    for (double beta : {0.3, 0.713, 1.0}) {
      const double h = 1e-4;
      const double fd = -(potts_log_z_transfer_matrix(rows, cols, q, beta + h, 2.0) -
                          potts_log_z_transfer_matrix(rows, cols, q, beta - h, 2.0)) /
                        (2 * h);
      EXPECT_NEAR(potts_mean_energy_transfer_matrix(rows, cols, q, beta, 2.0), fd,
                  1e-6 * rows * cols)
          << rows << "x" << cols;
    }
}

TEST(PottsTransferMatrix, LargeCouplingsStayFinite) {
  // At K = 50 log Z is log q + 2 N K up to exp(-K)-small terms (only the q uniform
  // colourings matter); the enumeration agrees.
  const double log_z = potts_log_z_transfer_matrix(3, 5, 3, 25.0, 2.0);
  EXPECT_NEAR(log_z, std::log(3.0) + 30 * 50.0, 1e-12 * log_z);
  expect_close(log_z, potts_log_z_enumeration(3, 5, 3, 25.0, 2.0), 1e-13, "K = 50");
  EXPECT_NEAR(potts_mean_energy_transfer_matrix(3, 5, 3, 25.0, 2.0), -60.0, 1e-9);
}

TEST(PottsOracles, RejectBadArguments) {
  EXPECT_THROW(potts_log_z_enumeration(4, 4, 10, 1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(potts_log_z_enumeration(2, 2, 1, 1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(potts_log_z_enumeration(2, 2, 3, -1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(potts_log_z_transfer_matrix(5, 5, 10, 1.0, 1.0), logz::InvalidArgument);
  EXPECT_THROW(potts_log_z_transfer_matrix(3, 3, 3, NAN, 1.0), logz::InvalidArgument);
  EXPECT_THROW(potts_log_z_transfer_matrix(3, 3, 3, 200.0, 1.0), logz::InvalidArgument);
  EXPECT_FALSE(logz::exact::potts_transfer_matrix_feasible(5, 5, 10));
  EXPECT_TRUE(logz::exact::potts_transfer_matrix_feasible(4, 1000, 10));
  EXPECT_TRUE(logz::exact::potts_transfer_matrix_feasible(1000, 2, 255));
  EXPECT_FALSE(logz::exact::potts_transfer_matrix_feasible(3, 3, 255));
}

}  // namespace
