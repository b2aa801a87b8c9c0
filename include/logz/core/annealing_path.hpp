// An annealing path: a model with its base, seen by the drivers as
//   typename P::Batch                       the particles of one chunk (num_particles())
//   make_batch(n) -> Batch                  n particles
//   sample_base(Batch&, const BatchRandom&) exact draws of the base (t = 0)
//   work_increment(t_from, t_to, const Batch&, std::span<double> out)
//                                           U_{t_to}(x) - U_{t_from}(x) of every particle
//   trace_energy(const Batch&, std::span<double> out)   the hysteresis trace
//   at(t)                                   the target a kernel steps on at path fraction t
// where t in [0, 1] is the path fraction (not the model's inverse temperature).
//
// Opt-in: a path whose U_t is linear in t and whose trace energy is the slope dU_t/dt
// declares `static constexpr bool trace_is_slope = true;` and the annealer then forms each
// work increment from the trace it took of the same state, saving a pass over the particles.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>

#include "logz/core/opt_in.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class P>
concept AnnealingPath = requires(const P& path, typename P::Batch& batch,
                                 const typename P::Batch& state, const BatchRandom& random,
                                 double t, std::size_t n, std::span<double> out) {
  { path.make_batch(n) } -> std::same_as<typename P::Batch>;
  { state.num_particles() } -> std::convertible_to<std::size_t>;
  path.sample_base(batch, random);
  path.work_increment(t, t, state, out);
  path.trace_energy(state, out);
  path.at(t);
};

// True when P opts in with `static constexpr bool trace_is_slope = true;`.
template <class P>
inline constexpr bool path_trace_is_slope =
    declared<P>([]<class U>() -> decltype(U::trace_is_slope) { return U::trace_is_slope; });

}  // namespace logz
