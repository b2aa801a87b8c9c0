// Exact-start invariance of the single-site kernels: particles drawn exactly
// from a tiny lattice at beta, moved by the kernel, must still follow the exact
// distribution (chi-square over all states at a false-failure rate of 1e-6).
// Ising heat bath on the 3 x 3 torus (512 states); Potts Metropolis and heat
// bath on the 2 x 3 torus with q = 3 (729 states; 2-wide, so pairs are joined by
// two bonds) and the 1 x 4 ring with q = 3 (self-bonds); random and checkerboard
// orders and their reversals. The control: a kernel for the wrong beta fails.
#include "logz/kernels/heat_bath.hpp"

#include "support/chi_square.hpp"
#include "support/tiny_lattice.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "logz/kernels/potts_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::ChiSquare;

using logz::SiteOrder;

using Lattice = logz::test_support::TinyLattice;
using logz::test_support::exact_draws;

constexpr long kDraws = 200000;

// Ising: exact draws at beta_sample, one kernel call at beta_kernel, chi-square vs beta_sample.
template <class Kernel>
ChiSquare ising_chi_square(const Kernel& kernel, double beta_sample, double beta_kernel,
                           std::uint64_t seed) {
  const Lattice l{3, 3, 2};
  const logz::IsingModel model(l.rows, l.cols, 1.0, beta_kernel);
  const auto draws = exact_draws(l, beta_sample, kDraws, seed);
  logz::SpinBatch batch(kDraws, l.sites());
  for (long i = 0; i < kDraws; ++i) {
    for (int j = 0; j < l.sites(); ++j) batch.sites(i)[j] = l.value(draws[i], j) ? 1 : -1;
    batch.bond_sum(i) = model.bond_sum(batch.sites(i));
  }
  kernel.step(model.at(1.0), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(l.states(), 0);
  for (long i = 0; i < kDraws; ++i) {
    int s = 0;
    for (int j = l.sites() - 1; j >= 0; --j) s = 2 * s + (batch.sites(i)[j] > 0);
    ++counts[s];
    // The kernel keeps the bond sum up to date.
    if (batch.bond_sum(i) != l.bond_sum(s)) {
      ADD_FAILURE() << "bond sum " << batch.bond_sum(i) << " vs " << l.bond_sum(s);
      break;
    }
  }
  return chi_square(counts, l.probabilities(beta_sample), kDraws);
}

template <class Kernel>
ChiSquare potts_chi_square(const Kernel& kernel, const Lattice& l, double beta_sample,
                           double beta_kernel, std::uint64_t seed) {
  // beta J with J = +-1 (beta_kernel < 0: the antiferromagnet at |beta_kernel|).
  const logz::PottsModel model(l.rows, l.cols, l.q, beta_kernel < 0 ? -1.0 : 1.0,
                               std::abs(beta_kernel));
  const auto draws = exact_draws(l, beta_sample, kDraws, seed);
  logz::PottsBatch batch(kDraws, l.sites());
  for (long i = 0; i < kDraws; ++i) {
    for (int j = 0; j < l.sites(); ++j)
      batch.sites(i)[j] = static_cast<std::uint8_t>(l.value(draws[i], j));
    batch.bond_sum(i) = model.equal_bonds(batch.sites(i));
  }
  kernel.step(model.at(1.0), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(l.states(), 0);
  for (long i = 0; i < kDraws; ++i) {
    int s = 0;
    for (int j = l.sites() - 1; j >= 0; --j) s = l.q * s + batch.sites(i)[j];
    ++counts[s];
    if (batch.bond_sum(i) != l.bond_sum(s)) {
      ADD_FAILURE() << "equal bonds " << batch.bond_sum(i) << " vs " << l.bond_sum(s);
      break;
    }
  }
  return chi_square(counts, l.probabilities(beta_sample), kDraws);
}

TEST(HeatBathIsing, RandomSiteKeepsExactDistribution) {
  const auto chi = ising_chi_square(logz::HeatBath(SiteOrder::random, 7), 0.4, 0.4, 21);
  EXPECT_LT(chi.statistic, chi.critical);
}

TEST(HeatBathIsing, CheckerboardAndItsReversalKeepExactDistribution) {
  const logz::HeatBath kernel(SiteOrder::checkerboard, 1);
  for (const auto& k : {kernel, kernel.reversed()}) {
    const auto chi = ising_chi_square(k, 0.4, 0.4, 22);
    EXPECT_LT(chi.statistic, chi.critical);
  }
}

TEST(HeatBathIsing, TheTestDetectsAWrongKernel) {
  // A kernel for beta = 0.6 moves exact beta = 0.4 samples away from beta = 0.4.
  const auto chi = ising_chi_square(logz::HeatBath(SiteOrder::random, 7), 0.4, 0.6, 23);
  EXPECT_GT(chi.statistic, chi.critical);
}

// 2 x 3 (double bonds between the two rows, odd width) and 1 x 4 (self-bonds), q = 3.
const Lattice kPottsLattices[] = {{2, 3, 3}, {1, 4, 3}};

TEST(HeatBathPotts, KeepsExactDistribution) {
  std::uint64_t seed = 31;
  for (const auto& l : kPottsLattices)
    for (double beta : {0.6, -0.8}) {  // ferro- and antiferromagnetic
      const logz::HeatBath random(SiteOrder::random, 5), sweep(SiteOrder::checkerboard, 1);
      for (const auto& k : {random, sweep, sweep.reversed()}) {
        const auto chi = potts_chi_square(k, l, beta, beta, ++seed);
        EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols << " beta " << beta;
      }
    }
}

TEST(PottsMetropolis, KeepsExactDistribution) {
  std::uint64_t seed = 41;
  for (const auto& l : kPottsLattices)
    for (double beta : {0.6, -0.8}) {
      const logz::PottsMetropolis random(SiteOrder::random, 5), sweep(SiteOrder::checkerboard, 1);
      for (const auto& k : {random, sweep, sweep.reversed()}) {
        const auto chi = potts_chi_square(k, l, beta, beta, ++seed);
        EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols << " beta " << beta;
      }
    }
}

TEST(HeatBathPotts, TheTestDetectsWrongKernels) {
  // Kernels for beta = 0.7 move exact beta = 0.6 samples away from beta = 0.6.
  const Lattice l = kPottsLattices[0];
  const auto hb = potts_chi_square(logz::HeatBath(SiteOrder::random, 5), l, 0.6, 0.7, 51);
  EXPECT_GT(hb.statistic, hb.critical);
  const auto mh = potts_chi_square(logz::PottsMetropolis(SiteOrder::random, 5), l, 0.6, 0.7, 52);
  EXPECT_GT(mh.statistic, mh.critical);
  std::printf("wrong-beta control: heat bath chi2 %.0f, Metropolis chi2 %.0f (critical %.0f)\n",
              hb.statistic, mh.statistic, hb.critical);
}

}  // namespace
