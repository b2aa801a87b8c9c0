// The tempering extension of a path that can place every particle of a batch at its own path
// fraction: at_levels(std::span<const double> t) returns an ordinary target (particle p at
// t[p]) that any of the path's kernels steps as one batch, so simulated tempering moves a
// chunk of chains in one call instead of chain by chain. A path opts in with
// `static constexpr bool provides_at_levels = true;`; opting in without that member, or with a
// kernel that cannot step its target, is a compile error.
#pragma once

#include <span>

#include "logz/core/kernel_for.hpp"
#include "logz/core/opt_in.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class P>
concept LevelsPath = requires(const P& path, std::span<const double> t) {
  path.at_levels(t);
};

// K steps the per-particle targets of P.
template <class K, class P>
concept KernelForLevels = LevelsPath<P> &&
    requires(const K& kernel, const P& path, std::span<const double> t, typename P::Batch& batch,
             const BatchRandom& random) {
  { kernel.step(path.at_levels(t), batch, random) } -> KernelStepInfo;
};

// True when P opts in; then kernel K steps P's per-particle targets.
template <class P, class K>
inline constexpr bool uses_at_levels = [] {
  constexpr bool on = declared<P>(
      []<class U>() -> decltype(U::provides_at_levels) { return U::provides_at_levels; });
  static_assert(
      !on || LevelsPath<P>,
      "provides_at_levels = true needs the member at_levels(std::span<const double> t) const "
      "returning a target");
  static_assert(!on || KernelForLevels<K, P>,
                "the path provides_at_levels but the kernel has no step(path.at_levels(t), Batch&, "
                "const BatchRandom&) const returning attempted/accepted counts");
  return on;
}();

}  // namespace logz
