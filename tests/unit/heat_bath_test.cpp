// Exact-start invariance of the single-site kernels: particles drawn exactly
// from a tiny lattice at beta, moved by the kernel, must still follow the exact
// distribution (chi-square over all states at a false-failure rate of 1e-6).
// Ising heat bath on the 3 x 3 torus (512 states); Potts Metropolis and heat
// bath on the 2 x 3 torus with q = 3 (729 states; 2-wide, so pairs are joined by
// two bonds) and the 1 x 4 ring with q = 3 (self-bonds); random and checkerboard
// orders and their reversals. The control: a kernel for the wrong beta fails.
#include "logz/kernels/heat_bath.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "logz/kernels/potts_metropolis.hpp"
#include "support/lattice_chi_square.hpp"

namespace {

using logz::SiteOrder;
using Lattice = logz::test_support::TinyLattice;
using logz::test_support::ising_chi_square;
using logz::test_support::potts_chi_square;

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
