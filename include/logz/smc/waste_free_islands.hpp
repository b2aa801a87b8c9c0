// The error bar of waste-free SMC (smc/adaptive_smc.hpp). Its particles are the states of M
// Markov chains, and a one-run estimate of the variance from them read low: the spread of the
// chains' mean weights (Dau & Chopin 2022) misses what each temperature's error passes on to
// the next, by a factor of 1.5 to 4.6 in the RMS z of the evidence suite's problems, and with
// few chains the genealogy (smc/genealogy_variance.hpp) collapses to one or two Eves. So the
// chains are split into B islands that resample only among their own particles: each island
// is a waste-free SMC of N / B particles, and given the temperatures, whitenings and step
// sizes (shared, from all the particles) the islands' estimates Z_b are independent and
// unbiased. log Z is log mean_b Z_b, its error bar the islands' spread.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logz/random/philox.hpp"
#include "logz/smc/smc_resampling.hpp"

namespace logz {

// B for M chains: the largest divisor of M up to 20 that leaves each island two chains or more
// (1 where none does: the error bar is then NaN).
std::size_t waste_free_islands(std::size_t chains);

// The island of particle i when the particles form `chains` chains (particle i in chain i mod
// chains) split into `islands` islands of consecutive chains.
inline std::size_t island_of(std::size_t i, std::size_t chains, std::size_t islands) {
  return (i % chains) / (chains / islands);
}

// Adds to island_log_z[b] the log mean of exp(log_increments) over island b's particles (their
// weights are equal).
void add_island_increments(std::span<const double> log_increments, std::size_t chains,
                           std::vector<double>& island_log_z);

// The chains' ancestors: each island draws its chains' starting points among its own
// particles, by weight, from `rng` island after island; ancestors[c] for chain c.
std::vector<std::size_t> island_ancestors(SmcResampling scheme, std::span<const double> log_weights,
                                          std::size_t chains, std::size_t islands,
                                          RandomStream& rng);

struct IslandEstimate {
  double log_z;      // log mean_b Z_b
  double std_error;  // sqrt(log(1 + V)), V the islands' sample variance of Z_b / mean over B
  double ess;        // (sum_b Z_b)^2 / sum_b Z_b^2 / B: near 1 where the islands agree
};
IslandEstimate island_estimate(std::span<const double> island_log_z);

}  // namespace logz
