#include "logz/kernels/multispin_potts_metropolis.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "multispin_bits.hpp"
#include "multispin_potts_sweeps.hpp"

namespace logz {

MultiSpinPottsMetropolis::MultiSpinPottsMetropolis(SiteOrder order, std::size_t sweeps,
                                                   bool reversed)
    : SiteKernel(order, sweeps, reversed) {
  if (order != SiteOrder::checkerboard)
    fail_argument("logz::MultiSpinPottsMetropolis", "order",
                  "checkerboard (multi-spin sweeps visit sites in order)");
}

KernelInfo MultiSpinPottsMetropolis::step(const PottsTarget& target, PackedColourBatch& batch,
                                          const BatchRandom& random, StopToken stop) const {
  using namespace multispin;
  const TorusLattice& lattice = *target.lattice;
  const std::vector<Visit> visits = sweep_order(lattice);
  PottsSweeps job;
  job.visits = visits.data();
  job.num_sites = visits.size();
  job.sweeps = steps();
  job.reversed = is_reversed();
  job.planes = batch.planes();
  // A neighbour slot that is the site itself (1-wide torus) is a constant self-bond: not counted.
  for (int s = 0; s < 4; ++s)
    job.counted[s] = (s % 2 == 0 ? lattice.cols() : lattice.rows()) == 1 ? 0 : kAll;
  // With K = beta J >= 0 a move that loses k equal neighbours (d = -k, k = 1..4) is accepted
  // with accept_threshold[4 - k]; with K < 0 one that gains k, with accept_threshold[4 + k].
  // Other moves are always accepted.
  job.gains = target.beta_coupling < 0;
  for (int k = 1; k <= 4; ++k)
    job.thresholds[k - 1] = Threshold(target.accept_threshold[job.gains ? 4 + k : 4 - k]);
  job.blocks = proposal_blocks(static_cast<unsigned>(target.num_colours - 1));
  job.random = random;
  job.stop = stop;
  // Words are numbered by Philox's 32-bit block counter, two a block.
  const std::uint64_t max_visits = (std::uint64_t{1} << 33) / job.words_per_visit();
  if (!visits.empty() && steps() > max_visits / visits.size())
    fail_argument("logz::MultiSpinPottsMetropolis", "sweeps",
                  fmt::format("at most {} site visits per step with q = {} (sweeps x sites); "
                              "split them over more steps",
                              max_visits, target.num_colours));
  std::vector<std::int64_t> equal(batch.num_particles());
  const std::uint64_t moved =
      potts_sweeps(job, batch.words(0), batch.num_particles(), equal.data());
  for (std::size_t p = 0; p < equal.size(); ++p) batch.bond_sum(p) = equal[p];
  return {steps() * visits.size() * batch.num_particles(), moved};
}

}  // namespace logz
