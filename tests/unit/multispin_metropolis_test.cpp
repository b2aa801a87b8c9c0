// The multi-spin Metropolis kernel: exact-start invariance (chi-square over every state of
// small tori, ferromagnetic and antiferromagnetic, both sweep directions, narrow tori with
// self- and double bonds), bond sums kept exact in partly used groups, the same initial states
// as the unpacked model, and results that depend on neither threads nor chunk size.
#include "logz/kernels/multispin_metropolis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/core/error.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/paths/schedule.hpp"
#include "support/chi_square.hpp"
#include "support/multispin_checks.hpp"
#include "support/tiny_lattice.hpp"

namespace {

using logz::test_support::chi_square;

using logz::test_support::TinyLattice;

int state_of(const logz::PackedSpinBatch& batch, std::size_t p) {
  int s = 0;
  for (int j = 0; j < batch.num_sites(); ++j) s |= (batch.spin(p, j) > 0) << j;
  return s;
}

// n particles drawn exactly from the lattice at beta_sample (J = 1; negative: J = -1), moved by
// one call of the kernel at the model's target; returns the counts of the states they end in,
// checking every bond sum against the test's own on the way.
std::vector<long> counts_after_kernel(const TinyLattice& l, const logz::IsingModel& model,
                                      const logz::MultiSpinMetropolis& kernel, double beta_sample,
                                      long n, std::uint64_t seed) {
  const auto draws = logz::test_support::exact_draws(l, beta_sample, n, seed);
  const logz::PackedIsingModel packed(model);
  auto batch = packed.make_batch(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    for (int j = 0; j < l.sites(); ++j) batch.set_spin(i, j, l.value(draws[i], j) ? 1 : -1);
    batch.bond_sum(i) = l.bond_sum(draws[i]);
  }
  kernel.step(model.at(1.0), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(l.states(), 0);
  for (long i = 0; i < n; ++i) {
    const int state = state_of(batch, i);
    ++counts[state];
    if (batch.bond_sum(i) != l.bond_sum(state)) {
      ADD_FAILURE() << "bond sum " << batch.bond_sum(i) << " vs " << l.bond_sum(state)
                    << ", particle " << i;
      break;
    }
  }
  return counts;
}

TEST(MultiSpinMetropolis, SweepsInBothDirectionsKeepTheExactDistribution) {
  const long n = 300000;
  const TinyLattice l{3, 3, 2};
  for (double coupling : {1.0, -1.0}) {
    for (double beta : {0.25, 0.7}) {
      const logz::IsingModel model(3, 3, coupling, beta);
      const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
      for (const auto& k : {kernel, kernel.reversed()}) {
        const auto chi = chi_square(counts_after_kernel(l, model, k, beta * coupling, n, 21),
                                    l.probabilities(beta * coupling), n);
        EXPECT_LT(chi.statistic, chi.critical) << "J " << coupling << ", beta " << beta;
      }
    }
  }
}

TEST(MultiSpinMetropolis, TheTestDetectsAWrongKernel) {
  // A kernel for beta = 0.5 moves exact beta = 0.25 samples away from beta = 0.25.
  const long n = 300000;
  const TinyLattice l{3, 3, 2};
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  const auto chi =
      chi_square(counts_after_kernel(l, logz::IsingModel(3, 3, 1.0, 0.5), kernel, 0.25, n, 22),
                 l.probabilities(0.25), n);
  EXPECT_GT(chi.statistic, chi.critical);
}

TEST(MultiSpinMetropolis, NarrowToriKeepTheExactDistribution) {
  // 1-wide tori have constant self-bonds, 2-wide ones double bonds.
  const long n = 200000;
  for (const TinyLattice& l :
       {TinyLattice{1, 5, 2}, TinyLattice{5, 1, 2}, TinyLattice{2, 3, 2}, TinyLattice{2, 2, 2}}) {
    const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
    const auto chi = chi_square(
        counts_after_kernel(l, logz::IsingModel(l.rows, l.cols, 1.0, 0.6), kernel, 0.6, n, 23),
        l.probabilities(0.6), n);
    EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols;
  }
}

TEST(MultiSpinMetropolis, BondSumsStayExactInPartlyUsedGroups) {
  for (const auto& [rows, cols] :
       {std::pair{1, 4}, std::pair{4, 1}, std::pair{1, 1}, std::pair{5, 7}}) {
    const logz::PackedIsingModel model(logz::IsingModel(rows, cols, 1.0, 0.7));
    auto batch = model.make_batch(70);  // one full group and 6 lanes of a second
    model.sample_base(batch, logz::BatchRandom{9, logz::Purpose::base_sample, 0, 0});
    const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 5);
    for (const auto& k : {kernel, kernel.reversed()}) {
      k.step(model.at(1.0), batch, logz::BatchRandom{9, logz::Purpose::forward_kernel, 1, 0});
      std::vector<std::int8_t> s(static_cast<std::size_t>(model.num_sites()));
      for (std::size_t p = 0; p < 70; ++p) {
        for (int j = 0; j < model.num_sites(); ++j) s[j] = batch.spin(p, j);
        EXPECT_EQ(batch.bond_sum(p), model.bond_sum(s.data()))
            << rows << "x" << cols << ", particle " << p;
      }
    }
  }
}

TEST(MultiSpinMetropolis, CountsEveryUpdateAndAcceptsAllAtInfiniteTemperature) {
  const logz::PackedIsingModel model(logz::IsingModel(4, 4, 1.0, 1.0));
  auto batch = model.make_batch(100);
  model.sample_base(batch, logz::BatchRandom{5, logz::Purpose::base_sample, 0, 0});
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 3);
  const auto hot =
      kernel.step(model.at(0.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(hot.attempted, 100u * 3u * 16u);
  EXPECT_EQ(hot.accepted, hot.attempted);
  const auto cold =
      kernel.step(model.at(1.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 2, 0});
  EXPECT_EQ(cold.attempted, 100u * 3u * 16u);
  EXPECT_LT(cold.accepted, cold.attempted);
}

TEST(MultiSpinMetropolis, RefusesRandomSiteOrder) {
  EXPECT_THROW(logz::MultiSpinMetropolis(logz::SiteOrder::random, 1), logz::InvalidArgument);
}

TEST(PackedIsingModel, DrawsTheUnpackedModelsInitialStates) {
  const logz::IsingModel model(5, 6, 1.0, 0.4);
  logz::test_support::expect_same_initial_states(
      model, logz::PackedIsingModel(model),
      [](const auto& b, std::size_t p, int i) { return b.spin(p, i); });
}

TEST(MultiSpinMetropolis, RefusesMoreSiteVisitsThanItsCountersNumber) {
  const logz::IsingModel model(2, 2, 1.0, 0.44);
  const logz::PackedIsingModel packed(model);
  auto batch = packed.make_batch(64);
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 100000000);  // 4e8 visits
  EXPECT_THROW(kernel.step(model.at(1.0), batch, logz::BatchRandom{1, logz::Purpose::test, 0, 0}),
               logz::InvalidArgument);
}

TEST(MultiSpinMetropolis, AnnealingGivesTheSameBitsForAnyThreadsAndChunksOf64) {
  logz::test_support::expect_works_independent_of_threads_and_chunks(
      logz::PackedIsingModel(logz::IsingModel(6, 6, 1.0, 0.44)),
      logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 2));
}

}  // namespace
