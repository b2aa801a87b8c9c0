// Simulated tempering over a ladder (Carlson et al. 2016, section 2): each
// chain holds (x, k); a sweep moves x with the kernel at beta_k (any logz
// kernel: the kernel never knows it is tempered), then draws k exactly from
// q(beta_k | x) (eq. 7), and records the Rao-Blackwellized statistics of
// tempering/tempering_stats.hpp. Chains live in fixed chunks with their own
// Philox streams (addressed by chain and a global sweep counter), statistics
// are kept per chain: results do not depend on the thread count.
//
// Energies: for a geometric path (the model declares `static constexpr bool
// geometric_path = true`) U_k(x) - U_1(x) = beta_k (U_K(x) - U_1(x)), one
// work_increment(0, 1) per sweep, and Delta = log f(x) - log p_1(x) = -(U_K(x) - U_1(x))
// is what TI integrates at every level. Any other path must give, for all chains of a
// chunk at once, level_energies(betas, batch, energies, slopes): every level's
// U_k(x) - U_1(x) and its own TI integrand -dU_beta(x)/dbeta at beta_k (taking Delta
// there would integrate the wrong function: the statistics record which case they hold).
#pragma once

#include <cstdint>
#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <span>
#include <vector>

#include "logz/core/error.hpp"
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

template <class Path>
inline constexpr bool is_geometric_path = requires { Path::geometric_path; } && [] {
  if constexpr (requires { Path::geometric_path; })
    return static_cast<bool>(Path::geometric_path);
  else
    return false;
}();

template <class Path, class Kernel>
class SimulatedTempering {
  // A path whose energies are not linear in beta may give every level's at once.
  static constexpr bool has_level_energies =
      requires(const Path& p, std::span<const double> b, const typename Path::Batch& x, std::vector<double>& o) {
        p.level_energies(b, x, o, o);
      };
  static_assert(is_geometric_path<Path> || has_level_energies,
                "simulated tempering needs a geometric path or level_energies(betas, batch, energies, slopes)");

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
    stats.linear_in_beta = is_geometric_path<Path>;
    stats.chains.assign(options_.num_chains, ChainTemperingStats(k_levels));
    const std::uint32_t first_step = next_step_;
    next_step_ += static_cast<std::uint32_t>(sweeps);
    const auto outputs = run_chunks(options_.num_chains, options_.chunk_size, options_.threads, [&](const ChunkRange& c) {
      Batch& batch = chunks_[c.index];
      ChunkSamples out;
      Batch single = path_.make_batch(1);
      std::vector<double> gap(c.size()), u(k_levels), log_q(k_levels), level_u, level_slope, betas(c.size());
      for (std::size_t s = 0; s < sweeps; ++s) {
        const std::uint32_t step = first_step + static_cast<std::uint32_t>(s);
        const KernelCounts m = move_chunk(batch, single, c, step, betas);
        out.moves.accepted += m.accepted;
        out.moves.attempted += m.attempted;
        if constexpr (is_geometric_path<Path>)
          path_.work_increment(0.0, 1.0, batch, gap);
        else
          path_.level_energies(ladder_.betas(), batch, level_u, level_slope);
        for (std::size_t i = 0; i < c.size(); ++i) {
          const std::size_t chain = c.begin + i;
          std::span<const double> deltas;
          double delta;
          if constexpr (is_geometric_path<Path>) {
            for (std::size_t k = 0; k < k_levels; ++k) u[k] = ladder_.beta(k) * gap[i];
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

  // One kernel step per chain at its own level. A kernel that can step a batch
  // whose particles sit at different temperatures offers step_levels(path,
  // betas, batch, random); a path that can place each particle at its own
  // temperature offers at_levels(betas), an ordinary target that any kernel
  // steps as one batch (its cached energies kept); otherwise each chain is
  // stepped alone. Chain c.begin + i draws from the same stream
  // (seed, chain, tempering_kernel, step) in every case. Returns the kernel's
  // acceptance counts where it reports them.
  // `betas`: the chunk's scratch for the chains' temperatures (c.size() entries).
  KernelCounts move_chunk(Batch& batch, Batch& single, const ChunkRange& c, std::uint32_t step,
                          std::vector<double>& betas) {
    KernelCounts counts;
    auto tally = [&](auto&& kernel_step) {
      if constexpr (std::is_void_v<decltype(kernel_step())>) {
        kernel_step();
      } else {
        const auto info = kernel_step();
        if constexpr (requires { info.accepted; info.attempted; }) {
          counts.accepted += static_cast<std::uint64_t>(info.accepted);
          counts.attempted += static_cast<std::uint64_t>(info.attempted);
        }
      }
    };
    if constexpr (requires(std::span<const double> b) {
                    kernel_.step_levels(path_, b, batch, BatchRandom{});
                  }) {
      for (std::size_t i = 0; i < c.size(); ++i) betas[i] = ladder_.beta(level_[c.begin + i]);
      tally([&] {
        return kernel_.step_levels(path_, betas, batch,
                                   BatchRandom{options_.seed, Purpose::tempering_kernel, step, c.begin});
      });
    } else if constexpr (requires(std::span<const double> b) {
                           kernel_.step(path_.at_levels(b), batch, BatchRandom{});
                         }) {
      for (std::size_t i = 0; i < c.size(); ++i) betas[i] = ladder_.beta(level_[c.begin + i]);
      tally([&] {
        return kernel_.step(path_.at_levels(betas), batch,
                            BatchRandom{options_.seed, Purpose::tempering_kernel, step, c.begin});
      });
    } else {
      for (std::size_t i = 0; i < c.size(); ++i) {
        single.copy_particle(batch, i, 0);
        tally([&] {
          return kernel_.step(path_.at(ladder_.beta(level_[c.begin + i])), single,
                              BatchRandom{options_.seed, Purpose::tempering_kernel, step, c.begin + i});
        });
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
