// Simulated tempering over a ladder (Carlson et al. 2016, section 2): each chain holds (x, k);
// a sweep moves x with the kernel at t_k (any logz kernel: the kernel never knows it is
// tempered), then draws k exactly from q(t_k | x) (eq. 7): the one-step transition of
// tempering/tempering_step.hpp, which also states what paths and kernels must declare. This
// driver runs the sweeps over fixed chunks of chains (run_chunks) and records the
// Rao-Blackwellized statistics of tempering/tempering_stats.hpp per chain, so results do not
// depend on the thread count. t_k are path fractions (the paper's inverse temperatures beta_k).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/tempering/ladder.hpp"
#include "logz/tempering/tempering_stats.hpp"
#include "logz/tempering/tempering_step.hpp"

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
 public:
  using Batch = typename Path::Batch;

  // Chains start from exact base samples at levels drawn uniformly.
  SimulatedTempering(const Path& path, const Kernel& kernel, TemperingLadder ladder,
                     TemperingOptions options)
      : path_(path), kernel_(kernel), ladder_(std::move(ladder)), options_(options) {
    if (options_.num_chains == 0) fail_argument("logz::SimulatedTempering", "num_chains", "at least 1");
    const std::uint32_t level_step = next_step_++;
    chunks_ = run_chunks(options_.num_chains, options_.chunk_size, options_.threads, [&](const ChunkRange& c) {
      return tempering_init(path_, c.size(), c.begin, ladder_.size(), options_.seed, level_step);
    });
  }

  // Section 2.4: fresh uniformly drawn levels, states kept.
  void redraw_levels_uniform() {
    const std::uint32_t step = next_step_++;
    for (State& chunk : chunks_) logz::redraw_levels_uniform(chunk, ladder_.size(), options_.seed, step);
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
      ChunkSamples out;
      auto record = [&](const TemperingObservation& o) {
        if (options_.accumulate) stats.chains[o.chain].add(o.deltas, o.log_q, o.level);
        if (options_.record_samples) {
          out.delta.push_back(o.delta);
          out.level.push_back(o.level);
          if constexpr (!is_geometric_path<Path>) out.energies.insert(out.energies.end(), o.u.begin(), o.u.end());
        }
      };
      for (std::size_t s = 0; s < sweeps; ++s) {
        const TemperingMoves m = tempering_step(path_, kernel_, ladder_, log_z_hat, chunks_[c.index], options_.seed,
                                                first_step + static_cast<std::uint32_t>(s), record);
        out.moves.accepted += m.accepted;
        out.moves.attempted += m.attempted;
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
  // f(batch) on every chunk's batch, in chunk order (e.g. to drop caches after the path's
  // parameters changed).
  template <class F>
  void for_each_batch(F&& f) {
    for (State& chunk : chunks_) f(chunk.batch);
  }

 private:
  using State = TemperingState<Batch>;
  // What a chunk's chains recorded in one run: their samples (when asked for) and kernel counts.
  struct ChunkSamples {
    std::vector<double> delta, energies;
    std::vector<std::uint32_t> level;
    TemperingMoves moves;
  };

  const Path& path_;
  const Kernel& kernel_;
  TemperingLadder ladder_;
  TemperingOptions options_;
  std::vector<State> chunks_;
  std::uint32_t next_step_ = 1;
};

}  // namespace logz
