// n draws of N(mean, sd^2) from one Philox stream: test data (works, samples) for the
// estimators' tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "logz/random/philox.hpp"

namespace logz::test_support {

inline std::vector<double> gaussian_draws(double mean, double sd, std::size_t n, std::uint64_t seed,
                                          std::uint64_t stream) {
  RandomStream rng(seed, stream, Purpose::test, 0);
  std::vector<double> x(n);
  for (double& v : x) v = mean + sd * rng.normal();
  return x;
}

}  // namespace logz::test_support
