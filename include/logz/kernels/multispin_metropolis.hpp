// Checkerboard single-site Metropolis on 64 Ising particles at once: multi-spin coding
// (particles packed bitwise, models/packed_spin_batch.hpp). Every particle of a group sits at
// the same temperature and site, so one site update of the whole group is a few bitwise
// operations: the anti-aligned neighbours of each lane, counted bitwise, give its energy change,
// and each lane accepts with probability min(1, exp(-Delta E)) by comparing its own uniform
// 32-bit number with the same 32-bit threshold as SpinFlipMetropolis, the comparison made bit
// by bit from the most significant end on all lanes at once and stopped when every lane is
// decided (eight random words per site, rarely more). Lanes never share a random bit, so the
// particles are independent chains, each with the law of SpinFlipMetropolis in checkerboard
// order (not its random numbers).
//
// One step is a sweep (colour 0 then colour 1, the reversed kernel the exact opposite order).
// The sweeps run vectorised across groups of 64 particles (kernels/multispin_ising_sweeps.hpp):
// at every site visit group g takes the comparison's first eight words from random.stream(64 g)
// and any further ones from random.stream(64 g + 1), so results do not depend on the thread
// count, the vector width, or the chunk size when chunks hold multiples of 64 particles.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_kernel.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/models/packed_ising_field_path.hpp"
#include "logz/models/packed_spin_batch.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class MultiSpinMetropolis : public SiteKernel<MultiSpinMetropolis> {
 public:
  // order must be SiteOrder::checkerboard (InvalidArgument otherwise); steps are sweeps.
  MultiSpinMetropolis(SiteOrder order, std::size_t sweeps, bool reversed = false);

  // Applies the kernel to every particle of the batch and brings their bond sums up to date.
  KernelInfo step(const IsingTarget& target, PackedSpinBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  // With a field on the +1 spins (the field path): ten classes of flips, (spin, anti-aligned
  // neighbours), instead of two; also brings the +1 spins' counts up to date.
  KernelInfo step(const IsingFieldTarget& target, PackedFieldSpinBatch& batch,
                  const BatchRandom& random, StopToken stop = {}) const;
};

static_assert(KernelFor<MultiSpinMetropolis, PackedIsingModel>);
static_assert(KernelFor<MultiSpinMetropolis, PackedIsingFieldPath>);

}  // namespace logz
