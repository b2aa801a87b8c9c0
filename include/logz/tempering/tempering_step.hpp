// The one-step transition of simulated tempering (as anneal_step is annealing's): a chunk of
// chains, each at a level k of the ladder. One sweep moves every chain with the kernel at its
// level's path fraction t_k, works out every level's energy u_k(x) = U_k(x) - U_1(x) and the
// conditional q(k | x) of Carlson et al. (2016), eq. 7, shows them to an observer, and draws
// the chain's next level from q. SimulatedTempering (tempering/simulated_tempering.hpp) runs
// these sweeps over fixed chunks and records the Rao-Blackwellized statistics from what it is
// shown; users who want their own schedule of sweeps and estimates write the loop:
//
//   auto state = tempering_init(path, num_chains, 0, ladder.size(), seed);
//   for (std::uint32_t step = 2; step < 2 + sweeps; ++step)
//     tempering_step(path, kernel, ladder, log_z_hat, state, seed, step,
//                    [&](const TemperingObservation& o) { /* o.log_q, o.deltas, ... */ });
//
// Streams are addressed by (seed, chain, step): a chain draws the same numbers whatever
// chunk it is in. Energies (core/tempering_path.hpp): for a geometric path (declared `static
// constexpr bool geometric_path = true`) u_k = t_k (U_K(x) - U_1(x)), one work_increment(0, 1)
// per sweep, and Delta = log f(x) - log p_1(x) = -(U_K(x) - U_1(x)) is what TI integrates at
// every level. Any other path opts into level_energies (core/level_energies_path.hpp), for
// all chains of a chunk at once: every level's u_k and its own TI integrand -dU_t(x)/dt at
// t_k. A sweep whose caller needs no TI integrands (integrands = false: initial iterations, runs
// without a TI estimator) leaves them out where the path can: its energies-only
// level_energies(t, batch, energies), when it has one, and empty deltas in the observation.
// Moves take the fastest way the types declare: the kernel's step_levels
// (core/levels_kernel.hpp), the path's at_levels (core/levels_path.hpp), else chain by chain;
// their acceptance is counted in all and by the level each chain was moved at (TemperingMoves).
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/level_energies_path.hpp"
#include "logz/core/levels_kernel.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/random/philox.hpp"
#include "logz/tempering/ladder.hpp"
#include "logz/tempering/level_probabilities.hpp"

namespace logz {

template <class Batch>
struct TemperingState {
  Batch batch;                       // the chains: particle i is chain first_chain + i
  std::vector<std::uint32_t> level;  // per chain: the index of its level in the ladder
  std::size_t first_chain = 0;       // the run's index of chain 0 (addresses its streams)

  // Reused from sweep to sweep.
  struct Scratch {
    std::optional<Batch> single;  // one chain, for kernels stepped chain by chain
    std::vector<double> fractions, gap, u, log_q, level_u, level_slope;
  } scratch;
};

// What one sweep saw of one chain, before its next level was drawn.
struct TemperingObservation {
  std::size_t chain;               // the run's index of the chain
  std::uint32_t level;             // the level it was moved at
  double delta;                    // -(U_K(x) - U_1(x))
  std::span<const double> deltas;  // the TI integrand: {delta} (geometric), else one per level
                                   // (empty for a path not linear in t when integrands = false)
  std::span<const double> u;       // u_k = U_k(x) - U_1(x), one per level
  std::span<const double> log_q;   // log q(k | x), one per level
};

// The x-kernel's moves: attempted and accepted in all, and by the level each chain was moved at
// where the kernel's counts can be split by chain (by_level false otherwise).
struct TemperingMoves {
  std::uint64_t accepted = 0, attempted = 0;
  bool by_level = true;
  std::vector<std::uint64_t> level_accepted, level_attempted;  // per level; shorter: zeros beyond

  void add_at_level(std::uint32_t level, std::uint64_t level_attempts,
                    std::uint64_t level_accepts) {
    if (level >= level_attempted.size())
      level_attempted.resize(level + 1), level_accepted.resize(level + 1);
    level_attempted[level] += level_attempts;
    level_accepted[level] += level_accepts;
  }
  TemperingMoves& operator+=(const TemperingMoves& o) {
    accepted += o.accepted;
    attempted += o.attempted;
    by_level = by_level && o.by_level;
    for (std::size_t k = 0; k < o.level_attempted.size(); ++k)
      add_at_level(static_cast<std::uint32_t>(k), o.level_attempted[k], o.level_accepted[k]);
    return *this;
  }
};

// A batch whose kernels count each particle's accepted moves while `accepted_moves` has one
// entry per particle (ContinuousBatch; the drivers leave it empty where nothing reads it).
template <class Batch>
concept CountsAcceptedMoves = requires(Batch& b) {
  { b.accepted_moves } -> std::same_as<std::vector<std::uint32_t>&>;
};

// Every chain at a fresh level drawn uniformly from stream (seed, chain, tempering_start, step);
// states kept (section 2.4).
template <class Batch>
void redraw_levels_uniform(TemperingState<Batch>& state, std::size_t num_levels, std::uint64_t seed,
                           std::uint32_t step) {
  for (std::size_t i = 0; i < state.level.size(); ++i) {
    RandomStream rng(seed, state.first_chain + i, Purpose::tempering_start, step);
    state.level[i] = rng.below(static_cast<std::uint32_t>(num_levels));
  }
}

// Chains first_chain, ..., first_chain + num_chains - 1 from exact base samples (streams (seed,
// chain, tempering_start, 0)) at levels drawn uniformly at `level_step`.
template <TemperingPath Path>
TemperingState<typename Path::Batch> tempering_init(const Path& path, std::size_t num_chains,
                                                    std::size_t first_chain, std::size_t num_levels,
                                                    std::uint64_t seed,
                                                    std::uint32_t level_step = 1) {
  TemperingState<typename Path::Batch> state{
      path.make_batch(num_chains), std::vector<std::uint32_t>(num_chains), first_chain, {}};
  path.sample_base(state.batch, BatchRandom{seed, Purpose::tempering_start, 0, first_chain});
  redraw_levels_uniform(state, num_levels, seed, level_step);
  return state;
}

namespace detail {

// What simulated tempering needs of a path and a kernel, stated where they are first used.
template <class Path, class Kernel>
constexpr void require_tempering_types() {
  static_assert(
      is_geometric_path<Path> || uses_level_energies<Path>,
      "simulated tempering needs every level's energy: declare `static constexpr bool "
      "geometric_path = "
      "true;` (U_t linear in t) or `static constexpr bool provides_level_energies = true;` with "
      "level_energies(t, batch, energies, slopes)");
  static_assert(TemperingPath<Path>,
                "Path needs Batch, make_batch(n), sample_base(Batch&, const BatchRandom&) "
                "and at(t) (core/tempering_path.hpp)");
  static_assert(KernelFor<Kernel, Path>,
                "Kernel needs step(path.at(t), Batch&, const BatchRandom&) const "
                "returning attempted/accepted counts (core/kernel_for.hpp)");
}

// A batched step's counts split over its chains' levels: each chain an equal share of the
// attempts, and its own accepted moves where the batch counted them (and they add up to the
// step's), else all or none where the step accepted all (a Gibbs kernel) or none; otherwise the
// split is unknown (by_level false).
template <class Batch, class Info>
void split_by_level(const Info& info, const TemperingState<Batch>& state, TemperingMoves& moves) {
  const std::size_t n = state.level.size();
  if (n == 0) return;
  const auto attempted = static_cast<std::uint64_t>(info.attempted);
  const auto accepted = static_cast<std::uint64_t>(info.accepted);
  const std::vector<std::uint32_t>* counts = nullptr;
  if constexpr (CountsAcceptedMoves<Batch>) {
    const std::vector<std::uint32_t>& c = state.batch.accepted_moves;
    std::uint64_t sum = 0;
    for (std::uint32_t x : c) sum += x;
    if (c.size() == n && sum == accepted) counts = &c;
  }
  if (attempted % n != 0 || (!counts && accepted != 0 && accepted != attempted)) {
    moves.by_level = false;
    return;
  }
  const std::uint64_t each = attempted / n;
  for (std::size_t i = 0; i < n; ++i)
    moves.add_at_level(state.level[i], each, counts ? (*counts)[i] : (accepted == 0 ? 0 : each));
}

// A NumericalError raised inside the model or the kernel while it moved chains first_chain ..
// first_chain + num_chains - 1 (a user's function giving NaN, say), thrown again with where.
[[noreturn]] inline void fail_in_sweep(const NumericalError& e, std::size_t first_chain,
                                       std::size_t num_chains, std::uint32_t step) {
  std::ostringstream m;
  m << "simulated tempering, chains " << first_chain << " - " << first_chain + num_chains - 1
    << " (particle i of the batch is chain " << first_chain << " + i), moved at step " << step
    << ": " << e.what();
  throw NumericalError(m.str());
}

// One kernel step per chain at its own level, the fastest way the types declare: a kernel that
// steps a batch at per-particle fractions (step_levels), a path whose at_levels target any
// kernel steps as one batch (its cached energies kept), else each chain alone. Chain
// first_chain + i draws from the same stream (seed, chain, tempering_kernel, step) in every case.
// The moves are added to `moves` (a chunk's tally, kept across sweeps: its level counts are
// sized once, not allocated each sweep). A kernel that takes the run's stop token is given it.
template <class Path, class Kernel>
void move_chains(const Path& path, const Kernel& kernel, const TemperingLadder& ladder,
                 TemperingState<typename Path::Batch>& state, std::uint64_t seed,
                 std::uint32_t step, TemperingMoves& moves, StopToken stop) {
  auto tally = [&](const auto& info) {
    moves.accepted += static_cast<std::uint64_t>(info.accepted);
    moves.attempted += static_cast<std::uint64_t>(info.attempted);
  };
  auto& s = state.scratch;
  const std::size_t n = state.level.size();
  const BatchRandom random{seed, Purpose::tempering_kernel, step, state.first_chain};
  if constexpr (uses_step_levels<Kernel, Path> || uses_at_levels<Path, Kernel>) {
    s.fractions.resize(n);
    for (std::size_t i = 0; i < n; ++i) s.fractions[i] = ladder.fraction(state.level[i]);
    if constexpr (CountsAcceptedMoves<typename Path::Batch>)
      state.batch.accepted_moves.assign(n, 0);
    auto batched = [&](const auto& info) {
      tally(info);
      split_by_level(info, state, moves);
    };
    try {
      if constexpr (uses_step_levels<Kernel, Path>)
        batched(kernel.step_levels(path, s.fractions, state.batch, random));
      else
        batched(step_kernel(kernel, path.at_levels(s.fractions), state.batch, random, stop));
    } catch (const NumericalError& e) {
      fail_in_sweep(e, state.first_chain, n, step);
    }
    if constexpr (CountsAcceptedMoves<typename Path::Batch>) state.batch.accepted_moves.clear();
  } else {
    if (!s.single) s.single.emplace(path.make_batch(1));
    for (std::size_t i = 0; i < n; ++i) {
      s.single->copy_particle(state.batch, i, 0);
      const auto info = [&] {
        try {
          return step_kernel(
              kernel, path.at(ladder.fraction(state.level[i])), *s.single,
              BatchRandom{seed, Purpose::tempering_kernel, step, state.first_chain + i}, stop);
        } catch (const NumericalError& e) {
          fail_in_sweep(e, state.first_chain + i, 1, step);
        }
      }();
      tally(info);
      moves.add_at_level(state.level[i], static_cast<std::uint64_t>(info.attempted),
                         static_cast<std::uint64_t>(info.accepted));
      state.batch.copy_particle(*s.single, 0, i);
    }
  }
}

// A non-finite energy at a chain's new state, named as annealing names one: the chain, the sweep,
// and the level (inverse temperature t_k) the kernel moved it at.
[[noreturn]] inline void fail_non_finite_energy(std::size_t chain, std::uint32_t step,
                                                std::uint32_t level,
                                                const TemperingLadder& ladder) {
  std::ostringstream m;
  m << "simulated tempering: non-finite energy for chain " << chain << " at step " << step
    << ", moved at level " << level << " of " << ladder.size()
    << " (path fraction t = " << ladder.fraction(level)
    << "): the model's energy is not finite there";
  throw NumericalError(m.str());
}

// The second half of a sweep, after the kernel's moves: every chain's level probabilities
// observed and a new level drawn (tempering_step; log_z_hat has one value per level).
template <class Path, class Observe>
void move_levels(const Path& path, const TemperingLadder& ladder, std::span<const double> log_z_hat,
                 TemperingState<typename Path::Batch>& state, std::uint64_t seed,
                 std::uint32_t step, Observe&& observe, bool integrands) {
  const std::size_t k_levels = ladder.size();
  auto& s = state.scratch;
  const std::size_t n = state.level.size();
  s.u.resize(k_levels);
  s.log_q.resize(k_levels);
  if constexpr (is_geometric_path<Path>) {
    s.gap.resize(n);
    path.work_increment(0.0, 1.0, state.batch, s.gap);
  } else if constexpr (LevelEnergiesOnlyPath<Path>) {
    if (integrands)
      path.level_energies(ladder.fractions(), state.batch, s.level_u, s.level_slope);
    else
      path.level_energies(ladder.fractions(), state.batch, s.level_u);
  } else {
    path.level_energies(ladder.fractions(), state.batch, s.level_u, s.level_slope);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t chain = state.first_chain + i;
    std::span<const double> deltas;
    double delta;
    if constexpr (is_geometric_path<Path>) {
      for (std::size_t k = 0; k < k_levels; ++k) s.u[k] = ladder.fraction(k) * s.gap[i];
      delta = -s.u[k_levels - 1];
      deltas = std::span<const double>(&delta, 1);
    } else {
      for (std::size_t k = 0; k < k_levels; ++k) s.u[k] = s.level_u[i * k_levels + k];
      if (integrands)
        deltas = std::span<const double>(s.level_slope).subspan(i * k_levels, k_levels);
      delta = -s.u[k_levels - 1];
    }
    bool finite = std::isfinite(delta);
    for (double x : deltas) finite = finite && std::isfinite(x);
    for (double x : s.u) finite = finite && std::isfinite(x);
    if (!finite) fail_non_finite_energy(chain, step, state.level[i], ladder);
    level_log_probabilities(s.u, ladder.log_prior(), log_z_hat, s.log_q);
    observe(TemperingObservation{chain, state.level[i], delta, deltas, s.u, s.log_q});
    RandomStream rng(seed, chain, Purpose::tempering_level, step);
    state.level[i] = static_cast<std::uint32_t>(draw_level(s.log_q, rng.uniform()));
  }
}

}  // namespace detail

// One sweep of every chain of `state` (see the top of this file); observe(TemperingObservation)
// is called chain by chain. Throws NumericalError naming the chain, step and level on a
// non-finite energy. integrands = false: the observer does not need the TI integrands (see the
// top). Throws Stopped when `stop` (the run's, core/stop_request.hpp) is requested.
template <class Path, class Kernel, class Observe>
TemperingMoves tempering_step(const Path& path, const Kernel& kernel, const TemperingLadder& ladder,
                              std::span<const double> log_z_hat,
                              TemperingState<typename Path::Batch>& state, std::uint64_t seed,
                              std::uint32_t step, Observe&& observe, bool integrands = true,
                              StopToken stop = {}) {
  detail::require_tempering_types<Path, Kernel>();
  stop.throw_if_requested();  // Ctrl-C: a run stops within a sweep
  if (log_z_hat.size() != ladder.size())
    fail_argument("logz::tempering_step", "log_z_hat", "one value per temperature");
  TemperingMoves moves;
  detail::move_chains(path, kernel, ladder, state, seed, step, moves, stop);
  detail::move_levels(path, ladder, log_z_hat, state, seed, step, observe, integrands);
  return moves;
}

namespace detail {

// A kernel's moves of a chunk's chains (move_chains, adding to the chunk's tally), type-erased:
// called once per chunk and sweep, it lets the tempering driver be compiled once per path rather
// than once per kernel. The path and kernel must outlive it.
template <class Path>
using ChainMoves = std::function<void(const TemperingLadder&, TemperingState<typename Path::Batch>&,
                                      std::uint64_t seed, std::uint32_t step, TemperingMoves& moves,
                                      StopToken stop)>;

template <class Path, class Kernel>
ChainMoves<Path> chain_moves(const Path& path, const Kernel& kernel) {
  require_tempering_types<Path, Kernel>();
  return [&path, &kernel](const TemperingLadder& ladder,
                          TemperingState<typename Path::Batch>& state, std::uint64_t seed,
                          std::uint32_t step, TemperingMoves& moves, StopToken stop) {
    move_chains(path, kernel, ladder, state, seed, step, moves, stop);
  };
}

}  // namespace detail

}  // namespace logz
