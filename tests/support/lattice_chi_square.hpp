// The lattice kernels' exact-start invariance check: particles drawn exactly from a tiny lattice
// (support/tiny_lattice.hpp) at one beta, moved by one kernel call, must still follow the exact
// distribution; chi-square over all states at a false-failure rate of 1e-6. The kernel must also
// keep every particle's bond sum up to date.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "support/chi_square.hpp"
#include "support/tiny_lattice.hpp"

namespace logz::test_support {

inline constexpr long kDraws = 200000;  // draws per check

// Ising (l.q = 2; J = 1): exact draws at beta_sample, one kernel call at beta_kernel, chi-square
// against beta_sample.
template <class Kernel>
ChiSquare ising_chi_square(const Kernel& kernel, double beta_sample, double beta_kernel,
                           std::uint64_t seed, const TinyLattice& l = {3, 3, 2}) {
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

// Chi-square of a Potts batch of kDraws particles (colours 0..l.q-1) against the state
// probabilities p; fails the test where a particle's equal-bond count is stale.
inline ChiSquare potts_batch_chi_square(const TinyLattice& l, const logz::PottsBatch& batch,
                                        const std::vector<double>& p) {
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
  return chi_square(counts, p, kDraws);
}

// Potts: the same with q = l.q colours and J = 1, or J = -1 at |beta| where beta_kernel < 0.
template <class Kernel>
ChiSquare potts_chi_square(const Kernel& kernel, const TinyLattice& l, double beta_sample,
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
  return potts_batch_chi_square(l, batch, l.probabilities(beta_sample));
}

}  // namespace logz::test_support
