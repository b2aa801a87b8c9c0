// Simulated tempering over a ladder (Carlson et al. 2016, section 2): each
// chain holds (x, k); a sweep moves x with the kernel at t_k (any logz
// kernel: the kernel never knows it is tempered), then draws k exactly from
// q(t_k | x) (eq. 7), and records the Rao-Blackwellized statistics of
// tempering/tempering_stats.hpp. Chains live in fixed chunks with their own
// Philox streams (addressed by chain and a global sweep counter), statistics
// are kept per chain: results do not depend on the thread count. t_k are path
// fractions (the paper's inverse temperatures beta_k).
//
// Energies (core/tempering_path.hpp): for a geometric path (declared `static constexpr
// bool geometric_path = true`) U_k(x) - U_1(x) = t_k (U_K(x) - U_1(x)), one
// work_increment(0, 1) per sweep, and Delta = log f(x) - log p_1(x) = -(U_K(x) - U_1(x))
// is what TI integrates at every level. Any other path opts into level_energies
// (core/level_energies_path.hpp), for all chains of a chunk at once: every level's
// U_k(x) - U_1(x) and its own TI integrand -dU_t(x)/dt at t_k (taking Delta
// there would integrate the wrong function: the statistics record which case they hold).
// Moves take the fastest way the types declare: the kernel's step_levels
// (core/levels_kernel.hpp), the path's at_levels (core/levels_path.hpp), else chain by chain.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/level_energies_path.hpp"
#include "logz/core/levels_kernel.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/philox.hpp"
#include "logz/tempering/ladder.hpp"
#include "logz/tempering/level_probabilities.hpp"
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

struct TemperingOptions {
  std::size_t num_chains = 100;
  std::uint64_t seed = 1;
  int threads = 0;
  std::size_t chunk_size = 4;   // chains per chunk (fixes the grouping of GEMMs, if any)
  bool record_samples = false;  // keep (Delta, level) of every sample, for MBAR
  bool accumulate = true;       // false: plain simulated tempering, no statistics (benchmarks
                                // measure what the RTS statistics cost)
};

template <class Path, class Kernel>
class SimulatedTempering {
  static_assert(is_geometric_path<Path> || uses_level_energies<Path>,
                "simulated tempering needs every level's energy: declare `static constexpr bool geometric_path = "
                "true;` (U_t linear in t) or `static constexpr bool provides_level_energies = true;` with "
                "level_energies(t, batch, energies, slopes)");
  static_assert(TemperingPath<Path>, "Path needs Batch, make_batch(n), sample_base(Batch&, const BatchRandom&) "
                                     "and at(t) (core/tempering_path.hpp)");
  static_assert(KernelFor<Kernel, Path>, "Kernel needs step(path.at(t), Batch&, const BatchRandom&) const "
                                         "returning attempted/accepted counts (core/kernel_for.hpp)");

 public:
  using Batch = typename Path::Batch;

  // Chains start from exact base samples at levels drawn uniformly.
  SimulatedTempering(const Path& path, const Kernel& kernel, TemperingLadder ladder,
                     TemperingOptions options)
      : path_(path), kernel_(kernel), ladder_(std::move(ladder)), options_(options) {
    if (options_.num_chains == 0) fail_argument("logz::SimulatedTempering", "num_chains", "at least 1");
    chunks_ = run_chunks(options_.num_chains, options_.chunk_size, options_.threads, [&](const ChunkRange& c) {
      Batch batch = path_.make_batch(c.size());
      path_.sample_base(batch, BatchRandom{options_.seed, Purpose::tempering_start, 0, c.begin});
      return batch;
    });
    level_.resize(options_.num_chains);
    redraw_levels_uniform();
  }

  // Section 2.4: fresh uniformly drawn levels, states kept.
  void redraw_levels_uniform() {
    const std::uint32_t step = next_step_++;
    for (std::size_t i = 0; i < level_.size(); ++i) {
      RandomStream rng(options_.seed, i, Purpose::tempering_start, step);
      level_[i] = rng.below(static_cast<std::uint32_t>(ladder_.size()));
    }
  }

  // Runs `sweeps` sweeps on every chain with the given log Zhat_k and returns
  // the statistics of these sweeps. progress(done, total) is called per chunk.
  TemperingStats run(std::size_t sweeps, std::span<const double> log_z_hat,
                     const ChunkProgress& progress = {}) {
    const std::size_t k_levels = ladder_.size();
    if (log_z_hat.size() != k_levels)
      fail_argument("logz::SimulatedTempering::run", "log_z_hat", "one value per temperature");
    TemperingStats stats;
    stats.num_levels = k_levels;
    stats.linear_in_t = is_geometric_path<Path>;
    stats.chains.assign(options_.num_chains, ChainTemperingStats(k_levels));
    const std::uint32_t first_step = next_step_;
    next_step_ += static_cast<std::uint32_t>(sweeps);
    const auto outputs = run_chunks(options_.num_chains, options_.chunk_size, options_.threads, [&](const ChunkRange& c) {
      Batch& batch = chunks_[c.index];
      ChunkSamples out;
      Batch single = path_.make_batch(1);
      std::vector<double> gap(c.size()), u(k_levels), log_q(k_levels), level_u, level_slope, fractions(c.size());
      for (std::size_t s = 0; s < sweeps; ++s) {
        const std::uint32_t step = first_step + static_cast<std::uint32_t>(s);
        const KernelCounts m = move_chunk(batch, single, c, step, fractions);
        out.moves.accepted += m.accepted;
        out.moves.attempted += m.attempted;
        if constexpr (is_geometric_path<Path>)
          path_.work_increment(0.0, 1.0, batch, gap);
        else
          path_.level_energies(ladder_.fractions(), batch, level_u, level_slope);
        for (std::size_t i = 0; i < c.size(); ++i) {
          const std::size_t chain = c.begin + i;
          std::span<const double> deltas;
          double delta;
          if constexpr (is_geometric_path<Path>) {
            for (std::size_t k = 0; k < k_levels; ++k) u[k] = ladder_.fraction(k) * gap[i];
            delta = -u[k_levels - 1];
            deltas = std::span<const double>(&delta, 1);
          } else {
            for (std::size_t k = 0; k < k_levels; ++k) u[k] = level_u[i * k_levels + k];
            deltas = std::span<const double>(level_slope).subspan(i * k_levels, k_levels);
            delta = -u[k_levels - 1];
          }
          for (double x : deltas)
            if (!std::isfinite(x) || !std::isfinite(delta))
              throw NumericalError("simulated tempering: non-finite energy for chain " + std::to_string(chain) +
                                   " at sweep " + std::to_string(s));
          level_log_probabilities(u, ladder_.log_prior(), log_z_hat, log_q);
          if (options_.accumulate) stats.chains[chain].add(deltas, log_q, level_[chain]);
          if (options_.record_samples) {
            out.delta.push_back(delta);
            out.level.push_back(level_[chain]);
            if constexpr (!is_geometric_path<Path>) out.energies.insert(out.energies.end(), u.begin(), u.end());
          }
          RandomStream rng(options_.seed, chain, Purpose::tempering_level, step);
          level_[chain] = static_cast<std::uint32_t>(draw_level(log_q, rng.uniform()));
        }
      }
      return out;
    }, progress);
    for (const ChunkSamples& o : outputs) {  // chunk order
      stats.sample_delta.insert(stats.sample_delta.end(), o.delta.begin(), o.delta.end());
      stats.sample_level.insert(stats.sample_level.end(), o.level.begin(), o.level.end());
      stats.sample_energies.insert(stats.sample_energies.end(), o.energies.begin(), o.energies.end());
      stats.kernel_accepted += o.moves.accepted;
      stats.kernel_attempted += o.moves.attempted;
    }
    return stats;
  }

  const TemperingLadder& ladder() const { return ladder_; }
  std::span<const std::uint32_t> levels() const { return level_; }
  // f(batch) on every chunk's batch, in chunk order (e.g. to drop caches after the path's
  // parameters changed).
  template <class F>
  void for_each_batch(F&& f) {
    for (Batch& b : chunks_) f(b);
  }

 private:
  struct KernelCounts {
    std::uint64_t accepted = 0, attempted = 0;
  };
  // What a chunk's chains recorded in one run: their samples (when asked for) and kernel counts.
  struct ChunkSamples {
    std::vector<double> delta, energies;
    std::vector<std::uint32_t> level;
    KernelCounts moves;
  };

  // One kernel step per chain at its own level, the fastest way the types declare: a kernel
  // that steps a batch at per-particle fractions (step_levels), a path whose at_levels target
  // any kernel steps as one batch (its cached energies kept), else each chain alone. Chain
  // c.begin + i draws from the same stream (seed, chain, tempering_kernel, step) in every case.
  // `fractions`: the chunk's scratch for the chains' path fractions (c.size() entries).
  KernelCounts move_chunk(Batch& batch, Batch& single, const ChunkRange& c, std::uint32_t step,
                          std::vector<double>& fractions) {
    KernelCounts counts;
    auto tally = [&](const auto& info) {
      counts.accepted += static_cast<std::uint64_t>(info.accepted);
      counts.attempted += static_cast<std::uint64_t>(info.attempted);
    };
    const BatchRandom random{options_.seed, Purpose::tempering_kernel, step, c.begin};
    if constexpr (uses_step_levels<Kernel, Path> || uses_at_levels<Path, Kernel>) {
      for (std::size_t i = 0; i < c.size(); ++i) fractions[i] = ladder_.fraction(level_[c.begin + i]);
      if constexpr (uses_step_levels<Kernel, Path>)
        tally(kernel_.step_levels(path_, fractions, batch, random));
      else
        tally(kernel_.step(path_.at_levels(fractions), batch, random));
    } else {
      for (std::size_t i = 0; i < c.size(); ++i) {
        single.copy_particle(batch, i, 0);
        tally(kernel_.step(path_.at(ladder_.fraction(level_[c.begin + i])), single,
                           BatchRandom{options_.seed, Purpose::tempering_kernel, step, c.begin + i}));
        batch.copy_particle(single, 0, i);
      }
    }
    return counts;
  }

  const Path& path_;
  const Kernel& kernel_;
  TemperingLadder ladder_;
  TemperingOptions options_;
  std::vector<Batch> chunks_;
  std::vector<std::uint32_t> level_;
  std::uint32_t next_step_ = 1;
};

}  // namespace logz
