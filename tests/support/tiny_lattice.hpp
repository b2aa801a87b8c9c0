// Tiny lattices enumerated, for the lattice kernels' exact-start invariance tests: q values per
// site (q = 2: Ising spins, value 1 -> +1), state code sum_i x_i q^i, the tests' own bond sums
// and exact draws from exp(beta J bond sum).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/random/philox.hpp"

namespace logz::test_support {

// A tiny lattice with q values per site; state code = sum_i x_i q^i.
struct TinyLattice {
  int rows, cols, q;
  int sites() const { return rows * cols; }
  int states() const {
    int s = 1;
    for (int i = 0; i < sites(); ++i) s *= q;
    return s;
  }
  int value(int state, int i) const {
    for (int k = 0; k < i; ++k) state /= q;
    return state % q;
  }
  // The test's own count of equal right and down bonds (Potts), or of s_i s_j
  // (Ising, values 0 -> -1 and 1 -> +1).
  int bond_sum(int state) const {
    auto at = [&](int r, int c) { return value(state, (r % rows) * cols + c % cols); };
    int sum = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        if (q == 2) {
          auto spin = [&](int v) { return 2 * v - 1; };
          sum += spin(at(r, c)) * (spin(at(r, c + 1)) + spin(at(r + 1, c)));
        } else {
          sum += (at(r, c) == at(r, c + 1)) + (at(r, c) == at(r + 1, c));
        }
      }
    return sum;
  }
  // exp(beta J bond_sum) normalised; J = 1 (beta < 0 stands for J = -1 at |beta|).
  std::vector<double> probabilities(double beta) const {
    std::vector<double> p(states());
    double z = 0;
    for (int s = 0; s < states(); ++s) z += p[s] = std::exp(beta * bond_sum(s));
    for (double& v : p) v /= z;
    return p;
  }
};

// n exact draws (state codes) at beta.
inline std::vector<int> exact_draws(const TinyLattice& l, double beta, long n, std::uint64_t seed) {
  const auto p = l.probabilities(beta);
  std::vector<double> cdf(p.size());
  double acc = 0;
  for (std::size_t s = 0; s < p.size(); ++s) cdf[s] = acc += p[s];
  std::vector<int> draws(n);
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  for (long i = 0; i < n; ++i) {
    const auto s = std::lower_bound(cdf.begin(), cdf.end(), rng.uniform() * acc) - cdf.begin();
    draws[i] = std::min(static_cast<int>(s), l.states() - 1);
  }
  return draws;
}

}  // namespace logz::test_support
