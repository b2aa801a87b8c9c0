// The multi-spin Potts Metropolis kernel: exact-start invariance (chi-square over every state of
// tiny tori: q = 3 with double bonds and with self-bonds, q = 5 and q = 9 (uniform proposals
// from whole bits), q = 4, 6, 7 and 10 (offset proposals), ferro- and antiferromagnetic, both sweep
// directions), equal-bond counts kept exact in partly used groups, the unpacked model's initial
// states, and results that depend on neither threads nor chunk size.
#include "logz/kernels/multispin_potts_metropolis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/models/packed_potts.hpp"
#include "logz/models/potts.hpp"
#include "logz/paths/schedule.hpp"
#include "support/chi_square.hpp"
#include "support/multispin_checks.hpp"
#include "support/tiny_lattice.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::ChiSquare;
using logz::test_support::TinyLattice;

// Exact draws at beta_sample (J = 1; negative: J = -1 at |beta|), one kernel call at
// beta_kernel, chi-square against beta_sample; every equal-bond count checked on the way.
ChiSquare chi_square_after_kernel(const logz::MultiSpinPottsMetropolis& kernel,
                                  const TinyLattice& l, double beta_sample, double beta_kernel,
                                  long n, std::uint64_t seed) {
  const logz::PackedPottsModel model(
      logz::PottsModel(l.rows, l.cols, l.q, beta_kernel < 0 ? -1.0 : 1.0, std::abs(beta_kernel)));
  const auto draws = logz::test_support::exact_draws(l, beta_sample, n, seed);
  auto batch = model.make_batch(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    for (int j = 0; j < l.sites(); ++j)
      batch.set_colour(i, j, static_cast<std::uint8_t>(l.value(draws[i], j)));
    batch.bond_sum(i) = l.bond_sum(draws[i]);
  }
  kernel.step(model.at(1.0), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(l.states(), 0);
  for (long i = 0; i < n; ++i) {
    int s = 0;
    for (int j = l.sites() - 1; j >= 0; --j) s = l.q * s + batch.colour(i, j);
    ++counts[s];
    if (batch.bond_sum(i) != l.bond_sum(s)) {
      ADD_FAILURE() << "equal bonds " << batch.bond_sum(i) << " vs " << l.bond_sum(s);
      break;
    }
  }
  return chi_square(counts, l.probabilities(beta_sample), n);
}

TEST(MultiSpinPottsMetropolis, KeepsTheExactDistribution) {
  const long n = 200000;
  std::uint64_t seed = 61;
  // 2 x 3 (double bonds, odd width) and 1 x 4 (self-bonds) with q = 3; 2 x 2 with q = 5 (4
  // proposals: two random bits, no rejection) and q = 9 (8 proposals: three bits); the offset
  // proposal (+-1 .. +-m mod q) with q = 4 (m = 1, two planes), q = 6 and 7 (m = 2, three
  // planes), q = 10 (m = 4, four planes; the wrap past q - 1 and below 0 in every plane).
  for (const TinyLattice& l : {TinyLattice{2, 3, 3}, TinyLattice{1, 4, 3}, TinyLattice{2, 2, 5},
                               TinyLattice{2, 2, 9}, TinyLattice{1, 3, 10}, TinyLattice{2, 3, 4},
                               TinyLattice{2, 2, 6}, TinyLattice{1, 4, 7}, TinyLattice{2, 2, 10}}) {
    for (double beta : {0.6, -0.8}) {
      const logz::MultiSpinPottsMetropolis kernel(logz::SiteOrder::checkerboard, 1);
      for (const auto& k : {kernel, kernel.reversed()}) {
        const auto chi = chi_square_after_kernel(k, l, beta, beta, n, ++seed);
        EXPECT_LT(chi.statistic, chi.critical)
            << l.rows << "x" << l.cols << " q " << l.q << " beta " << beta;
      }
    }
  }
}

TEST(MultiSpinPottsMetropolis, TheTestDetectsAWrongKernel) {
  // A kernel for beta = 0.8 moves exact beta = 0.6 samples away from beta = 0.6.
  const auto chi =
      chi_square_after_kernel(logz::MultiSpinPottsMetropolis(logz::SiteOrder::checkerboard, 1),
                              TinyLattice{2, 3, 3}, 0.6, 0.8, 200000, 71);
  EXPECT_GT(chi.statistic, chi.critical);
  std::printf("wrong-beta control: chi2 %.0f (critical %.0f)\n", chi.statistic, chi.critical);
}

TEST(MultiSpinPottsMetropolis, EqualBondsStayExactInPartlyUsedGroups) {
  for (const auto& [rows, cols, q] :
       {std::tuple{1, 4, 10}, std::tuple{4, 1, 3}, std::tuple{1, 1, 4}, std::tuple{5, 7, 10},
        std::tuple{3, 4, 255}}) {
    const logz::PackedPottsModel model(logz::PottsModel(rows, cols, q, 2.0, 0.8));
    auto batch = model.make_batch(70);  // one full group and 6 lanes of a second
    model.sample_base(batch, logz::BatchRandom{9, logz::Purpose::base_sample, 0, 0});
    const logz::MultiSpinPottsMetropolis kernel(logz::SiteOrder::checkerboard, 5);
    for (const auto& k : {kernel, kernel.reversed()}) {
      k.step(model.at(1.0), batch, logz::BatchRandom{9, logz::Purpose::forward_kernel, 1, 0});
      std::vector<std::uint8_t> x(static_cast<std::size_t>(model.num_sites()));
      for (std::size_t p = 0; p < 70; ++p) {
        for (int j = 0; j < model.num_sites(); ++j) {
          x[j] = batch.colour(p, j);
          ASSERT_LT(x[j], q);
        }
        EXPECT_EQ(batch.bond_sum(p), model.equal_bonds(x.data()))
            << rows << "x" << cols << ", particle " << p;
      }
    }
  }
}

TEST(MultiSpinPottsMetropolis, CountsEveryUpdateAndAcceptsAllAtInfiniteTemperature) {
  const logz::PackedPottsModel model(logz::PottsModel(4, 4, 10, 2.0, 1.0));
  auto batch = model.make_batch(100);
  model.sample_base(batch, logz::BatchRandom{5, logz::Purpose::base_sample, 0, 0});
  const logz::MultiSpinPottsMetropolis kernel(logz::SiteOrder::checkerboard, 3);
  const auto hot =
      kernel.step(model.at(0.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(hot.attempted, 100u * 3u * 16u);
  EXPECT_EQ(hot.accepted, hot.attempted);
  const auto cold =
      kernel.step(model.at(1.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 2, 0});
  EXPECT_LT(cold.accepted, cold.attempted);
  EXPECT_THROW(logz::MultiSpinPottsMetropolis(logz::SiteOrder::random, 1), logz::InvalidArgument);
}

TEST(PackedPottsModel, DrawsTheUnpackedModelsInitialStates) {
  const logz::PottsModel model(5, 6, 10, 2.0, 0.4);
  logz::test_support::expect_same_initial_states(
      model, logz::PackedPottsModel(model),
      [](const auto& b, std::size_t p, int i) { return b.colour(p, i); });
}

TEST(MultiSpinPottsMetropolis, AnnealingGivesTheSameBitsForAnyThreadsAndChunksOf64) {
  logz::test_support::expect_works_independent_of_threads_and_chunks(
      logz::PackedPottsModel(logz::PottsModel(6, 6, 10, 2.0, 0.7)),
      logz::MultiSpinPottsMetropolis(logz::SiteOrder::checkerboard, 2));
}

}  // namespace
