// The one-step transition of annealing (as BlackJAX's and TFP's init + step): a batch of
// particles at path fraction t with their accumulated works. One step to t_next adds every
// particle's work increment U_{t_next}(x) - U_t(x) at fixed x, then moves the particles with
// the kernel at t_next, except at the end of the path (t_next = 1 forward, 0 in reverse),
// where no state is needed. The annealer (anneal/annealer.hpp) runs a schedule of these
// steps; users who want adaptive schedules or SMC-style resampling write their own loop:
//
//   auto state = anneal_init(path, std::move(batch), Direction::forward);
//   for (std::size_t k = 1; k <= K; ++k)
//     anneal_step(path, kernel, state, t[k], streams.random(k), stop);
//
// Sign convention (anneal/works.hpp): forward works are W_f = sum_k [U_k(x) - U_{k-1}(x)],
// reverse works W_r = sum_k [U_{k-1}(x) - U_k(x)]: in both directions the increment is the new
// energy minus the old one at the same state.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/core/annealing_path.hpp"
#include "logz/core/error.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class Batch>
struct AnnealingState {
  Batch batch;                               // the particles
  std::vector<double> work;                  // per particle: the work accumulated so far
  std::vector<double> trace;                 // per particle: trace_energy of the current state
  double t = 0.0;                            // the path fraction the particles are at
  Direction direction = Direction::forward;  // forward ends at t = 1, reverse at t = 0
  std::size_t first_particle = 0;  // the run's index of particle 0 (names paths in errors)
  std::size_t steps = 0;           // steps taken (names the step in errors)
  std::vector<double> increment;   // the last step's work increments
};

namespace detail {

[[noreturn]] void fail_non_finite_work(Direction d, std::size_t particle, std::size_t step,
                                       double t_from, double t_to, double increment);
// A NumericalError raised inside the model or the kernel (a user's function giving NaN, say),
// thrown again with where it happened: the direction, the chunk's paths and the temperature.
[[noreturn]] void fail_in_step(const NumericalError& e, Direction d, std::size_t first_particle,
                               std::size_t num_particles, std::size_t step, double t);

}  // namespace detail

// Particles at the start of the path: t = 0 forward (exact base draws), t = 1 in reverse
// (approximate target draws). Takes the first trace and sets the works to zero.
template <AnnealingPath Path>
AnnealingState<typename Path::Batch> anneal_init(const Path& path, typename Path::Batch batch,
                                                 Direction direction = Direction::forward,
                                                 std::size_t first_particle = 0) {
  const std::size_t n = batch.num_particles();
  AnnealingState<typename Path::Batch> state{std::move(batch),
                                             std::vector<double>(n, 0.0),
                                             std::vector<double>(n),
                                             direction == Direction::forward ? 0.0 : 1.0,
                                             direction,
                                             first_particle,
                                             0,
                                             std::vector<double>(n)};
  try {
    path.trace_energy(state.batch, state.trace);
  } catch (const NumericalError& e) {
    detail::fail_in_step(e, direction, first_particle, n, 0, state.t);
  }
  return state;
}

// One step from state.t to t_next (see above); particle p draws from random.stream(p).
// Returns the kernel's report (empty at the end of the path). Throws NumericalError naming the
// path and the step where a work increment is not finite, and adds the chunk's paths and the
// step to a NumericalError from the model or the kernel. Throws Stopped when `stop` (the run's,
// core/stop_request.hpp) is requested, before the step and, for a kernel that takes it, inside.
template <AnnealingPath Path, KernelFor<Path> Kernel>
auto anneal_step(const Path& path, const Kernel& kernel,
                 AnnealingState<typename Path::Batch>& state, double t_next,
                 const BatchRandom& random, StopToken stop = {}) {
  using Info = decltype(kernel.step(path.at(t_next), state.batch, random));
  stop.throw_if_requested();  // Ctrl-C: a run stops within a step
  std::vector<double>& increment = state.increment;
  if constexpr (path_trace_is_slope<Path>) {
    // U_t linear in t with slope trace: the same product work_increment computes.
    for (std::size_t i = 0; i < increment.size(); ++i)
      increment[i] = state.trace[i] * (t_next - state.t);
  } else {
    path.work_increment(state.t, t_next, state.batch, increment);
  }
  for (std::size_t i = 0; i < increment.size(); ++i) {
    if (!std::isfinite(increment[i]))
      detail::fail_non_finite_work(state.direction, state.first_particle + i, state.steps + 1,
                                   state.t, t_next, increment[i]);
    state.work[i] += increment[i];
  }
  state.t = t_next;
  ++state.steps;
  if (t_next == (state.direction == Direction::forward ? 1.0 : 0.0)) return Info{};
  try {
    const Info info = step_kernel(kernel, path.at(t_next), state.batch, random, stop);
    path.trace_energy(state.batch, state.trace);
    return info;
  } catch (const NumericalError& e) {
    detail::fail_in_step(e, state.direction, state.first_particle, increment.size(), state.steps,
                         t_next);
  }
}

}  // namespace logz
