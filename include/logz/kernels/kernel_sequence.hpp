// A mixture of two kernels: First then Second at the same target, each step. Each leaves the
// target invariant, so their composition does too; it is not reversible, and its time reversal
// (what reverse annealing applies) runs Second's reversal, then First's. Second draws from
// streams of its own (BatchRandom::for_second_kernel). The lattice services use it to follow a
// cluster move with local heat-bath sweeps ([kernel] local_sweeps), which decorrelate the
// short-wavelength part of the energy that cluster moves leave slow.
#pragma once

#include <utility>

#include "logz/core/kernel_for.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class First, class Second>
class KernelSequence {
 public:
  KernelSequence(First first, Second second, bool reversed = false)
      : first_(std::move(first)), second_(std::move(second)), reversed_(reversed) {}

  // Each kernel is given `stop` where it takes one (core/kernel_for.hpp).
  template <class Target, class Batch>
  auto step(const Target& target, Batch& batch, const BatchRandom& random,
            StopToken stop = {}) const {
    if (!reversed_) {
      auto info = step_kernel(first_, target, batch, random, stop);
      info += step_kernel(second_, target, batch, random.for_second_kernel(), stop);
      return info;
    }
    auto info = step_kernel(reversal_of(second_), target, batch, random.for_second_kernel(), stop);
    info += step_kernel(reversal_of(first_), target, batch, random, stop);
    return info;
  }
  KernelSequence reversed() const { return KernelSequence(first_, second_, !reversed_); }

  const First& first() const { return first_; }
  const Second& second() const { return second_; }

 private:
  First first_;
  Second second_;
  bool reversed_;
};

}  // namespace logz
