// Simulated tempering over a ladder (Carlson et al. 2016, section 2): each chain holds (x, k);
// a sweep moves x with the kernel at t_k (any logz kernel: the kernel never knows it is
// tempered), then draws k exactly from q(t_k | x) (eq. 7): the one-step transition of
// tempering/tempering_step.hpp, which also states what paths and kernels must declare. This
// driver runs the sweeps over fixed chunks of chains (run_chunks) and records the
// Rao-Blackwellized statistics of tempering/tempering_stats.hpp per chain, so results do not
// depend on the thread count. Split over ranks (parallel/ranks.hpp), each rank holds and sweeps a
// contiguous block of chunks, and finish_run gathers every chain's statistics and every chunk's
// samples in chain order, so results do not depend on the rank count either (nor do checkpoints:
// chains() and whole_run() gather every rank's part, restore() and own_part() take a rank's
// block back, on any number of ranks). t_k are path
// fractions (the paper's inverse temperatures beta_k).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/batch_state.hpp"
#include "logz/core/error.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/tempering/ladder.hpp"
#include "logz/tempering/tempering_stats.hpp"
#include "logz/tempering/tempering_step.hpp"

namespace logz {

struct TemperingOptions {
  std::size_t num_chains = 100;
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;
  std::size_t chunk_size = 4;   // chains per chunk (fixes the grouping of GEMMs, if any)
  bool record_samples = false;  // keep (Delta, level) of every sample, for MBAR
  bool accumulate = true;       // false: plain simulated tempering, no statistics (benchmarks
                                // measure what the RTS statistics cost)
  Ranks* ranks = nullptr;       // the ranks the chains are split over; nullptr: this process alone
  StopToken stop;  // the run's stop request (core/stop_request.hpp): Stopped in a sweep
};

// What a chunk's chains recorded in a run so far: their samples (when asked for) and kernel counts.
struct TemperingChunkSamples {
  std::vector<double> delta, energies;
  std::vector<std::uint32_t> level, chain;
  TemperingMoves moves;
};

// A run of sweeps in progress (SimulatedTempering::begin_run): every chain's statistics so far
// and each chunk's samples.
struct TemperingRun {
  std::size_t sweeps = 0, sweeps_done = 0;
  std::uint32_t first_step = 0;
  bool integrands = true;  // whether the statistics get the TI integrands (begin_run)
  TemperingStats stats;
  std::vector<TemperingChunkSamples> chunks;
};

// Every chain of a tempering (SimulatedTempering::chains): levels in chain order, each chunk's
// batch as bytes (core/batch_state.hpp), and the first step not yet used.
struct TemperingChains {
  std::uint32_t next_step = 0;
  std::vector<std::uint32_t> level;
  std::vector<std::string> chunk_states;
};

namespace detail {

// SimulatedTempering (below) but for its kernel's moves, which it takes type-erased
// (ChainMoves, one call per chunk and sweep): compiled once per path, not once per kernel.
template <class Path>
class TemperingDriver {
 public:
  using Batch = typename Path::Batch;

  TemperingDriver(const Path& path, ChainMoves<Path> moves, TemperingLadder ladder,
                  TemperingOptions options)
      : path_(path),
        moves_(std::move(moves)),
        ladder_(std::move(ladder)),
        options_(options),
        ranks_(&ranks_or_single(options_.ranks)) {
    if (options_.num_chains == 0)
      fail_argument("logz::SimulatedTempering", "num_chains", "at least 1");
    block_ = chunks_of_rank(num_chunks(options_.num_chains, options_.chunk_size), ranks_->rank(),
                            ranks_->size());
    const std::uint32_t level_step = next_step_++;
    chunks_ = run_my_chunks([&](const ChunkRange& c) {
      return tempering_init(path_, c.size(), c.begin, ladder_.size(), options_.seed, level_step);
    });
  }

  // Section 2.4: fresh uniformly drawn levels, states kept.
  void redraw_levels_uniform() {
    const std::uint32_t step = next_step_++;
    for (State& chunk : chunks_)
      logz::redraw_levels_uniform(chunk, ladder_.size(), options_.seed, step);
  }

  // Runs `sweeps` sweeps on every chain with the given log Zhat_k and returns
  // the statistics of these sweeps. progress(done, total) is called per chunk. integrands =
  // false: statistics without the TI integrands (see begin_run).
  TemperingStats run(std::size_t sweeps, std::span<const double> log_z_hat,
                     const ChunkProgress& progress = {}, bool integrands = true) {
    TemperingRun r = begin_run(sweeps, integrands);
    continue_run(r, sweeps, log_z_hat, progress);
    return finish_run(std::move(r));
  }

  // The same in pieces, for a caller that checkpoints between them: begin_run reserves the
  // run's streams, continue_run runs up to `sweeps` more sweeps of every chain, finish_run
  // merges what the chunks recorded. Any split gives the bits of run(): each chain's statistics
  // add its sweeps in order, and samples stay with their chunk until the end. integrands =
  // false: a run whose statistics serve no thermodynamic integration (initial iterations, RTS,
  // TS, MBAR); a path not linear in t then skips its TI integrands where it can, and the
  // statistics say they hold none (TemperingStats::has_integrands).
  TemperingRun begin_run(std::size_t sweeps, bool integrands = true) {
    TemperingRun r;
    r.sweeps = sweeps;
    r.integrands = integrands;
    r.first_step = next_step_;
    next_step_ += static_cast<std::uint32_t>(sweeps);
    r.stats.num_levels = ladder_.size();
    r.stats.linear_in_t = is_geometric_path<Path>;
    r.stats.has_integrands = integrands || is_geometric_path<Path>;
    r.stats.chains.assign(options_.num_chains, ChainTemperingStats(ladder_.size()));
    r.chunks.resize(chunks_.size());
    return r;
  }

  void continue_run(TemperingRun& r, std::size_t sweeps, std::span<const double> log_z_hat,
                    const ChunkProgress& progress = {}) {
    if (log_z_hat.size() != ladder_.size())
      fail_argument("logz::SimulatedTempering::run", "log_z_hat", "one value per temperature");
    if (r.stats.chains.size() != options_.num_chains || r.chunks.size() != chunks_.size())
      fail_argument("logz::SimulatedTempering::continue_run", "run", "one begun by this tempering");
    const std::size_t from = r.sweeps_done, to = std::min(r.sweeps, from + sweeps);
    if (from == to) return;
    ChunkProgress chunk_progress;
    if (progress)  // whole chunk-runs of the run, so that the count grows across pieces
      chunk_progress = [&](std::size_t d, std::size_t n) {
        progress(from * n + d * (to - from), r.sweeps * n);
      };
    run_my_chunks(
        [&](const ChunkRange& c) {
          const std::size_t i = c.index - block_.first;  // this rank's chunk i
          TemperingChunkSamples& out = r.chunks[i];
          auto record = [&](const TemperingObservation& o) {
            if (options_.accumulate) r.stats.chains[o.chain].add(o.deltas, o.log_q, o.level);
            if (options_.record_samples) {
              out.delta.push_back(o.delta);
              out.level.push_back(o.level);
              out.chain.push_back(static_cast<std::uint32_t>(o.chain));
              if constexpr (!is_geometric_path<Path>)
                out.energies.insert(out.energies.end(), o.u.begin(), o.u.end());
            }
          };
          for (std::size_t s = from; s < to; ++s) {
            // tempering_step with the kernel's moves type-erased
            options_.stop.throw_if_requested();
            const std::uint32_t step = r.first_step + static_cast<std::uint32_t>(s);
            moves_(ladder_, chunks_[i], options_.seed, step, out.moves, options_.stop);
            move_levels(path_, ladder_, log_z_hat, chunks_[i], options_.seed, step, record,
                        r.integrands);
          }
          return 0;
        },
        chunk_progress);
    r.sweeps_done = to;
  }

  // Under several ranks, a collective: every rank's chains and chunks come to every rank.
  TemperingStats finish_run(TemperingRun&& r) {
    if (ranks_->size() > 1) gather(r);
    TemperingStats stats = std::move(r.stats);
    TemperingMoves moves;
    for (const TemperingChunkSamples& o : r.chunks) {  // chunk order
      stats.sample_delta.insert(stats.sample_delta.end(), o.delta.begin(), o.delta.end());
      stats.sample_level.insert(stats.sample_level.end(), o.level.begin(), o.level.end());
      stats.sample_chain.insert(stats.sample_chain.end(), o.chain.begin(), o.chain.end());
      stats.sample_energies.insert(stats.sample_energies.end(), o.energies.begin(),
                                   o.energies.end());
      moves += o.moves;
    }
    stats.kernel_accepted = moves.accepted;
    stats.kernel_attempted = moves.attempted;
    if (moves.by_level) {
      stats.level_accepted = std::move(moves.level_accepted);
      stats.level_attempted = std::move(moves.level_attempted);
      stats.level_accepted.resize(stats.num_levels);
      stats.level_attempted.resize(stats.num_levels);
    }
    return stats;
  }

  // Every chain's state and level, and the streams used so far, for a checkpoint; restore()
  // puts them back into a tempering made with the same path, ladder and options, split over
  // any number of ranks. Under several ranks chains() is a collective (every rank's chains come
  // to every rank). A batch that does not name its state arrays (core/batch_state.hpp) cannot
  // be saved.
  TemperingChains chains() const requires CheckpointableBatch<Batch> {
    TemperingChains out;
    out.next_step = next_step_;
    if (ranks_->size() == 1) {
      for (const State& chunk : chunks_) {
        out.level.insert(out.level.end(), chunk.level.begin(), chunk.level.end());
        out.chunk_states.push_back(batch_state_bytes(chunk.batch));
      }
      return out;
    }
    std::string mine;  // per chunk: its levels, its state's size and its state
    for (const State& chunk : chunks_) {
      append_bytes<std::uint32_t>(mine, chunk.level);
      const std::string state = batch_state_bytes(chunk.batch);
      const std::uint64_t n = state.size();
      append_bytes<std::uint64_t>(mine, std::span(&n, 1));
      mine += state;
    }
    const std::vector<std::string> all = ranks_->all_gather(mine);
    const std::size_t total = num_chunks(options_.num_chains, options_.chunk_size);
    out.level.resize(options_.num_chains);
    for (int rank = 0; rank < ranks_->size(); ++rank) {
      const ChunkBlock b = chunks_of_rank(total, rank, ranks_->size());
      ByteReader in(all[static_cast<std::size_t>(rank)]);
      for (std::size_t c = b.first; c < b.last; ++c) {
        const ChunkRange range = chunk_range(c, options_.num_chains, options_.chunk_size);
        in.read<std::uint32_t>(std::span(out.level).subspan(range.begin, range.size()));
        std::uint64_t n = 0;
        in.read<std::uint64_t>(std::span(&n, 1));
        out.chunk_states.emplace_back(in.take(n));
      }
    }
    return out;
  }
  // False, changing nothing, when the saved chains do not fit this tempering.
  bool restore(const TemperingChains& saved) requires CheckpointableBatch<Batch> {
    const std::size_t total = num_chunks(options_.num_chains, options_.chunk_size);
    if (saved.level.size() != options_.num_chains || saved.chunk_states.size() != total)
      return false;
    for (std::uint32_t k : saved.level)
      if (k >= ladder_.size()) return false;
    std::vector<State> restored;
    restored.reserve(chunks_.size());
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      const std::size_t first = chunks_[i].first_chain, n = chunks_[i].level.size();
      State s{path_.make_batch(n), {}, first, {}};
      if (!restore_batch_state(s.batch, saved.chunk_states[block_.first + i])) return false;
      s.level.assign(saved.level.begin() + static_cast<std::ptrdiff_t>(first),
                     saved.level.begin() + static_cast<std::ptrdiff_t>(first + n));
      restored.push_back(std::move(s));
    }
    chunks_ = std::move(restored);
    next_step_ = saved.next_step;
    return true;
  }

  // A run in progress as a checkpoint holds it: every chain's statistics and every chunk's
  // samples (under several ranks a collective, gathering them as finish_run does, into a copy).
  TemperingRun whole_run(const TemperingRun& r) const {
    TemperingRun whole = r;
    if (ranks_->size() > 1) gather(whole);
    return whole;
  }
  // The part of a whole run (as whole_run gives it) that this rank continues: its chunks' samples
  // (every chain's statistics stay; finish_run takes the other ranks' chains from them).
  TemperingRun own_part(TemperingRun whole) const {
    if (whole.chunks.size() != num_chunks(options_.num_chains, options_.chunk_size) ||
        whole.stats.chains.size() != options_.num_chains)
      fail_argument("logz::SimulatedTempering::own_part", "run",
                    "one with every chain and chunk of this tempering");
    whole.chunks.erase(whole.chunks.begin() + static_cast<std::ptrdiff_t>(block_.last),
                       whole.chunks.end());
    whole.chunks.erase(whole.chunks.begin(),
                       whole.chunks.begin() + static_cast<std::ptrdiff_t>(block_.first));
    return whole;
  }

  const TemperingLadder& ladder() const { return ladder_; }
  const TemperingOptions& options() const { return options_; }
  Ranks& ranks() const { return *ranks_; }  // those of the options, or this process alone
  // f(batch) on every chunk's batch of this rank, in chunk order (e.g. to drop caches after the
  // path's parameters changed).
  template <class F>
  void for_each_batch(F&& f) {
    for (State& chunk : chunks_) f(chunk.batch);
  }

 private:
  using State = TemperingState<Batch>;

  // run_chunks over this rank's block of chunks, each called with its chunk of the whole run.
  template <class Body>
  auto run_my_chunks(Body&& body, const ChunkProgress& progress = {}) {
    const ChunkRange mine = items_of_block(block_, options_.num_chains, options_.chunk_size);
    return run_chunks(
        mine.size(), options_.chunk_size, options_.threads,
        [&](const ChunkRange& c) { return body(in_whole_run(c, mine)); }, progress, options_.stop);
  }

  // Every rank's chains' statistics and chunks' samples into r, in chain and chunk order.
  void gather(TemperingRun& r) const {
    const std::size_t total = num_chunks(options_.num_chains, options_.chunk_size);
    auto chains_of = [&](const ChunkBlock& b) {
      return items_of_block(b, options_.num_chains, options_.chunk_size);
    };
    std::string mine;
    const ChunkRange my_chains = chains_of(block_);
    for (std::size_t chain = my_chains.begin; chain < my_chains.end; ++chain)
      append_chain_stats(mine, r.stats.chains[chain]);
    for (const TemperingChunkSamples& o : r.chunks) append_chunk_samples(mine, o);
    const std::vector<std::string> all = ranks_->all_gather(mine);
    std::vector<TemperingChunkSamples> chunks(total);
    for (int rank = 0; rank < ranks_->size(); ++rank) {
      const ChunkBlock b = chunks_of_rank(total, rank, ranks_->size());
      ByteReader in(all[static_cast<std::size_t>(rank)]);
      const ChunkRange chains = chains_of(b);
      for (std::size_t chain = chains.begin; chain < chains.end; ++chain)
        read_chain_stats(in, r.stats.chains[chain]);
      for (std::size_t c = b.first; c < b.last; ++c) read_chunk_samples(in, chunks[c]);
    }
    r.chunks = std::move(chunks);
  }

  static void append_chunk_samples(std::string& out, const TemperingChunkSamples& o) {
    const std::uint64_t sizes[] = {
        o.delta.size(),   o.energies.size(), o.level.size(),   o.chain.size(),
        o.moves.accepted, o.moves.attempted, o.moves.by_level, o.moves.level_attempted.size()};
    append_bytes<std::uint64_t>(out, sizes);
    append_bytes<double>(out, o.delta);
    append_bytes<double>(out, o.energies);
    append_bytes<std::uint32_t>(out, o.level);
    append_bytes<std::uint32_t>(out, o.chain);
    append_bytes<std::uint64_t>(out, o.moves.level_attempted);
    append_bytes<std::uint64_t>(out, o.moves.level_accepted);
  }
  static void read_chunk_samples(ByteReader& in, TemperingChunkSamples& o) {
    std::uint64_t sizes[8];
    in.read<std::uint64_t>(sizes);
    o.delta.resize(sizes[0]);
    o.energies.resize(sizes[1]);
    o.level.resize(sizes[2]);
    o.chain.resize(sizes[3]);
    o.moves.accepted = sizes[4];
    o.moves.attempted = sizes[5];
    o.moves.by_level = sizes[6] != 0;
    o.moves.level_attempted.resize(sizes[7]);
    o.moves.level_accepted.resize(sizes[7]);
    in.read<double>(o.delta);
    in.read<double>(o.energies);
    in.read<std::uint32_t>(o.level);
    in.read<std::uint32_t>(o.chain);
    in.read<std::uint64_t>(o.moves.level_attempted);
    in.read<std::uint64_t>(o.moves.level_accepted);
  }

  const Path& path_;
  ChainMoves<Path> moves_;
  TemperingLadder ladder_;
  TemperingOptions options_;
  Ranks* ranks_;
  ChunkBlock block_;
  std::vector<State> chunks_;  // this rank's block of chunks
  std::uint32_t next_step_ = 1;
};

}  // namespace detail

template <class Path, class Kernel>
class SimulatedTempering : public detail::TemperingDriver<Path> {
 public:
  // Chains start from exact base samples at levels drawn uniformly. The path and kernel are held
  // by reference and must outlive the tempering: temporaries are refused at compile time.
  SimulatedTempering(Path&&, const Kernel&, TemperingLadder, TemperingOptions) = delete;
  SimulatedTempering(const Path&, Kernel&&, TemperingLadder, TemperingOptions) = delete;
  SimulatedTempering(Path&&, Kernel&&, TemperingLadder, TemperingOptions) = delete;
  SimulatedTempering(const Path& path, const Kernel& kernel, TemperingLadder ladder,
                     TemperingOptions options)
      : detail::TemperingDriver<Path>(path, detail::chain_moves(path, kernel), std::move(ladder),
                                      options) {}
};

}  // namespace logz
