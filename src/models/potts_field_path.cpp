#include "logz/models/potts_field_path.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"

namespace logz {

PottsFieldTarget::PottsFieldTarget(const TorusLattice& l, int q, double k, double h)
    : lattice(&l), num_colours(q), beta_coupling(k), field(h) {
  const double top = 4.0 * std::max(k, 0.0) + std::max(h, 0.0);
  for (int z = 0; z < 2; ++z)
    for (int n = 0; n <= 4; ++n) weight[z][n] = std::exp(k * n + h * z - top);
  for (int code = 0; code < 64; ++code) {
    std::array<int, 4> label{};
    if (!neighbour_slot_classes(code, label)) continue;
    std::array<int, 4> n{};
    int m = 0;  // distinct colours around the site
    for (int s = 0; s < 4; ++s) {
      for (int t = 0; t < 4; ++t) n[s] += label[t] == label[s];
      m += label[s] == s;
    }
    for (int zero = 0; zero <= 4; ++zero) {
      // zero: the first slot of colour 0, or 4 (colour 0 absent around the site, one colour fewer
      // for the slots).
      if (zero < 4 && label[zero] != zero) continue;
      const int others = q - m - (zero == 4 ? 1 : 0);  // absent colours other than 0
      if (others < 0) continue;
      auto& t = heat_bath_threshold[code][zero];
      double sum = 0.0;
      std::array<double, 5> cumulative{};
      for (int s = 0; s < 4; ++s) {
        if (label[s] == s) sum += weight[s == zero][n[s]];
        cumulative[s] = sum;
      }
      sum += zero == 4 ? weight[1][0] : 0.0;
      cumulative[4] = sum;
      const double total = sum + others * weight[0][0];
      for (int j = 0; j < 5; ++j)
        t[j] = static_cast<std::uint64_t>(std::ldexp(cumulative[j] / total, 32));
      // No other absent colour: the last entry takes everything left by rounding.
      if (others == 0) t[4] = std::uint64_t{1} << 32;
    }
  }
}

PottsFieldPath::PottsFieldPath(const PottsModel& model, double field, double energy_offset)
    : model_(model), legs_{field}, energy_offset_(energy_offset) {
  if (!(field > 0.0) || !std::isfinite(field) ||
      4.0 * std::abs(model.beta() * model.coupling()) + field > kMaxLogWeightRange)
    fail_argument("logz::PottsFieldPath", "field", "a number > 0 with 4 |beta J| + field <= 600");
  if (!std::isfinite(energy_offset))
    fail_argument("logz::PottsFieldPath", "energy_offset", "a finite number");
}

void PottsFieldPath::sample_base(Batch& batch, const BatchRandom& random) const {
  const int q = model_.num_colours();
  // P(colour 0) = 1 / (1 + (q - 1) e^-h0), without overflow for any h0.
  const double p0 = 1.0 / (1.0 + (q - 1) * std::exp(-legs_.field));
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.sites(p);
    for (int i = 0; i < num_sites(); ++i)
      x[i] = rng.uniform() < p0
                 ? 0
                 : static_cast<std::uint8_t>(1 + rng.below(static_cast<std::uint32_t>(q - 1)));
    batch.bond_sum(p) = model_.equal_bonds(x);
  }
}

double PottsFieldPath::base_log_z() const {
  const int q = model_.num_colours();
  // N log(e^h0 + q - 1) = N (h0 + log1p((q - 1) e^-h0)).
  return num_sites() * (legs_.field + std::log1p((q - 1) * std::exp(-legs_.field))) +
         std::log(static_cast<double>(q)) - model_.beta() * energy_offset_;
}

// Colour counts n_c and their softmax's log normaliser log sum_c e^{n_c}.
double PottsFieldPath::colour_counts(const std::uint8_t* x, std::vector<int>& counts) const {
  counts.assign(static_cast<std::size_t>(model_.num_colours()), 0);
  for (int i = 0; i < num_sites(); ++i) ++counts[x[i]];
  const int top = *std::max_element(counts.begin(), counts.end());
  double sum = 0.0;
  for (int n : counts) sum += std::exp(n - top);
  return top + std::log(sum);
}

double PottsFieldPath::restriction_log_weight(const std::uint8_t* x) const {
  thread_local std::vector<int> counts;
  const double log_norm = colour_counts(x, counts);
  return counts[0] - log_norm;
}

void PottsFieldPath::work_increment(double t_from, double t_to, const Batch& batch,
                                    std::span<double> out) const {
  const double beta_j = model_.beta() * model_.coupling();
  const double d_bond = (beta_fraction(t_to) - beta_fraction(t_from)) * beta_j;
  const double d_field = field_at(t_to) - field_at(t_from);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    const std::uint8_t* x = batch.sites(p);
    const auto n0 = static_cast<double>(std::count(x, x + num_sites(), std::uint8_t{0}));
    double u = -(d_bond * static_cast<double>(batch.bond_sum(p)) + d_field * n0);
    // The restriction enters at t = 1 (forward: its last increment; reverse: its first).
    if (t_to == 1.0) u -= restriction_log_weight(x);
    if (t_from == 1.0) u += restriction_log_weight(x);
    out[p] = u;
  }
}

void PottsFieldPath::trace_energy(const Batch& batch, std::span<double> out) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p)
    out[p] = model_.energy(batch.bond_sum(p)) + energy_offset_;
}

PottsFieldTarget PottsFieldPath::at(double t) const {
  return PottsFieldTarget(model_.lattice(), model_.num_colours(),
                          beta_fraction(t) * model_.beta() * model_.coupling(), field_at(t));
}

void PottsFieldPath::relabel_to_colour0(Batch& batch, const BatchRandom& random) const {
  std::vector<int> counts;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.sites(p);
    const double log_norm = colour_counts(x, counts);
    // Colour c with probability w_c = e^{n_c} / sum e^{n_c'}, by inversion.
    double u = rng.uniform();
    int c = 0;
    for (; c + 1 < model_.num_colours(); ++c) {
      u -= std::exp(counts[static_cast<std::size_t>(c)] - log_norm);
      if (u < 0.0) break;
    }
    if (c == 0) continue;
    for (int i = 0; i < num_sites(); ++i) {
      if (x[i] == c)
        x[i] = 0;
      else if (x[i] == 0)
        x[i] = static_cast<std::uint8_t>(c);
    }
    // Equal bonds are unchanged by a permutation of colours.
  }
}

}  // namespace logz
