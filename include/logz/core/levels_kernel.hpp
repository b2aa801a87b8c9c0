// The tempering extension of a kernel that steps a batch whose particles sit at different
// path fractions of a path in one call (e.g. block Gibbs with one GEMM per half-sweep):
//   Info step_levels(const Path& path, std::span<const double> t, Batch& batch,
//                    const BatchRandom& random) const;
// particle p moves as step(path.at(t[p]), ...) would move it alone. A kernel opts in with
// `static constexpr bool provides_step_levels = true;`; opting in without a step_levels that
// takes the path in use is a compile error.
#pragma once

#include <span>

#include "logz/core/kernel_for.hpp"
#include "logz/core/opt_in.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class K, class P>
concept LevelsKernelFor = requires(const K& kernel, const P& path, std::span<const double> t,
                                   typename P::Batch& batch, const BatchRandom& random) {
  { kernel.step_levels(path, t, batch, random) } -> KernelStepInfo;
};

// True when K opts in; then it steps P's batches at per-particle fractions.
template <class K, class P>
inline constexpr bool uses_step_levels = [] {
  constexpr bool on = declared<K>(
      []<class U>() -> decltype(U::provides_step_levels) { return U::provides_step_levels; });
  static_assert(
      !on || LevelsKernelFor<K, P>,
      "provides_step_levels = true needs the member step_levels(const Path& path, "
      "std::span<const double> t, Batch& batch, const BatchRandom& random) const returning "
      "attempted/accepted counts");
  return on;
}();

}  // namespace logz
