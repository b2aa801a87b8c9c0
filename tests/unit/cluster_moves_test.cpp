// The cluster kernels (Swendsen-Wang, Wolff) keep the exact distribution of tiny lattices
// (chi-square over all states, support/lattice_chi_square.hpp): Ising on the 3 x 3 torus, the
// 2 x 3 torus (pairs joined by two bonds) and the 1 x 4 ring (self-bonds), from weak to strong
// coupling; Potts q = 3 on 2 x 3 and 1 x 4 and q = 5 on 2 x 2. On larger tori, long chains have
// Kaufman's mean energy. The controls: a kernel for the wrong beta fails the same check, and an
// antiferromagnetic target is refused.
#include <gtest/gtest.h>

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/kernel_sequence.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/kernels/wolff.hpp"
#include "support/lattice_chi_square.hpp"

namespace {

using Lattice = logz::test_support::TinyLattice;
using logz::test_support::ising_chi_square;
using logz::test_support::potts_chi_square;

template <class Kernel>
class ClusterMoves : public ::testing::Test {};
using ClusterKernels = ::testing::Types<logz::SwendsenWang, logz::Wolff>;
TYPED_TEST_SUITE(ClusterMoves, ClusterKernels);

// Steps that move a tiny lattice about as much as one Swendsen-Wang sweep.
template <class Kernel>
Kernel kernel_with(std::size_t sweeps) {
  return Kernel(std::is_same_v<Kernel, logz::Wolff> ? 3 * sweeps : sweeps);
}

TYPED_TEST(ClusterMoves, IsingKeepsExactDistribution) {
  std::uint64_t seed = 61;
  for (const Lattice& l : {Lattice{3, 3, 2}, Lattice{2, 3, 2}, Lattice{1, 4, 2}})
    for (double beta : {0.1, 0.44, 1.0})
      for (std::size_t sweeps : {1, 3}) {
        const auto chi = ising_chi_square(kernel_with<TypeParam>(sweeps), beta, beta, ++seed, l);
        EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols << " beta " << beta;
      }
}

TYPED_TEST(ClusterMoves, PottsKeepsExactDistribution) {
  std::uint64_t seed = 71;
  for (const Lattice& l : {Lattice{2, 3, 3}, Lattice{1, 4, 3}, Lattice{2, 2, 5}})
    for (double beta : {0.3, 1.2}) {
      const auto chi = potts_chi_square(kernel_with<TypeParam>(1), l, beta, beta, ++seed);
      EXPECT_LT(chi.statistic, chi.critical)
          << l.rows << "x" << l.cols << " q " << l.q << " beta " << beta;
    }
}

TYPED_TEST(ClusterMoves, TheTestDetectsAWrongKernel) {
  const auto ising = ising_chi_square(kernel_with<TypeParam>(1), 0.4, 0.5, 81);
  EXPECT_GT(ising.statistic, ising.critical);
  const auto potts = potts_chi_square(kernel_with<TypeParam>(1), Lattice{2, 3, 3}, 0.6, 0.7, 82);
  EXPECT_GT(potts.statistic, potts.critical);
}

// Beyond the tiny lattices (whose Swendsen-Wang clusters draw from one number): on a 6 x 6 and a
// 12 x 12 torus many independent chains from a ground state have Kaufman's mean energy.
TYPED_TEST(ClusterMoves, LongChainsHaveTheExactMeanEnergy) {
  for (int side : {6, 12}) {
    const double beta = 0.44;
    const logz::IsingModel model(side, side, 1.0, beta);
    const std::size_t chains = 2000;
    logz::SpinBatch batch(chains, side * side);
    model.ground_state(batch, logz::BatchRandom{5, logz::Purpose::reverse_start, 0, 0});
    kernel_with<TypeParam>(200).step(model.at(1.0), batch,
                                     logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
    double sum = 0, sum_sq = 0;
    for (std::size_t p = 0; p < chains; ++p) {
      ASSERT_EQ(batch.bond_sum(p), model.bond_sum(batch.sites(p)));
      const double e = model.energy(batch.bond_sum(p));
      sum += e;
      sum_sq += e * e;
    }
    const double mean = sum / chains,
                 se = std::sqrt((sum_sq / chains - mean * mean) / (chains - 1));
    const double exact = logz::exact::ising_mean_energy_kaufman(side, side, beta, 1.0);
    EXPECT_LE(std::abs(mean - exact), 5 * se)
        << side << "x" << side << ": " << mean << " vs " << exact << " SE " << se;
  }
}

TYPED_TEST(ClusterMoves, RefusesAnAntiferromagnet) {
  const logz::PottsModel model(2, 3, 3, -1.0, 0.5);
  logz::PottsBatch batch(2, 6);
  EXPECT_THROW(TypeParam(1).step(model.at(1.0), batch,
                                 logz::BatchRandom{1, logz::Purpose::forward_kernel, 1, 0}),
               logz::InvalidArgument);
}

// A cluster move followed by a checkerboard heat-bath sweep, and its time reversal, keep the
// exact distribution; the second kernel draws from streams of its own.
TEST(KernelSequence, ClusterMoveThenLocalSweepKeepsExactDistribution) {
  const logz::KernelSequence mixture(logz::Wolff(2),
                                     logz::HeatBath(logz::SiteOrder::checkerboard, 1));
  std::uint64_t seed = 91;
  for (const auto& k : {mixture, mixture.reversed()}) {
    const auto ising = ising_chi_square(k, 0.44, 0.44, ++seed);
    EXPECT_LT(ising.statistic, ising.critical);
    const auto potts = potts_chi_square(k, Lattice{2, 3, 3}, 0.8, 0.8, ++seed);
    EXPECT_LT(potts.statistic, potts.critical);
  }
  const logz::BatchRandom r{1, logz::Purpose::forward_kernel, 7, 0};
  EXPECT_NE(r.stream(0).next_u32(), r.for_second_kernel().stream(0).next_u32());
}

TEST(SwendsenWang, CountsOneUpdatePerSiteAndSweep) {
  const logz::IsingModel model(4, 4, 1.0, 0.3);
  logz::SpinBatch batch(5, 16);
  model.sample_base(batch, logz::BatchRandom{1, logz::Purpose::base_sample, 0, 0});
  const auto info = logz::SwendsenWang(3).step(
      model.at(1.0), batch, logz::BatchRandom{1, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(info.attempted, 3u * 16u * 5u);
  EXPECT_GT(info.accepted, 0u);
  EXPECT_LT(info.accepted, info.attempted);
  for (std::size_t p = 0; p < 5; ++p) EXPECT_EQ(batch.bond_sum(p), model.bond_sum(batch.sites(p)));
}

TEST(Wolff, CountsEverySiteItsClustersVisit) {
  // At beta = 0 a cluster is its seed alone; at strong coupling from a ground state it is nearly
  // the whole lattice. Every visited site changes value.
  const logz::IsingModel model(4, 4, 1.0, 3.0);
  logz::SpinBatch batch(5, 16);
  model.ground_state(batch, logz::BatchRandom{1, logz::Purpose::reverse_start, 0, 0});
  const auto hot = logz::Wolff(7).step(model.at(0.0), batch,
                                       logz::BatchRandom{1, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(hot.attempted, 7u * 5u);
  EXPECT_EQ(hot.accepted, hot.attempted);
  model.ground_state(batch, logz::BatchRandom{2, logz::Purpose::reverse_start, 0, 0});
  const auto cold = logz::Wolff(1).step(model.at(1.0), batch,
                                        logz::BatchRandom{2, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_GT(cold.attempted, 5u * 14u);
}

}  // namespace
