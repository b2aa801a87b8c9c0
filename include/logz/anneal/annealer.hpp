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
// gives bitwise-identical results for any thread count.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "logz/anneal/anneal_journal.hpp"
#include "logz/anneal/anneal_step.hpp"
#include "logz/anneal/works.hpp"
#include "logz/core/annealing_path.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/chunk_streams.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct AnnealOptions {
  std::size_t num_paths = 100;
  std::uint64_t seed = 0;
  int threads = 0;             // 0 = all hardware threads
  std::size_t chunk_size = 8;  // particles per chunk (fixes the reduction order)
  ChunkProgress progress;      // after each chunk: (chunks done, chunks in all)
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

// One implementation for both directions: start(batch, chunk) puts the chunk's particles at
// the direction's first temperature; the kernel is applied as given.
template <class Path, class Kernel, class Start>
Works anneal(const Path& path, const Kernel& kernel, const Schedule& schedule, const AnnealOptions& options,
             Direction direction, const Start& start, std::vector<typename Path::Batch>* final_states) {
  using Batch = typename Path::Batch;
  const auto fractions = schedule.fractions();
  const std::size_t last = fractions.size() - 1;
  const bool forward = direction == Direction::forward;
  // Schedule index of the j-th temperature visited.
  auto index = [&](std::size_t j) { return forward ? j : last - j; };
  const Purpose kernel_purpose = forward ? Purpose::forward_kernel : Purpose::reverse_kernel;
  struct ChunkRun {
    std::optional<ChunkTrace> trace;  // none for a chunk a resumed phase already holds
    std::optional<Batch> final_state;
  };
  // Works go straight to their paths' places; per-temperature traces are summed in chunk order
  // as chunks finish (run_chunks_ordered), so a long schedule keeps a few traces, not one per
  // chunk.
  std::vector<double> works(options.num_paths);
  ChunkTrace sums(fractions.size());
  if (final_states) final_states->clear();
  // A checkpointed run (anneal/anneal_journal.hpp): the chunks a resumed phase holds are taken
  // from it, not run again.
  AnnealJournal* journal = current_anneal_journal();
  const AnnealPhaseShape shape{options.num_paths, options.chunk_size, num_chunks(options.num_paths, options.chunk_size),
                               fractions.size()};
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
    return AnnealPhaseView{shape, chunks_done, std::span<const double>(works).first(paths), sums.energy_sum,
                           sums.attempted, sums.accepted};
  };
  try {
    run_chunks_ordered(options.num_paths, options.chunk_size, options.threads, [&](const ChunkRange& c) {
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
        const auto info = anneal_step(path, kernel, state, fractions[k],
                                      BatchRandom{options.seed, kernel_purpose, static_cast<std::uint32_t>(k), c.begin});
        if (j == last) break;  // no transition at the end of the path
        trace.attempted[k] += info.attempted;
        trace.accepted[k] += info.accepted;
        trace.add_energies(k, state.trace);
      }
      std::copy(state.work.begin(), state.work.end(), works.begin() + static_cast<std::ptrdiff_t>(c.begin));
      if (final_states) run.final_state.emplace(std::move(state.batch));
      return run;
    }, [&](ChunkRun&& r) {  // chunk order: deterministic sums
      if (!r.trace) return;
      sums.add(*r.trace);
      if (final_states) final_states->push_back(std::move(*r.final_state));
      ++chunks_done;
      if (journal) journal->merged(view());
    }, options.progress);
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
  auto base = [&](typename Path::Batch& batch, const ChunkRange& c) {
    path.sample_base(batch, BatchRandom{options.seed, Purpose::base_sample, 0, c.begin});
  };
  return detail::anneal(path, kernel, schedule, options, Direction::forward, base, final_states);
}

// Reverse annealing with the kernel's time reversal. start(batch, streams) fills the batch
// with (approximate) samples of the target for the particles streams.range(), drawing from
// streams.random(0), streams.random(1), ...
template <AnnealingPath Path, KernelFor<Path> Kernel, class Start>
  requires std::invocable<const Start&, typename Path::Batch&, const ChunkStreams&>
Works anneal_reverse(const Path& path, const Kernel& kernel, const Schedule& schedule,
                     const Start& start, const AnnealOptions& options) {
  auto from_start = [&](typename Path::Batch& batch, const ChunkRange& c) {
    start(batch, ChunkStreams(options.seed, Purpose::reverse_start, c));
  };
  return detail::anneal(path, reversal_of(kernel), schedule, options, Direction::reverse, from_start, nullptr);
}

}  // namespace logz
