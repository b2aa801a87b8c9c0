// The 3 x 3 Ising torus enumerated, for the kernels' exact-start invariance tests: states are
// 9-bit numbers (bit j set: spin j is +1), energies the test's own, and exact draws of states from
// exp(beta * bond sum) by inverting the CDF with one uniform of the particle's test stream.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/random/philox.hpp"

namespace logz::test_support {

constexpr int kIsingSide = 3, kIsingSites = kIsingSide * kIsingSide, kIsingStates = 1 << kIsingSites;

// sum over right and down bonds of s_i s_j (torus), computed independently of the library.
inline int ising_3x3_bond_sum(int state) {
  auto spin = [&](int r, int c) {
    return (state >> (((r + kIsingSide) % kIsingSide) * kIsingSide + (c + kIsingSide) % kIsingSide)) & 1 ? 1 : -1;
  };
  int sum = 0;
  for (int r = 0; r < kIsingSide; ++r)
    for (int c = 0; c < kIsingSide; ++c) sum += spin(r, c) * (spin(r, c + 1) + spin(r + 1, c));
  return sum;
}

// p(state) proportional to exp(beta * bond sum) (J = 1).
inline std::vector<double> ising_3x3_probabilities(double beta) {
  std::vector<double> p(kIsingStates);
  double z = 0;
  for (int s = 0; s < kIsingStates; ++s) z += p[s] = std::exp(beta * ising_3x3_bond_sum(s));
  for (double& v : p) v /= z;
  return p;
}

// n exact draws of a state from `probabilities` (any table of states), draw i from stream
// (seed, i, test).
inline std::vector<int> exact_state_draws(const std::vector<double>& probabilities, long n, std::uint64_t seed) {
  const int num_states = static_cast<int>(probabilities.size());
  std::vector<double> cdf(probabilities.size());
  double acc = 0;
  for (int s = 0; s < num_states; ++s) cdf[s] = acc += probabilities[s];
  std::vector<int> states(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(i), Purpose::test, 0);
    const double u = rng.uniform() * acc;
    states[i] = std::min(static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()), num_states - 1);
  }
  return states;
}

}  // namespace logz::test_support
