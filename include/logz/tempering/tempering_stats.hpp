// What simulated tempering accumulates (Carlson et al. 2016): per chain and
// per temperature k, the Rao-Blackwellized sums of q(t_k | x_i) (eq. 9), the
// raw visit counts, and the sums of Delta_i = log f(x_i) - log p_1(x_i) that
// thermodynamic integration needs (raw per visited level, and weighted by
// q(t_k | x_i) for TI-RB, eq. 21; for a path not linear in t, Delta_k = -dU_t/dt at t_k). Chains
// are independent replicates, which gives every estimator an honest between-chain error bar. Merged
// in chain order, so sums do not depend on thread count.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "logz/parallel/bytes.hpp"

namespace logz {

struct ChainTemperingStats {
  std::uint64_t num_samples = 0;
  // sum_i q(t_k | x_i) = exp(q_shift[k]) * q_scaled[k]: kept in a shifted form
  // because q can be far below the smallest double when the Z_k estimates are off.
  std::vector<double> q_shift, q_scaled;
  std::vector<std::uint64_t> counts;    // number of samples whose x was moved at level k
  std::vector<double> delta_sum;        // sum of Delta_i over samples at level k
  std::vector<double> delta_sq_sum;     // sum of Delta_i^2 over samples at level k
  std::vector<double> rb_delta_sum;     // sum_i q(t_k | x_i) Delta_i
  std::vector<double> rb_delta_sq_sum;  // sum_i q(t_k | x_i) Delta_i^2

  explicit ChainTemperingStats(std::size_t num_levels = 0);
  // Adds one sample: Delta and the log q(t_k | x) of all levels; level = where x was moved.
  void add(double delta, std::span<const double> log_q, std::size_t level);
  // The same for a path not linear in t, whose integrand Delta_k = -dU_t(x)/dt at
  // t_k differs between levels: one value per level; none (an empty span) adds only the q sums
  // and counts, for runs without thermodynamic integration.
  void add(std::span<const double> deltas, std::span<const double> log_q, std::size_t level);
  double log_q_sum(std::size_t k) const;  // log sum_i q(t_k | x_i)
};

// A chain's sums as bytes and back (parallel/bytes.hpp), for chains split over ranks; `s` is
// read into with its number of levels.
void append_chain_stats(std::string& out, const ChainTemperingStats& s);
void read_chain_stats(ByteReader& in, ChainTemperingStats& s);

struct TemperingStats {
  std::size_t num_levels = 0;
  std::vector<ChainTemperingStats> chains;  // one per chain, chain order
  // Whether U_k(x) - U_1(x) = t_k (U_K(x) - U_1(x)) (a geometric path): then Delta is one
  // number per sample; otherwise the TI sums hold each level's own slope.
  bool linear_in_t = true;
  // False when the run left out the TI integrands (SimulatedTempering::begin_run): the Delta
  // sums are then zero and no TI estimate can be formed from them.
  bool has_integrands = true;
  // Every sample (Delta, level), chain after chain, when recording was asked for (MBAR); for a
  // path not linear in t also every level's U_k(x) - U_1(x) (K per sample, sample-major).
  std::vector<double> sample_delta;
  std::vector<std::uint32_t> sample_level;
  std::vector<std::uint32_t> sample_chain;  // the chain each sample came from
  std::vector<double> sample_energies;
  // Moves accepted and attempted by the x-kernel, where it reports them (0 and 0 otherwise),
  // and by the level the chains were moved at (one per level; empty where the kernel's counts
  // could not be split by chain, tempering_step.hpp's split_by_level).
  std::uint64_t kernel_accepted = 0, kernel_attempted = 0;
  std::vector<std::uint64_t> level_accepted, level_attempted;

  std::uint64_t num_samples() const;
  // log c_k = log((1/N) sum over all samples of q(t_k | x_i)), eq. 9.
  std::vector<double> log_c() const;
  // Visit counts n_k over all chains.
  std::vector<std::uint64_t> counts() const;
  // Each level's mean energy -sum Delta / n_k over all chains, in chain order (NaN where a level
  // was never visited or the run kept no integrands).
  std::vector<double> mean_energy() const;
  // The x-kernel's acceptance over all moves and per level (NaN where it made none).
  double kernel_acceptance() const;
  std::vector<double> kernel_level_acceptance() const;
};

}  // namespace logz
