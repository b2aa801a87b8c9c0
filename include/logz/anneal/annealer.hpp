// The annealing driver: moves chunks of particles along a schedule, forward
// from exact base samples or in reverse from (approximate) target samples,
// and records works and traces (anneal/works.hpp).
//
// A Path (a model with its base) provides
//   Batch make_batch(n); sample_base(Batch&, BatchRandom);
//   work_increment(t_from, t_to, const Batch&, span<double>);  // U_to(x) - U_from(x)
//   trace_energy(const Batch&, span<double>);  at(t) -> the target a kernel steps on.
// A path whose U_t is linear in t and whose trace energy is the slope dU_t/dt may
// declare `static constexpr bool trace_is_slope = true`: the driver then forms each
// work increment from the trace it has just taken of the same state (the same
// product work_increment would compute), which saves a pass over the particles.
// A Kernel provides KernelInfo step(target, Batch&, BatchRandom) and, if it is
// not reversible, reversed() (the time reversal that reverse runs apply).
// Chunks are fixed by num_paths and chunk_size; every particle draws from its
// own Philox stream; per-chunk sums are reduced in chunk order. Hence the same
// seed gives bitwise-identical results for any thread count.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/parallel/parallel_for.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct AnnealOptions {
  std::size_t num_paths = 100;
  std::uint64_t seed = 0;
  int threads = 0;             // 0 = all hardware threads
  std::size_t chunk_size = 8;  // particles per chunk (fixes the reduction order)
  // Called by worker threads after each chunk with (chunks done, chunks in all).
  std::function<void(std::size_t, std::size_t)> progress;
};

namespace detail {

struct ChunkTrace {
  std::vector<double> energy_sum;
  std::vector<std::uint64_t> attempted, accepted;
  explicit ChunkTrace(std::size_t n) : energy_sum(n, 0.0), attempted(n, 0), accepted(n, 0) {}
};

template <class Path>
inline constexpr bool trace_is_slope = [] {
  if constexpr (requires { Path::trace_is_slope; })
    return static_cast<bool>(Path::trace_is_slope);
  else
    return false;
}();

// U_to(x) - U_from(x) of every particle; `trace` holds the trace energies of the same states.
template <class Path, class Batch>
void work_increment(const Path& path, double t_from, double t_to, const Batch& batch,
                    std::span<const double> trace, std::span<double> out) {
  if constexpr (trace_is_slope<Path>) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = trace[i] * (t_to - t_from);
  } else {
    path.work_increment(t_from, t_to, batch, out);
  }
}

template <class Kernel>
auto reversal_of(const Kernel& kernel) {
  if constexpr (requires { kernel.reversed(); })
    return kernel.reversed();
  else
    return kernel;
}

[[noreturn]] void fail_non_finite_work(Direction d, std::size_t particle, std::size_t k,
                                       double t, double increment);

// Adds the traces of all chunks in chunk order and writes the per-path works.
Works reduce_chunks(Direction d, std::span<const double> betas, const std::vector<ChunkTrace>& traces,
                    std::vector<double> works, std::size_t num_paths);

}  // namespace detail

// Forward annealing from exact base samples. If final_states is given it
// receives every chunk's particles at the end (for resampled reverse starts).
template <class Path, class Kernel>
Works anneal_forward(const Path& path, const Kernel& kernel, const Schedule& schedule,
                     const AnnealOptions& options,
                     std::vector<typename Path::Batch>* final_states = nullptr) {
  const auto betas = schedule.betas();
  const std::size_t num_k = betas.size(), n_chunks = num_chunks(options.num_paths, options.chunk_size);
  std::vector<double> works(options.num_paths, 0.0);
  std::vector<detail::ChunkTrace> traces(n_chunks, detail::ChunkTrace(num_k));
  std::vector<std::optional<typename Path::Batch>> finals(final_states ? n_chunks : 0);
  std::atomic<std::size_t> done{0};
  parallel_for_chunks(options.num_paths, options.chunk_size, options.threads, [&](const ChunkRange& c) {
    auto batch = path.make_batch(c.size());
    auto& trace = traces[c.index];
    std::vector<double> buf(c.size()), energy(c.size());
    path.sample_base(batch, BatchRandom{options.seed, Purpose::base_sample, 0, c.begin});
    path.trace_energy(batch, energy);
    for (double e : energy) trace.energy_sum[0] += e;
    for (std::size_t k = 1; k < num_k; ++k) {
      detail::work_increment(path, betas[k - 1], betas[k], batch, energy, buf);
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (!std::isfinite(buf[i]))
          detail::fail_non_finite_work(Direction::forward, c.begin + i, k, betas[k], buf[i]);
        works[c.begin + i] += buf[i];
      }
      if (k + 1 == num_k) break;  // no transition is needed at the target
      const auto info = kernel.step(path.at(betas[k]), batch,
                                    BatchRandom{options.seed, Purpose::forward_kernel,
                                                static_cast<std::uint32_t>(k), c.begin});
      trace.attempted[k] += info.attempted;
      trace.accepted[k] += info.accepted;
      path.trace_energy(batch, energy);
      for (double e : energy) trace.energy_sum[k] += e;
    }
    if (final_states) finals[c.index].emplace(std::move(batch));
    if (options.progress) options.progress(++done, n_chunks);
  });
  if (final_states) {
    final_states->clear();
    for (auto& f : finals) final_states->push_back(std::move(*f));
  }
  Works w = detail::reduce_chunks(Direction::forward, betas, traces, std::move(works), options.num_paths);
  w.mean_energy.back() = kNaN;  // forward runs leave no equilibrated state at the target
  return w;
}

// Reverse annealing. start(batch, chunk) fills the batch with (approximate)
// samples of the target for the particles of that chunk.
template <class Path, class Kernel, class Start>
Works anneal_reverse(const Path& path, const Kernel& kernel, const Schedule& schedule,
                     const Start& start, const AnnealOptions& options) {
  const auto betas = schedule.betas();
  const std::size_t num_k = betas.size(), n_chunks = num_chunks(options.num_paths, options.chunk_size);
  const auto reverse_kernel = detail::reversal_of(kernel);
  std::vector<double> works(options.num_paths, 0.0);
  std::vector<detail::ChunkTrace> traces(n_chunks, detail::ChunkTrace(num_k));
  std::atomic<std::size_t> done{0};
  parallel_for_chunks(options.num_paths, options.chunk_size, options.threads, [&](const ChunkRange& c) {
    auto batch = path.make_batch(c.size());
    auto& trace = traces[c.index];
    std::vector<double> buf(c.size()), energy(c.size());
    start(batch, c);
    path.trace_energy(batch, energy);
    for (double e : energy) trace.energy_sum[num_k - 1] += e;
    for (std::size_t k = num_k - 1; k >= 1; --k) {
      detail::work_increment(path, betas[k], betas[k - 1], batch, energy, buf);
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (!std::isfinite(buf[i]))
          detail::fail_non_finite_work(Direction::reverse, c.begin + i, k, betas[k], buf[i]);
        works[c.begin + i] += buf[i];
      }
      if (k == 1) break;  // no transition is needed at the base
      const auto info = reverse_kernel.step(path.at(betas[k - 1]), batch,
                                            BatchRandom{options.seed, Purpose::reverse_kernel,
                                                        static_cast<std::uint32_t>(k - 1), c.begin});
      trace.attempted[k - 1] += info.attempted;
      trace.accepted[k - 1] += info.accepted;
      path.trace_energy(batch, energy);
      for (double e : energy) trace.energy_sum[k - 1] += e;
    }
    if (options.progress) options.progress(++done, n_chunks);
  });
  Works w = detail::reduce_chunks(Direction::reverse, betas, traces, std::move(works), options.num_paths);
  w.mean_energy.front() = kNaN;  // reverse runs leave no equilibrated state at the base
  return w;
}

}  // namespace logz
