#include "logz/kernels/multispin_potts_metropolis.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
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

namespace {

// The sweeps' job without its acceptance: the visits (kept alive by `visits`), the narrow tori's
// self-bonds, the proposal, the random streams; checks the step's site visits against the
// counters' range.
multispin::PottsSweeps sweeps_job(std::size_t sweeps, bool reversed, const TorusLattice& lattice,
                                  int num_colours, int planes,
                                  const std::vector<multispin::Visit>& visits,
                                  const BatchRandom& random, StopToken stop, bool field) {
  using namespace multispin;
  PottsSweeps job;
  job.field = field;
  job.visits = visits.data();
  job.num_sites = visits.size();
  job.sweeps = sweeps;
  job.reversed = reversed;
  job.planes = planes;
  // A neighbour slot that is the site itself (1-wide torus) is a constant self-bond: not counted.
  for (int s = 0; s < 4; ++s)
    job.counted[s] = (s % 2 == 0 ? lattice.cols() : lattice.rows()) == 1 ? 0 : kAll;
  // Without a field, where q - 1 is not a power of two (no exact uniform proposal from whole
  // bits), offsets +-1 .. +-m mod q with m = 2^e <= (q - 1) / 2: for q = 10, 3 words per
  // visit instead of the uniform's 8 + 3 (its Bernoulli(8/9) and three bits).
  const unsigned others = static_cast<unsigned>(num_colours - 1);
  if (!field && !std::has_single_bit(others)) {
    job.offset_bits = std::countr_zero(std::bit_floor(others / 2));
    job.num_colours = num_colours;
  } else {
    job.blocks = proposal_blocks(others);
  }
  job.random = random;
  job.stop = stop;
  // Words are numbered by Philox's 32-bit block counter, two a block.
  const std::uint64_t max_visits = (std::uint64_t{1} << 33) / job.words_per_visit();
  if (!visits.empty() && sweeps > max_visits / visits.size())
    fail_argument("logz::MultiSpinPottsMetropolis", "sweeps",
                  fmt::format("at most {} site visits per step with q = {} (sweeps x sites); "
                              "split them over more steps",
                              max_visits, num_colours));
  return job;
}

}  // namespace

KernelInfo MultiSpinPottsMetropolis::step(const PottsTarget& target, PackedColourBatch& batch,
                                          const BatchRandom& random, StopToken stop) const {
  using namespace multispin;
  const TorusLattice& lattice = *target.lattice;
  const std::vector<Visit> visits = sweep_order(lattice);
  PottsSweeps job = sweeps_job(steps(), is_reversed(), lattice, target.num_colours, batch.planes(),
                               visits, random, stop, /*field=*/false);
  // With K = beta J >= 0 a move that loses k equal neighbours (d = -k, k = 1..4) is accepted
  // with accept_threshold[4 - k]; with K < 0 one that gains k, with accept_threshold[4 + k].
  // Other moves are always accepted.
  job.gains = target.beta_coupling < 0;
  for (int k = 1; k <= 4; ++k)
    job.thresholds[k - 1] = Threshold(target.accept_threshold[job.gains ? 4 + k : 4 - k]);
  std::vector<std::int64_t> equal(batch.num_particles());
  const std::uint64_t moved =
      potts_sweeps(job, batch.words(0), batch.num_particles(), equal.data());
  for (std::size_t p = 0; p < equal.size(); ++p) batch.bond_sum(p) = equal[p];
  return {steps() * visits.size() * batch.num_particles(), moved};
}

KernelInfo MultiSpinPottsMetropolis::step(const PottsFieldTarget& target,
                                          PackedFieldColourBatch& batch, const BatchRandom& random,
                                          StopToken stop) const {
  using namespace multispin;
  const TorusLattice& lattice = *target.lattice;
  const std::vector<Visit> visits = sweep_order(lattice);
  PottsSweeps job = sweeps_job(steps(), is_reversed(), lattice, target.num_colours, batch.planes(),
                               visits, random, stop, /*field=*/true);
  // Class 9 z + D + 4: from colour 0 (z = 1) to another colour, or from another to colour 0,
  // losing D equal neighbours: the log of the weights' ratio -K D -+ h, and of the proposals'
  // ratio +-log(q - 1) (one of q - 1 colours from colour 0, colour 0 for sure back).
  const double log_others = std::log(static_cast<double>(target.num_colours - 1));
  for (int z = 0; z < 2; ++z)
    for (int d = -4; d <= 4; ++d) {
      const double sign = z == 1 ? 1.0 : -1.0;
      const double p =
          std::exp(-target.beta_coupling * d - sign * target.field + sign * log_others);
      job.field_thresholds[9 * z + d + 4] =
          Threshold(p >= 1.0 ? kAlways : static_cast<std::uint64_t>(std::ldexp(p, 32)));
    }
  std::vector<std::int64_t> equal(batch.num_particles()), zeros(batch.num_particles());
  const std::uint64_t moved =
      potts_sweeps(job, batch.words(0), batch.num_particles(), equal.data(), zeros.data());
  for (std::size_t p = 0; p < equal.size(); ++p) {
    batch.bond_sum(p) = equal[p];
    batch.field_count(p) = zeros[p];
  }
  return {steps() * visits.size() * batch.num_particles(), moved};
}

}  // namespace logz
