#include "logz/kernels/multispin_metropolis.hpp"

#include <fmt/format.h>

#include <array>
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

namespace {

// The sweeps' job without its acceptance classes: the visits (kept alive by `visits`), the
// narrow tori's self-bonds, the random streams.
multispin::IsingSweeps sweeps_job(std::size_t sweeps, bool reversed, const TorusLattice& lattice,
                                  const std::vector<Visit>& visits, const BatchRandom& random,
                                  StopToken stop) {
  if (!visits.empty() && sweeps > multispin::kMaxVisits / visits.size())
    fail_argument("logz::MultiSpinMetropolis", "sweeps",
                  fmt::format("at most {} site visits per step (sweeps x sites); split them over "
                              "more steps",
                              multispin::kMaxVisits));
  multispin::IsingSweeps job;
  job.visits = visits.data();
  job.num_sites = visits.size();
  job.sweeps = sweeps;
  job.reversed = reversed;
  // On a 1-wide torus the left (or up) slot is the site itself: count it anti-aligned, the
  // right (or down) one aligned.
  job.self_left = lattice.cols() == 1 ? kAll : 0;
  job.self_up = lattice.rows() == 1 ? kAll : 0;
  job.random = random;
  job.stop = stop;
  return job;
}

// Per particle, the bond sum over bonds of s_i s_j = bonds - 2 * (anti-aligned bonds).
template <class Batch>
void set_bond_sums(const TorusLattice& lattice, const std::vector<std::int64_t>& anti,
                   Batch& batch) {
  for (std::size_t p = 0; p < anti.size(); ++p)
    batch.bond_sum(p) = lattice.num_bonds() - 2 * anti[p];
}

}  // namespace

KernelInfo MultiSpinMetropolis::step(const IsingTarget& target, PackedSpinBatch& batch,
                                     const BatchRandom& random, StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  const FlipAcceptance acceptance(target);
  const std::vector<Visit> visits = sweep_order(lattice);
  multispin::IsingSweeps job = sweeps_job(steps(), is_reversed(), lattice, visits, random, stop);
  job.invert = acceptance.invert;
  job.hard = &acceptance.hard;
  job.soft = &acceptance.soft;
  std::vector<std::int64_t> anti(batch.num_particles());
  const std::uint64_t changed =
      multispin::ising_sweeps(job, batch.words(0), batch.num_particles(), anti.data());
  set_bond_sums(lattice, anti, batch);
  return {steps() * visits.size() * batch.num_particles(), changed};
}

KernelInfo MultiSpinMetropolis::step(const IsingFieldTarget& target, PackedFieldSpinBatch& batch,
                                     const BatchRandom& random, StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  std::array<Threshold, 10> classes;
  for (std::size_t c = 0; c < classes.size(); ++c)
    classes[c] = Threshold(target.accept_threshold[c]);
  const std::vector<Visit> visits = sweep_order(lattice);
  multispin::IsingSweeps job = sweeps_job(steps(), is_reversed(), lattice, visits, random, stop);
  job.field_classes = classes.data();
  std::vector<std::int64_t> anti(batch.num_particles()), up(batch.num_particles());
  const std::uint64_t changed =
      multispin::ising_sweeps(job, batch.words(0), batch.num_particles(), anti.data(), up.data());
  set_bond_sums(lattice, anti, batch);
  for (std::size_t p = 0; p < up.size(); ++p) batch.field_count(p) = up[p];
  return {steps() * visits.size() * batch.num_particles(), changed};
}

}  // namespace logz
