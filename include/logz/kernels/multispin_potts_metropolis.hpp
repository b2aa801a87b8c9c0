// Checkerboard single-site Metropolis on 64 Potts particles at once: multi-spin coding with the
// colours bit-sliced (models/packed_colour_batch.hpp). Each lane proposes another colour from its
// own random bits: where q - 1 is a power of two, one of the other q - 1 uniformly; else its colour
// plus an offset mod q, +-1 .. +-m with m the largest power of two <= (q - 1) / 2, all equally
// likely (a symmetric proposal from whole bits: for q = 10 a sign and two bits, where a uniform
// one among 9 would need an exact Bernoulli(8/9) of eight or more words), counts
// its equal neighbours for the old and the new colour with bitwise operations, and accepts with
// probability min(1, exp(K d)) by comparing its own uniform 32-bit number with the same 32-bit
// threshold as PottsMetropolis, bit by bit from the top on all lanes at once
// (kernels/multispin_metropolis.hpp explains the comparison). Lanes never share a random bit:
// the particles are independent chains with PottsMetropolis's target and acceptance in
// checkerboard order (with the uniform proposal, its law; never its random numbers).
//
// One step is a sweep (colour 0 then colour 1, the reversed kernel the exact opposite order).
// The sweeps run vectorised across groups of 64 particles (kernels/multispin_potts_sweeps.hpp):
// group g takes a fixed number of words per site visit from random.stream(64 g) and any further
// ones from random.stream(64 g + 1), so results do not depend on the thread count, the vector
// width, or the chunk size when chunks hold multiples of 64 particles.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/kernels/site_kernel.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/models/packed_colour_batch.hpp"
#include "logz/models/packed_potts.hpp"
#include "logz/models/packed_potts_field_path.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class MultiSpinPottsMetropolis : public SiteKernel<MultiSpinPottsMetropolis> {
 public:
  // order must be SiteOrder::checkerboard (InvalidArgument otherwise); steps are sweeps.
  MultiSpinPottsMetropolis(SiteOrder order, std::size_t sweeps, bool reversed = false);

  // Applies the kernel to every particle of the batch and brings their bond sums up to date.
  KernelInfo step(const PottsTarget& target, PackedColourBatch& batch, const BatchRandom& random,
                  StopToken stop = {}) const;
  // With a field on colour 0 (the field path): the proposal goes through colour 0 (from colour
  // 0 uniformly to one of the q - 1 others, from any other colour to 0, accepted with the
  // Hastings ratio's q - 1 beside the weights: min(1, (q - 1)^{+-1} exp(-K D -+ h)) for D equal
  // neighbours lost), which moves a site as often as the heat bath where nearly every site has
  // colour 0, as along the field path; also brings the counts of colour 0 up to date.
  KernelInfo step(const PottsFieldTarget& target, PackedFieldColourBatch& batch,
                  const BatchRandom& random, StopToken stop = {}) const;
};

static_assert(KernelFor<MultiSpinPottsMetropolis, PackedPottsModel>);
static_assert(KernelFor<MultiSpinPottsMetropolis, PackedPottsFieldPath>);

}  // namespace logz
