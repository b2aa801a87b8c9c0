// A kernel as the drivers apply it (the annealer, the adaptive schedule's pilot, population
// annealing): its step at a target of the path, type-erased so that a driver is compiled once
// per path, not once per kernel and again for its reversal (docs/performance.md, First run).
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/random/philox.hpp"

namespace logz::detail {

// The step at a target of the path, given the run's stop token where the kernel takes one
// (core/kernel_for.hpp); one indirect call per chunk and temperature, so free. The kernel must
// outlive this.
template <class Path>
class AppliedKernel {
 public:
  using Batch = typename Path::Batch;
  using Target = std::remove_cvref_t<decltype(std::declval<const Path&>().at(0.0))>;

  template <KernelFor<Path> Kernel>
  explicit AppliedKernel(const Kernel& kernel)
      : step_([&kernel](const Target& target, Batch& batch, const BatchRandom& random,
                        StopToken stop) {
          const auto info = step_kernel(kernel, target, batch, random, stop);
          return KernelInfo{static_cast<std::uint64_t>(info.attempted),
                            static_cast<std::uint64_t>(info.accepted)};
        }) {}

  KernelInfo step(const Target& target, Batch& batch, const BatchRandom& random,
                  StopToken stop = {}) const {
    return step_(target, batch, random, stop);
  }

 private:
  std::function<KernelInfo(const Target&, Batch&, const BatchRandom&, StopToken)> step_;
};

}  // namespace logz::detail
