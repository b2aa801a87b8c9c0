// The Ising field path in multi-spin coding (models/packed_ising_field_path.hpp) and the
// multi-spin Metropolis kernel's field classes: exact-start invariance (chi-square over every
// state of small tori, both signs of K and h, both sweep directions, narrow tori with self- and
// double bonds), bond sums and +1 counts kept exact, the same path as the two-colour Potts field
// path (works, base, energies), relabelled draws from the restricted target, and the same bits
// for any thread count and chunks of 64.
#include "logz/models/packed_ising_field_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/kernels/multispin_metropolis.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/models/potts_field_path.hpp"
#include "support/chi_square.hpp"
#include "support/multispin_checks.hpp"
#include "support/tiny_lattice.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::TinyLattice;

int up_spins(const TinyLattice& l, int state) {
  int n = 0;
  for (int i = 0; i < l.sites(); ++i) n += l.value(state, i);
  return n;
}

// exp(K S + h n_+) normalised, times w_+ = e^{n_+} / (e^{n_+} + e^{n_-}) when restricted.
std::vector<double> field_probabilities(const TinyLattice& l, double k, double h,
                                        bool restricted = false) {
  std::vector<double> p(static_cast<std::size_t>(l.states()));
  double z = 0;
  for (int s = 0; s < l.states(); ++s) {
    const int up = up_spins(l, s);
    double w = std::exp(k * l.bond_sum(s) + h * up);
    if (restricted) w /= 1.0 + std::exp(l.sites() - 2.0 * up);
    z += p[static_cast<std::size_t>(s)] = w;
  }
  for (double& v : p) v /= z;
  return p;
}

std::vector<int> draws_from(const std::vector<double>& p, long n, std::uint64_t seed) {
  std::vector<double> cdf(p.size());
  double acc = 0;
  for (std::size_t s = 0; s < p.size(); ++s) cdf[s] = acc += p[s];
  std::vector<int> draws(static_cast<std::size_t>(n));
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  for (int& d : draws)
    d = std::min(static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), rng.uniform() * acc) -
                                  cdf.begin()),
                 static_cast<int>(p.size()) - 1);
  return draws;
}

logz::PackedFieldSpinBatch batch_of(const TinyLattice& l, const std::vector<int>& states) {
  logz::PackedFieldSpinBatch batch(states.size(), l.sites());
  for (std::size_t p = 0; p < states.size(); ++p) {
    for (int j = 0; j < l.sites(); ++j) batch.set_spin(p, j, l.value(states[p], j) ? 1 : -1);
    batch.bond_sum(p) = l.bond_sum(states[p]);
    batch.field_count(p) = up_spins(l, states[p]);
  }
  return batch;
}

// The states' counts, checking every particle's bond sum and +1 count against the test's own.
std::vector<long> state_counts(const TinyLattice& l, const logz::PackedFieldSpinBatch& batch) {
  std::vector<long> counts(static_cast<std::size_t>(l.states()), 0);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    int state = 0;
    for (int j = l.sites() - 1; j >= 0; --j) state = 2 * state + (batch.spin(p, j) > 0);
    ++counts[static_cast<std::size_t>(state)];
    if (batch.bond_sum(p) != l.bond_sum(state) || batch.field_count(p) != up_spins(l, state)) {
      ADD_FAILURE() << "bond sum " << batch.bond_sum(p) << " vs " << l.bond_sum(state)
                    << ", +1 spins " << batch.field_count(p) << " vs " << up_spins(l, state)
                    << ", particle " << p;
      break;
    }
  }
  return counts;
}

// n exact draws at (K, h) moved by one call of the kernel at (K, h_kernel).
std::vector<long> counts_after_kernel(const TinyLattice& l, const logz::MultiSpinMetropolis& kernel,
                                      double k, double h, double h_kernel, long n,
                                      std::uint64_t seed) {
  const logz::TorusLattice lattice(l.rows, l.cols);
  auto batch = batch_of(l, draws_from(field_probabilities(l, k, h), n, seed));
  kernel.step(logz::IsingFieldTarget(lattice, k, h_kernel), batch,
              logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  return state_counts(l, batch);
}

TEST(MultiSpinMetropolisWithAField, SweepsInBothDirectionsKeepTheExactDistribution) {
  const long n = 200000;
  const TinyLattice l{3, 3, 2};
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  // Field on or against the coupling, ferromagnet and antiferromagnet; a strong field leaves
  // several classes rejectable at once (thresholds at the tail bits).
  for (const auto& [k, h] : {std::pair{0.4, 0.7}, std::pair{0.4, -0.7}, std::pair{-0.3, 0.5},
                             std::pair{1.0, 3.0}, std::pair{0.1, 6.0}})
    for (const auto& kern : {kernel, kernel.reversed()}) {
      const auto chi =
          chi_square(counts_after_kernel(l, kern, k, h, h, n, 31), field_probabilities(l, k, h), n);
      EXPECT_LT(chi.statistic, chi.critical) << "K " << k << ", h " << h;
    }
}

TEST(MultiSpinMetropolisWithAField, NarrowToriKeepTheExactDistribution) {
  const long n = 200000;
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  for (const TinyLattice& l :
       {TinyLattice{1, 5, 2}, TinyLattice{5, 1, 2}, TinyLattice{2, 3, 2}, TinyLattice{2, 2, 2}}) {
    const auto chi = chi_square(counts_after_kernel(l, kernel, 0.6, 0.8, 0.8, n, 32),
                                field_probabilities(l, 0.6, 0.8), n);
    EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols;
  }
}

TEST(MultiSpinMetropolisWithAField, TheTestDetectsAWrongField) {
  // A kernel for h = 1 moves exact h = 0.5 samples away from h = 0.5.
  const long n = 200000;
  const TinyLattice l{3, 3, 2};
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  const auto chi = chi_square(counts_after_kernel(l, kernel, 0.4, 0.5, 1.0, n, 33),
                              field_probabilities(l, 0.4, 0.5), n);
  EXPECT_GT(chi.statistic, chi.critical);
}

// Without a field the ten classes are the ferromagnet's two (no or one anti-aligned neighbour,
// either spin) with its thresholds: the same random words, the same bits.
TEST(MultiSpinMetropolisWithAField, AtZeroFieldGivesTheFerromagnetsBits) {
  const logz::IsingModel model(8, 8, 1.0, 0.44);
  const logz::PackedIsingModel packed(model);
  auto plain = packed.make_batch(300);
  packed.sample_base(plain, logz::BatchRandom{12, logz::Purpose::base_sample, 0, 0});
  logz::PackedFieldSpinBatch field(300, model.num_sites());
  for (std::size_t g = 0; g < plain.num_groups(); ++g)
    std::copy_n(plain.words(g), model.num_sites(), field.words(g));
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 3);
  const logz::BatchRandom random{12, logz::Purpose::forward_kernel, 1, 0};
  const auto a = kernel.step(model.at(1.0), plain, random);
  const auto b = kernel.step(logz::IsingFieldTarget(model.lattice(), 0.44, 0.0), field, random);
  EXPECT_EQ(a.accepted, b.accepted);
  for (std::size_t g = 0; g < plain.num_groups(); ++g)
    EXPECT_TRUE(std::equal(plain.words(g), plain.words(g) + model.num_sites(), field.words(g)))
        << "group " << g;
  for (std::size_t p = 0; p < 300; ++p) EXPECT_EQ(plain.bond_sum(p), field.bond_sum(p));
}

TEST(PackedIsingFieldPath, BaseDrawsAreIndependentSpinsInTheField) {
  const long n = 100000;
  const TinyLattice l{3, 3, 2};
  const logz::PackedIsingFieldPath path(logz::IsingModel(3, 3, 1.0, 0.5), 0.6);
  auto batch = path.make_batch(static_cast<std::size_t>(n));
  path.sample_base(batch, logz::BatchRandom{7, logz::Purpose::base_sample, 0, 0});
  const auto chi = chi_square(state_counts(l, batch), field_probabilities(l, 0.0, 0.6), n);
  EXPECT_LT(chi.statistic, chi.critical);
  EXPECT_NEAR(path.base_log_z(), 9 * std::log1p(std::exp(0.6)) + std::log(2.0), 1e-12);
}

// The Ising model with coupling J is the two-colour Potts model with coupling 2J (colour 0: the
// +1 spins) up to E_Ising = E_Potts + 2 J N: the same log Z and energies as PottsFieldPath. Its
// works carry that constant (each step's -(beta_to - beta_from) 2 J N), which its base takes
// back (-beta 2 J N).
TEST(PackedIsingFieldPath, IsTheTwoColourPottsFieldPath) {
  const int rows = 4, cols = 5, n = 70;
  const double j = 0.8, beta = 0.9, h0 = 3.0;
  const logz::IsingModel ising(rows, cols, j, beta);
  const logz::PottsModel potts(rows, cols, 2, 2.0 * j, beta);
  const logz::PackedIsingFieldPath path(ising, h0);
  const logz::PottsFieldPath reference(potts, h0, 2.0 * j * rows * cols);
  const double offset = 2.0 * j * rows * cols;
  EXPECT_NEAR(path.base_log_z(), reference.base_log_z() + beta * offset, 1e-9);
  auto batch = path.make_batch(n);
  path.sample_base(batch, logz::BatchRandom{8, logz::Purpose::base_sample, 0, 0});
  // Some particles moved at t = 0.7, so that the +1 spins vary.
  logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 3)
      .step(path.at(0.7), batch, logz::BatchRandom{8, logz::Purpose::forward_kernel, 1, 0});
  auto colours = reference.make_batch(n);
  for (std::size_t p = 0; p < n; ++p) {
    for (int i = 0; i < rows * cols; ++i) colours.sites(p)[i] = batch.spin(p, i) > 0 ? 0 : 1;
    colours.bond_sum(p) = potts.equal_bonds(colours.sites(p));
  }
  std::vector<double> mine(n), theirs(n);
  for (const auto& [from, to] : {std::pair{0.0, 0.3}, std::pair{0.3, 0.5}, std::pair{0.5, 0.8},
                                 std::pair{0.8, 1.0}, std::pair{1.0, 0.9}}) {
    path.work_increment(from, to, batch, mine);
    reference.work_increment(from, to, colours, theirs);
    const double constant = (path.beta_fraction(to) - path.beta_fraction(from)) * beta * offset;
    for (std::size_t p = 0; p < n; ++p)
      ASSERT_NEAR(mine[p], theirs[p] + constant, 1e-9)
          << from << " -> " << to << ", particle " << p;
  }
  path.trace_energy(batch, mine);
  reference.trace_energy(colours, theirs);
  for (std::size_t p = 0; p < n; ++p) EXPECT_NEAR(mine[p], theirs[p], 1e-9);
}

TEST(PackedIsingFieldPath, RelabelledDrawsFollowTheRestrictedTarget) {
  const long n = 200000;
  const TinyLattice l{3, 3, 2};
  const logz::PackedIsingFieldPath path(logz::IsingModel(3, 3, 1.0, 0.3), 2.0);
  auto batch = batch_of(l, draws_from(field_probabilities(l, 0.3, 0.0), n, 34));
  path.relabel_to_colour0(batch, logz::BatchRandom{34, logz::Purpose::test, 0, 0});
  const auto chi = chi_square(state_counts(l, batch), field_probabilities(l, 0.3, 0.0, true), n);
  EXPECT_LT(chi.statistic, chi.critical);
}

TEST(PackedIsingFieldPath, RefusesFieldsOutsideItsRange) {
  const logz::IsingModel model(4, 4, 1.0, 1.0);
  EXPECT_THROW(logz::PackedIsingFieldPath(model, 0.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PackedIsingFieldPath(model, 593.0), logz::InvalidArgument);  // 8 + 593
  EXPECT_NO_THROW(logz::PackedIsingFieldPath(model, 592.0));
}

TEST(PackedIsingFieldPath, AnnealingGivesTheSameBitsForAnyThreadsAndChunksOf64) {
  logz::test_support::expect_works_independent_of_threads_and_chunks(
      logz::PackedIsingFieldPath(logz::IsingModel(6, 6, 1.0, 0.44), 3.0),
      logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 2));
}

}  // namespace
