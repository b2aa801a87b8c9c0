// Adaptive annealing schedules. A pilot run of forward paths (and, where the run has its own
// reverse start, reverse paths) on its own random numbers (so the main run that follows stays
// unbiased) measures the spread of the work increments at each of its steps; the final
// schedule then places its temperatures at equal thermodynamic length:
// with s(t) the standard deviation of the work increment per unit of path fraction, every step
// of the final schedule covers the same integral of s dt, so every step adds about the same
// variance to the works. On a linear schedule s is piecewise constant between the pilot's
// temperatures (s_j = sd_j / (t_j - t_{j-1})), and so is the placement.
//
// Any annealing path and kernel work; the pilot uses the chunks, threads and random streams of
// the annealer (under a seed of its own), so the schedule it gives, like every result, does not
// depend on the thread count. Under several ranks each rank runs the whole pilot.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/anneal/anneal_step.hpp"
#include "logz/anneal/annealer.hpp"
#include "logz/core/annealing_path.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/parallel/chunk_streams.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/paths/schedule.hpp"

namespace logz {

// What the pilot measured.
struct PilotRun {
  std::vector<double> fractions;  // the pilot's schedule, t_0 = 0 .. t_K = 1
  std::vector<double>
      increment_sd;  // per step j = 1..K (index j - 1): sd over paths of the work increment
  std::uint64_t kernel_updates = 0;  // the kernel's attempted updates (the pilot's cost)
};

// num_steps + 1 path fractions at equal thermodynamic length on the pilot's measurement. A step
// whose spread is 0 (or not finite) still gets a length of 1e-3 of the mean step's, so the
// fractions rise strictly; if every spread is 0 the schedule is linear.
Schedule constant_length_schedule(std::span<const double> fractions,
                                  std::span<const double> increment_sd, std::size_t num_steps);

// The total thermodynamic length of the pilot: the sum of its steps' spreads.
double thermodynamic_length(std::span<const double> increment_sd);

// The seed of a pilot run: a fixed scramble of the run's seed, so that pilot and run share no
// random numbers.
std::uint64_t pilot_seed(std::uint64_t seed);

namespace detail {

// One chunk's per-step increment statistics (count, mean, centred sum of squares).
struct PilotChunk {
  std::size_t count = 0;
  std::vector<double> mean, m2;
  std::uint64_t attempted = 0;
};

// The pilot in one direction: start(batch, chunk) puts a chunk's particles at the direction's
// first temperature (type-erased, as for the annealing driver), `applied` is the kernel as
// that direction applies it. Spreads are per interval of the pilot's schedule (t_{j-1}, t_j),
// whichever way it is crossed. Stopped once `stop` is requested, within a step.
template <AnnealingPath Path>
PilotRun pilot_in_direction(const Path& path, const AppliedKernel<Path>& applied,
                            const AdaptivePlan& plan, std::uint64_t s, int threads,
                            std::size_t chunk_size, Direction direction,
                            const ChunkStart<typename Path::Batch>& start,
                            const ChunkProgress& progress, StopToken stop) {
  const Schedule pilot = linear_schedule(plan.pilot_steps);
  const auto t = pilot.fractions();
  const std::size_t steps = pilot.num_steps();
  const bool forward = direction == Direction::forward;
  std::vector<double> mean(steps, 0.0), m2(steps, 0.0);
  std::size_t count = 0;
  std::uint64_t attempted = 0;
  run_chunks_ordered(
      plan.pilot_paths, chunk_size, threads,
      [&](const ChunkRange& c) {
        PilotChunk out{c.size(), std::vector<double>(steps), std::vector<double>(steps), 0};
        auto batch = path.make_batch(c.size());
        start(batch, c);
        auto state = anneal_init(path, std::move(batch), direction, c.begin);
        for (std::size_t j = 1; j <= steps; ++j) {
          const std::size_t k = forward ? j : steps - j;  // the temperature this step moves to
          const auto info = anneal_step(
              path, applied, state, t[k],
              BatchRandom{s, forward ? Purpose::forward_kernel : Purpose::reverse_kernel,
                          static_cast<std::uint32_t>(k), c.begin},
              stop);
          out.attempted += static_cast<std::uint64_t>(info.attempted);
          double m = 0.0;
          for (double x : state.increment) m += x;
          m /= static_cast<double>(c.size());
          double q = 0.0;
          for (double x : state.increment) q += (x - m) * (x - m);
          const std::size_t interval = forward ? j - 1 : k;
          out.mean[interval] = m;
          out.m2[interval] = q;
        }
        return out;
      },
      [&](PilotChunk&& c) {
        // Chan et al.'s pairwise update, in chunk order: the same bits for any thread count.
        const double n = static_cast<double>(count), nc = static_cast<double>(c.count);
        for (std::size_t j = 0; j < steps; ++j) {
          const double delta = c.mean[j] - mean[j];
          mean[j] += delta * nc / (n + nc);
          m2[j] += c.m2[j] + delta * delta * n * nc / (n + nc);
        }
        count += c.count;
        attempted += c.attempted;
      },
      progress, stop);
  PilotRun r{{t.begin(), t.end()}, std::vector<double>(steps), attempted};
  for (std::size_t j = 0; j < steps; ++j)
    r.increment_sd[j] = count > 1 ? std::sqrt(m2[j] / static_cast<double>(count - 1)) : 0.0;
  return r;
}

}  // namespace detail

// The pilot: plan.pilot_paths forward paths from exact base draws on the linear schedule of
// plan.pilot_steps steps, stopped once `stop` is requested (core/stop_request.hpp).
template <AnnealingPath Path, KernelFor<Path> Kernel>
PilotRun run_schedule_pilot(const Path& path, const Kernel& kernel, const AdaptivePlan& plan,
                            std::uint64_t seed, int threads, std::size_t chunk_size,
                            const ChunkProgress& progress = {}, StopToken stop = {}) {
  const std::uint64_t s = pilot_seed(seed);
  const detail::ChunkStart<typename Path::Batch> base = [&](typename Path::Batch& batch,
                                                            const ChunkRange& c) {
    path.sample_base(batch, BatchRandom{s, Purpose::base_sample, 0, c.begin});
  };
  return detail::pilot_in_direction(path, detail::AppliedKernel<Path>(kernel), plan, s, threads,
                                    chunk_size, Direction::forward, base, progress, stop);
}

// The same pilot in reverse, from start(batch, streams) (the run's reverse start, on the
// pilot's own streams), with the kernel's time reversal.
template <AnnealingPath Path, KernelFor<Path> Kernel, class Start>
PilotRun run_reverse_schedule_pilot(const Path& path, const Kernel& kernel,
                                    const AdaptivePlan& plan, std::uint64_t seed, int threads,
                                    std::size_t chunk_size, const Start& start,
                                    const ChunkProgress& progress = {}, StopToken stop = {}) {
  const std::uint64_t s = pilot_seed(seed);
  const detail::ChunkStart<typename Path::Batch> from_start = [&](typename Path::Batch& batch,
                                                                  const ChunkRange& c) {
    start(batch, ChunkStreams(s, Purpose::reverse_start, c));
  };
  const auto reversed = reversal_of(kernel);
  return detail::pilot_in_direction(path, detail::AppliedKernel<Path>(reversed), plan, s, threads,
                                    chunk_size, Direction::reverse, from_start, progress, stop);
}

// Forward and reverse spreads in one: the root mean square of the two per interval, so that
// temperatures go where either direction dissipates.
PilotRun combine_pilots(const PilotRun& forward, const PilotRun& reverse);

}  // namespace logz
