#include "logz/models/packed_potts_field_path.hpp"

#include <algorithm>
#include <vector>

#include "logz/models/packed_groups.hpp"

namespace logz {

namespace {

// Every particle's sites of colour 0, counted from its planes.
void count_colour0(PackedFieldColourBatch& batch) {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    std::int64_t n = 0;
    for (int i = 0; i < batch.num_sites(); ++i) n += batch.colour(p, i) == 0;
    batch.field_count(p) = n;
  }
}

// Particle p of the packed batch into particle 0 of `one`.
void unpack(const PackedFieldColourBatch& batch, std::size_t p, PottsBatch& one) {
  for (int i = 0; i < batch.num_sites(); ++i) one.sites(0)[i] = batch.colour(p, i);
  one.bond_sum(0) = batch.bond_sum(p);
}

}  // namespace

void PackedPottsFieldPath::sample_base(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<PottsBatch>(
      batch, random, [&](PottsBatch& s, const BatchRandom& r) { path_.sample_base(s, r); });
  count_colour0(batch);
}

void PackedPottsFieldPath::work_increment(double t_from, double t_to, const Batch& batch,
                                          std::span<double> out) const {
  const double beta_j = model().beta() * model().coupling();
  const double d_bond = (path_.beta_fraction(t_to) - path_.beta_fraction(t_from)) * beta_j;
  const double d_field = path_.field_at(t_to) - path_.field_at(t_from);
  if (t_to == 1.0 || t_from == 1.0) {
    // The restriction's step (the first or last of a run): the unpacked path's work, which
    // counts every colour.
    PottsBatch one(1, num_sites());
    std::vector<double> restriction(1);
    for (std::size_t p = 0; p < batch.num_particles(); ++p) {
      unpack(batch, p, one);
      path_.work_increment(t_from, t_to, one, restriction);
      out[p] = restriction[0];
    }
    return;
  }
  for (std::size_t p = 0; p < batch.num_particles(); ++p)
    out[p] = -(d_bond * static_cast<double>(batch.bond_sum(p)) +
               d_field * static_cast<double>(batch.field_count(p)));
}

void PackedPottsFieldPath::trace_energy(const Batch& batch, std::span<double> out) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p)
    out[p] = model().energy(batch.bond_sum(p));
}

void PackedPottsFieldPath::ground_state(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<PottsBatch>(
      batch, random, [&](PottsBatch& s, const BatchRandom& r) { model().ground_state(s, r); });
  count_colour0(batch);
}

void PackedPottsFieldPath::relabel_to_colour0(Batch& batch, const BatchRandom& random) const {
  for (std::size_t first = 0; first < batch.num_particles(); first += PackedColourBatch::kLanes) {
    PottsBatch group(std::min(PackedColourBatch::kLanes, batch.num_particles() - first),
                     num_sites());
    for (std::size_t q = 0; q < group.num_particles(); ++q) {
      for (int i = 0; i < num_sites(); ++i) group.sites(q)[i] = batch.colour(first + q, i);
      group.bond_sum(q) = batch.bond_sum(first + q);
    }
    BatchRandom streams = random;
    streams.first_particle += first;
    path_.relabel_to_colour0(group, streams);
    batch.pack(group, first);
  }
  count_colour0(batch);
}

}  // namespace logz
