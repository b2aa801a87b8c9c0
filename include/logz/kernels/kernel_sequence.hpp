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

  template <class Target, class Batch>
  auto step(const Target& target, Batch& batch, const BatchRandom& random) const {
    if (!reversed_) {
      auto info = first_.step(target, batch, random);
      info += second_.step(target, batch, random.for_second_kernel());
      return info;
    }
    auto info = reversal_of(second_).step(target, batch, random.for_second_kernel());
    info += reversal_of(first_).step(target, batch, random);
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
