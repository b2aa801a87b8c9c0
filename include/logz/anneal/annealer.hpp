// The annealing driver: moves chunks of particles along a schedule, forward from exact base
// samples or in reverse from (approximate) target samples, one anneal_step per temperature
// (anneal/anneal_step.hpp), and records works and traces (anneal/works.hpp).
//
// Paths and kernels are those of core/annealing_path.hpp and core/kernel_for.hpp; a kernel
// that is not reversible offers reversed(), the time reversal that reverse runs apply, so that
// reverse works satisfy Crooks' theorem exactly. Chunks are fixed by num_paths and chunk_size
// (parallel/run_chunks.hpp); every particle draws from its own Philox streams (forward: base
// draws (base_sample, step 0), the kernel at temperature k (forward_kernel, step k); reverse:
// the start (reverse_start, substreams of ChunkStreams), the kernel at temperature k
// (reverse_kernel, step k)); per-chunk sums are reduced in chunk order. Hence the same seed
// gives bitwise-identical results for any thread count, and, split over ranks
// (parallel/ranks.hpp: each rank runs a contiguous block of chunks, of the whole phase or, when
// checkpointed, of each wave of chunks; then every chunk's works and traces go to every rank and
// are reduced in chunk order), for any number of ranks.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "logz/anneal/anneal_journal.hpp"
#include "logz/anneal/anneal_step.hpp"
#include "logz/anneal/applied_kernel.hpp"
#include "logz/anneal/works.hpp"
#include "logz/core/annealing_path.hpp"
#include "logz/core/batch_state.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/chunk_streams.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct AnnealOptions {
  std::size_t num_paths = 100;
  std::uint64_t seed = kDefaultSeed;  // [run] seed's default
  int threads = 0;                    // 0 = all hardware threads
  std::size_t chunk_size = 8;         // particles per chunk (fixes the reduction order)
  ChunkProgress progress;             // after each chunk: (chunks done, chunks in all)
  // A checkpointed run's journal (anneal/anneal_journal.hpp); nullptr: none.
  AnnealJournal* journal = nullptr;
  // The ranks the run is split over (parallel/ranks.hpp); nullptr: this process alone.
  Ranks* ranks = nullptr;
  // The run's stop request (core/stop_request.hpp): Stopped within a step once requested.
  StopToken stop;
};

namespace detail {

// Per temperature sums of one chunk (or, added in chunk order, of all chunks).
struct ChunkTrace {
  std::vector<double> energy_sum;
  std::vector<std::uint64_t> attempted, accepted;
  explicit ChunkTrace(std::size_t n) : energy_sum(n, 0.0), attempted(n, 0), accepted(n, 0) {}
  void add_energies(std::size_t k, std::span<const double> energies) {
    for (double e : energies) energy_sum[k] += e;
  }
  void add(const ChunkTrace& other);
};

// The works of all paths (in path order) and the sums of all chunks -> Works; the direction's
// end temperature has no equilibrated state, so its mean energy is NaN.
Works make_works(Direction d, std::span<const double> fractions, const ChunkTrace& sums,
                 std::vector<double> works, std::size_t num_paths);

// A chunk's run: its trace (none for a chunk a resumed phase already holds) and, when asked
// for, its particles at the end.
template <class Batch>
struct ChunkRun {
  std::optional<ChunkTrace> trace;
  std::optional<Batch> final_state;
};

// A phase split over ranks, from chunk first_chunk on, in waves of chunks: each rank runs its
// block of the wave (chunks_of_rank) with body(chunk), which writes the chunk's works into
// `works`; then every rank's chunks (their traces, works and end states) go to every rank, where
// traces are added into `sums` and end states appended to final_states in chunk order: the
// bits of the phase on one rank. after_wave(chunks done) follows each wave on every rank.
// Without `in_waves` the phase is one wave (one gather). With it (a checkpointed run), the
// chunks done after each wave are a prefix of the phase, as a checkpoint records them: a wave
// starts with as many chunks per rank as the largest rank has threads and doubles while its
// slowest rank takes under a second (decided from the gathered times, so alike on every rank).
// body and after_wave are type-erased (called once per chunk and wave): one copy of this per
// path, and the chunk's body, with the kernel inlined, compiled once, in anneal.
template <class Path>
void anneal_over_ranks(Ranks& ranks, const Path& path, const AnnealOptions& options,
                       std::size_t num_temperatures, std::size_t first_chunk, bool in_waves,
                       const std::function<ChunkRun<typename Path::Batch>(const ChunkRange&)>& body,
                       std::vector<double>& works, ChunkTrace& sums,
                       std::vector<typename Path::Batch>* final_states,
                       const std::function<void(std::size_t)>& after_wave) {
  using Batch = typename Path::Batch;
  using Clock = std::chrono::steady_clock;
  const std::size_t chunk_size = options.chunk_size, num_paths = options.num_paths;
  const std::size_t total = num_chunks(num_paths, chunk_size);
  const auto num_ranks = static_cast<std::size_t>(ranks.size());
  auto first_path = [&](std::size_t chunk) { return std::min(chunk * chunk_size, num_paths); };
  std::size_t per_rank = total;  // chunks per rank in a wave
  if (in_waves) {
    const std::uint64_t threads = static_cast<std::uint64_t>(resolve_threads(options.threads));
    std::string mine;
    append_bytes<std::uint64_t>(mine, std::span(&threads, 1));
    per_rank = 1;
    for (const std::string& theirs : ranks.all_gather(mine)) {
      std::uint64_t t = 1;
      ByteReader(theirs).read<std::uint64_t>(std::span(&t, 1));
      per_rank = std::max<std::size_t>(per_rank, t);
    }
  }
  for (std::size_t wave_first = first_chunk; wave_first < total;) {
    const std::size_t wave_last =
        std::min(total, wave_first + std::min(total, per_rank * num_ranks));
    auto block_of = [&](int r) {
      const ChunkBlock b = chunks_of_rank(wave_last - wave_first, r, ranks.size());
      return ChunkBlock{wave_first + b.first, wave_first + b.last};
    };
    const ChunkBlock mine = block_of(ranks.rank());
    const std::size_t offset = first_path(mine.first);
    std::string
        bytes;  // per chunk in chunk order: energy sums, attempted, accepted, [state size, state]
    std::vector<Batch> my_finals;
    const auto started = Clock::now();
    const ChunkProgress progress = [&](std::size_t done, std::size_t n) {
      if (options.progress)
        options.progress(wave_first + done * (wave_last - wave_first) / n, total);
    };
    run_chunks_ordered(
        first_path(mine.last) - offset, chunk_size, options.threads,
        [&](const ChunkRange& c) {
          return body(ChunkRange{mine.first + c.index, offset + c.begin, offset + c.end});
        },
        [&](ChunkRun<Batch>&& r) {
          append_bytes<double>(bytes, r.trace->energy_sum);
          append_bytes<std::uint64_t>(bytes, r.trace->attempted);
          append_bytes<std::uint64_t>(bytes, r.trace->accepted);
          if (!final_states) return;
          if constexpr (CheckpointableBatch<Batch>) {
            const std::string state = batch_state_bytes(*r.final_state);
            const std::uint64_t n = state.size();
            append_bytes<std::uint64_t>(bytes, std::span(&n, 1));
            bytes += state;
            my_finals.push_back(std::move(*r.final_state));
          } else {
            fail_argument("logz::anneal_forward", "final_states",
                          "a batch with for_each_state_array (core/batch_state.hpp) when a run is "
                          "split over ranks");
          }
        },
        progress, options.stop);
    append_bytes<double>(
        bytes, std::span<const double>(works).subspan(offset, first_path(mine.last) - offset));
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    append_bytes<double>(bytes, std::span(&seconds, 1));
    const std::vector<std::string> all = ranks.all_gather(bytes);
    ChunkTrace chunk(num_temperatures);
    double slowest = 0;
    for (int r = 0; r < ranks.size(); ++r) {
      const ChunkBlock block = block_of(r);
      ByteReader in(all[static_cast<std::size_t>(r)]);
      for (std::size_t c = block.first; c < block.last; ++c) {
        in.read<double>(chunk.energy_sum);
        in.read<std::uint64_t>(chunk.attempted);
        in.read<std::uint64_t>(chunk.accepted);
        sums.add(chunk);
        if (!final_states) continue;
        std::uint64_t n = 0;
        in.read<std::uint64_t>(std::span(&n, 1));
        const std::string_view state = in.take(n);
        if (r == ranks.rank()) {
          final_states->push_back(std::move(my_finals[c - block.first]));
          continue;
        }
        if constexpr (CheckpointableBatch<Batch>) {
          Batch batch = path.make_batch(chunk_range(c, num_paths, chunk_size).size());
          if (!restore_batch_state(batch, state))
            fail_argument("logz::anneal_forward", "final_states",
                          "end states of the size of their chunks on every rank");
          final_states->push_back(std::move(batch));
        }
      }
      const std::size_t begin = first_path(block.first), end = first_path(block.last);
      in.read<double>(std::span(works).subspan(begin, end - begin));
      double their_seconds = 0;
      in.read<double>(std::span(&their_seconds, 1));
      slowest = std::max(slowest, their_seconds);
    }
    wave_first = wave_last;
    after_wave(wave_first);
    if (slowest < 1.0) per_rank *= 2;
  }
}

// start(batch, chunk) puts a chunk's particles at the direction's first temperature.
// Type-erased (one call per chunk, so free), as the kernel below: the drivers are compiled once
// per path, not again for every kind of start (docs/performance.md, First run).
template <class Batch>
using ChunkStart = std::function<void(Batch&, const ChunkRange&)>;

// One implementation for both directions: start puts each chunk at the direction's first
// temperature; the kernel is applied as given.
template <class Path>
Works anneal(const Path& path, const AppliedKernel<Path>& kernel, const Schedule& schedule,
             const AnnealOptions& options, Direction direction,
             const ChunkStart<typename Path::Batch>& start,
             std::vector<typename Path::Batch>* final_states) {
  using Batch = typename Path::Batch;
  const auto fractions = schedule.fractions();
  const std::size_t last = fractions.size() - 1;
  const bool forward = direction == Direction::forward;
  // Schedule index of the j-th temperature visited.
  auto index = [&](std::size_t j) { return forward ? j : last - j; };
  const Purpose kernel_purpose = forward ? Purpose::forward_kernel : Purpose::reverse_kernel;
  using ChunkRun = detail::ChunkRun<Batch>;
  // Works go straight to their paths' places; per-temperature traces are summed in chunk order
  // as chunks finish (run_chunks_ordered), so a long schedule keeps a few traces, not one per
  // chunk.
  std::vector<double> works(options.num_paths);
  ChunkTrace sums(fractions.size());
  if (final_states) final_states->clear();
  // A checkpointed run (anneal/anneal_journal.hpp): the chunks a resumed phase holds are taken
  // from it, not run again.
  AnnealJournal* journal = options.journal;
  const AnnealPhaseShape shape{options.num_paths, options.chunk_size,
                               num_chunks(options.num_paths, options.chunk_size), fractions.size()};
  std::size_t chunks_done = 0;
  if (journal) {
    if (const AnnealPhaseRecord* saved = journal->begin_phase(shape, final_states == nullptr)) {
      chunks_done = saved->chunks_done;
      std::copy(saved->works.begin(), saved->works.end(), works.begin());
      sums.energy_sum = saved->energy_sum;
      sums.attempted = saved->attempted;
      sums.accepted = saved->accepted;
    }
  }
  const std::size_t chunks_saved = chunks_done;
  auto view = [&] {
    const std::size_t paths = std::min(chunks_done * options.chunk_size, options.num_paths);
    return AnnealPhaseView{
        shape,           chunks_done,    std::span<const double>(works).first(paths),
        sums.energy_sum, sums.attempted, sums.accepted};
  };
  auto body = [&](const ChunkRange& c) {
    ChunkRun run;
    if (c.index < chunks_saved) return run;
    run.trace.emplace(fractions.size());
    ChunkTrace& trace = *run.trace;
    Batch batch = path.make_batch(c.size());
    start(batch, c);
    auto state = anneal_init(path, std::move(batch), direction, c.begin);
    trace.add_energies(index(0), state.trace);
    for (std::size_t j = 1; j <= last; ++j) {
      const std::size_t k = index(j);
      const auto info = anneal_step(
          path, kernel, state, fractions[k],
          BatchRandom{options.seed, kernel_purpose, static_cast<std::uint32_t>(k), c.begin},
          options.stop);
      if (j == last) break;  // no transition at the end of the path
      trace.attempted[k] += info.attempted;
      trace.accepted[k] += info.accepted;
      trace.add_energies(k, state.trace);
    }
    std::copy(state.work.begin(), state.work.end(),
              works.begin() + static_cast<std::ptrdiff_t>(c.begin));
    if (final_states) run.final_state.emplace(std::move(state.batch));
    return run;
  };
  Ranks& ranks = ranks_or_single(options.ranks);
  try {
    if (ranks.size() > 1) {
      // Every rank journals alike (the front end lets rank 0 alone write).
      anneal_over_ranks(ranks, path, options, fractions.size(), chunks_saved, journal != nullptr,
                        body, works, sums, final_states, [&](std::size_t done) {
                          chunks_done = done;
                          if (journal) journal->merged(view());
                        });
    } else {
      run_chunks_ordered(
          options.num_paths, options.chunk_size, options.threads, body,
          [&](ChunkRun&& r) {
            // chunk order: deterministic sums
            if (!r.trace) return;
            sums.add(*r.trace);
            if (final_states) final_states->push_back(std::move(*r.final_state));
            ++chunks_done;
            if (journal) journal->merged(view());
          },
          options.progress, options.stop);
    }
  } catch (...) {
    if (journal) journal->end_phase(view());  // a stop request, or an error: what was merged
    throw;
  }
  if (journal) journal->end_phase(view());
  return make_works(direction, fractions, sums, std::move(works), options.num_paths);
}

}  // namespace detail

// Forward annealing from exact base samples. If final_states is given it
// receives every chunk's particles at the end (for resampled reverse starts).
template <AnnealingPath Path, KernelFor<Path> Kernel>
Works anneal_forward(const Path& path, const Kernel& kernel, const Schedule& schedule,
                     const AnnealOptions& options,
                     std::vector<typename Path::Batch>* final_states = nullptr) {
  const detail::ChunkStart<typename Path::Batch> base = [&](typename Path::Batch& batch,
                                                            const ChunkRange& c) {
    path.sample_base(batch, BatchRandom{options.seed, Purpose::base_sample, 0, c.begin});
  };
  return detail::anneal(path, detail::AppliedKernel<Path>(kernel), schedule, options,
                        Direction::forward, base, final_states);
}

// Reverse annealing with the kernel's time reversal. start(batch, streams) fills the batch
// with (approximate) samples of the target for the particles streams.range(), drawing from
// streams.random(0), streams.random(1), ...
template <AnnealingPath Path, KernelFor<Path> Kernel, class Start>
requires std::invocable<const Start&, typename Path::Batch&, const ChunkStreams&> Works
anneal_reverse(const Path& path, const Kernel& kernel, const Schedule& schedule, const Start& start,
               const AnnealOptions& options) {
  const detail::ChunkStart<typename Path::Batch> from_start = [&](typename Path::Batch& batch,
                                                                  const ChunkRange& c) {
    start(batch, ChunkStreams(options.seed, Purpose::reverse_start, c));
  };
  const auto reversed = reversal_of(kernel);
  return detail::anneal(path, detail::AppliedKernel<Path>(reversed), schedule, options,
                        Direction::reverse, from_start, nullptr);
}

}  // namespace logz
