#include "logz/models/packed_ising_field_path.hpp"

#include <bit>
#include <cmath>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/models/packed_groups.hpp"

namespace logz {

namespace {

// log w_+(x) = n_+ - log(e^{n_+} + e^{n_-}) = -log(1 + e^{n_- - n_+}).
double restriction_log_weight(std::int64_t up, int num_sites) {
  return -log1p_exp(static_cast<double>(num_sites - 2 * up));
}

// Every particle's +1 spins, counted from its bits.
void count_up_spins(PackedFieldSpinBatch& batch) {
  for (std::size_t g = 0; g < batch.num_groups(); ++g) {
    const std::size_t first = g * PackedSpinBatch::kLanes;
    const std::size_t used = std::min(PackedSpinBatch::kLanes, batch.num_particles() - first);
    for (std::size_t l = 0; l < used; ++l) batch.field_count(first + l) = 0;
    const std::uint64_t* w = batch.words(g);
    for (int i = 0; i < batch.num_sites(); ++i)
      for (std::uint64_t m = w[i] & batch.lane_mask(g); m != 0; m &= m - 1)
        ++batch.field_count(first + static_cast<std::size_t>(std::countr_zero(m)));
  }
}

}  // namespace

IsingFieldTarget::IsingFieldTarget(const TorusLattice& l, double k, double h)
    : lattice(&l), beta_coupling(k), field(h) {
  for (int z = 0; z < 2; ++z)
    for (int a = 0; a <= 4; ++a) {
      const double p = std::exp(k * (4.0 * a - 8.0) + h * (1.0 - 2.0 * z));
      // p >= 1 -> always accept: 2^32 exceeds every 32-bit draw.
      accept_threshold[5 * z + a] =
          p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
    }
}

PackedIsingFieldPath::PackedIsingFieldPath(const IsingModel& model, double field)
    : model_(model), legs_{field} {
  if (!(field > 0.0) || !std::isfinite(field) ||
      8.0 * std::abs(model.beta() * model.coupling()) + field > PottsFieldPath::kMaxLogWeightRange)
    fail_argument("logz::PackedIsingFieldPath", "field",
                  "a number > 0 with 8 |beta J| + field <= 600");
}

void PackedIsingFieldPath::sample_base(Batch& batch, const BatchRandom& random) const {
  // P(+1) = 1 / (1 + e^-h0), without overflow for any h0.
  const double p_up = 1.0 / (1.0 + std::exp(-field()));
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    for (int i = 0; i < num_sites(); ++i) batch.set_spin(p, i, rng.uniform() < p_up ? 1 : -1);
  }
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    std::int64_t sum = 0;
    for (int i = 0; i < num_sites(); ++i) {
      const auto& nb = model_.lattice().neighbours(i);
      sum += batch.spin(p, i) * (batch.spin(p, nb[0]) + batch.spin(p, nb[1]));
    }
    batch.bond_sum(p) = sum;
  }
  count_up_spins(batch);
}

double PackedIsingFieldPath::base_log_z() const {
  return num_sites() * log1p_exp(field()) + std::log(2.0);
}

void PackedIsingFieldPath::work_increment(double t_from, double t_to, const Batch& batch,
                                          std::span<double> out) const {
  const double beta_j = model_.beta() * model_.coupling();
  const double d_bond = (beta_fraction(t_to) - beta_fraction(t_from)) * beta_j;
  const double d_field = field_at(t_to) - field_at(t_from);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    double u = -(d_bond * static_cast<double>(batch.bond_sum(p)) +
                 d_field * static_cast<double>(batch.field_count(p)));
    // The restriction enters at t = 1 (forward: its last increment; reverse: its first).
    if (t_to == 1.0) u -= restriction_log_weight(batch.field_count(p), num_sites());
    if (t_from == 1.0) u += restriction_log_weight(batch.field_count(p), num_sites());
    out[p] = u;
  }
}

void PackedIsingFieldPath::trace_energy(const Batch& batch, std::span<double> out) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] = model_.energy(batch.bond_sum(p));
}

IsingFieldTarget PackedIsingFieldPath::at(double t) const {
  return IsingFieldTarget(model_.lattice(), beta_fraction(t) * model_.beta() * model_.coupling(),
                          field_at(t));
}

void PackedIsingFieldPath::ground_state(Batch& batch, const BatchRandom& random) const {
  fill_packed_by_group<SpinBatch>(
      batch, random, [&](SpinBatch& s, const BatchRandom& r) { model_.ground_state(s, r); });
  count_up_spins(batch);
}

void PackedIsingFieldPath::relabel_to_colour0(Batch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    // w_- = 1 / (1 + e^{n_+ - n_-}).
    const double flip_probability =
        std::exp(-log1p_exp(static_cast<double>(2 * batch.field_count(p) - num_sites())));
    if (!(rng.uniform() < flip_probability)) continue;
    for (int i = 0; i < num_sites(); ++i) batch.set_spin(p, i, -batch.spin(p, i));
    batch.field_count(p) = num_sites() - batch.field_count(p);  // the bond sum is unchanged
  }
}

}  // namespace logz
