// A Markov kernel for a path's targets: `const` step(target, batch, random) that moves every
// particle of the batch, leaving the target at(t) invariant, with particle p drawing from
// random.stream(p); it returns what it did (attempted and accepted updates, KernelInfo or a
// richer type such as ContinuousKernelInfo). A kernel that is not reversible also offers
// reversed(), its time reversal, which reverse annealing applies. A kernel whose one step may
// run for seconds (the lattice kernels: many sweeps in one step) also takes the run's stop token
// as a fourth argument, step(target, batch, random, stop), and checks it inside the step.
#pragma once

#include <concepts>

#include "logz/core/stop_request.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// What a kernel step reports: counts that add up to acceptance rates.
template <class I>
concept KernelStepInfo = std::default_initializable<I> && requires(const I& info) {
  { info.attempted } -> std::convertible_to<double>;
  { info.accepted } -> std::convertible_to<double>;
};

template <class K, class P>
concept KernelFor = requires(const K& kernel, const P& path, typename P::Batch& batch,
                             const BatchRandom& random, double t) {
  { kernel.step(path.at(t), batch, random) } -> KernelStepInfo;
};

// kernel.step(target, batch, random), given the run's stop token where the kernel takes one.
template <class K, class Target, class Batch>
auto step_kernel(const K& kernel, const Target& target, Batch& batch, const BatchRandom& random,
                 StopToken stop) {
  if constexpr (requires { kernel.step(target, batch, random, stop); })
    return kernel.step(target, batch, random, stop);
  else
    return kernel.step(target, batch, random);
}

// The kernel that reverse runs apply: kernel.reversed() where the kernel has one, else itself.
template <class K>
auto reversal_of(const K& kernel) {
  if constexpr (requires { kernel.reversed(); })
    return kernel.reversed();
  else
    return kernel;
}

}  // namespace logz
