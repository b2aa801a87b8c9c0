#include "logz/kernels/multispin_metropolis.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "multispin_bits.hpp"
#include "multispin_ising_sweeps.hpp"

namespace logz {

namespace {

using namespace multispin;

// The acceptance of a flip as lane masks. With K = beta J >= 0 the flips that may be rejected
// are those of sites with no anti-aligned neighbour ("hard": Delta E = 8K) and with one ("soft":
// 4K); with K < 0, those with no or one aligned neighbour, which counting the complement
// (invert) turns into the same two classes. accept_threshold is indexed by (s_i h + 4) / 2 with
// s_i h = 4 - 2 * (anti-aligned neighbours).
struct FlipAcceptance {
  Word invert;
  Threshold hard, soft;

  explicit FlipAcceptance(const IsingTarget& t)
      : invert(t.beta_coupling < 0 ? kAll : 0),
        hard(t.beta_coupling < 0 ? t.accept_threshold[0] : t.accept_threshold[4]),
        soft(t.beta_coupling < 0 ? t.accept_threshold[1] : t.accept_threshold[3]) {}
};

}  // namespace

MultiSpinMetropolis::MultiSpinMetropolis(SiteOrder order, std::size_t sweeps, bool reversed)
    : SiteKernel(order, sweeps, reversed) {
  if (order != SiteOrder::checkerboard)
    fail_argument("logz::MultiSpinMetropolis", "order",
                  "checkerboard (multi-spin sweeps visit sites in order)");
}

KernelInfo MultiSpinMetropolis::step(const IsingTarget& target, PackedSpinBatch& batch,
                                     const BatchRandom& random, StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  const FlipAcceptance acceptance(target);
  const std::vector<Visit> visits = sweep_order(lattice);
  if (!visits.empty() && steps() > multispin::kMaxVisits / visits.size())
    fail_argument("logz::MultiSpinMetropolis", "sweeps",
                  fmt::format("at most {} site visits per step (sweeps x sites); split them over "
                              "more steps",
                              multispin::kMaxVisits));
  multispin::IsingSweeps job;
  job.visits = visits.data();
  job.num_sites = visits.size();
  job.sweeps = steps();
  job.reversed = is_reversed();
  job.invert = acceptance.invert;
  // On a 1-wide torus the left (or up) slot is the site itself: count it anti-aligned, the
  // right (or down) one aligned.
  job.self_left = lattice.cols() == 1 ? kAll : 0;
  job.self_up = lattice.rows() == 1 ? kAll : 0;
  job.hard = &acceptance.hard;
  job.soft = &acceptance.soft;
  job.random = random;
  job.stop = stop;
  std::vector<std::int64_t> anti(batch.num_particles());
  const std::uint64_t changed =
      multispin::ising_sweeps(job, batch.words(0), batch.num_particles(), anti.data());
  // Per particle, the bond sum over bonds of s_i s_j = bonds - 2 * (anti-aligned bonds).
  for (std::size_t p = 0; p < anti.size(); ++p)
    batch.bond_sum(p) = lattice.num_bonds() - 2 * anti[p];
  return {steps() * visits.size() * batch.num_particles(), changed};
}

}  // namespace logz
