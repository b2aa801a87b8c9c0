#include "logz/models/potts.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

bool neighbour_slot_classes(int code, std::array<int, 4>& label) {
  static constexpr int kPair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int s = 0; s < 4; ++s) {
    label[s] = s;
    for (int b = 0; b < 6; ++b)
      if (kPair[b][1] == s && ((code >> b) & 1) && label[kPair[b][0]] < label[s])
        label[s] = label[kPair[b][0]];
  }
  bool consistent = true;
  for (int b = 0; b < 6; ++b)
    consistent &= (((code >> b) & 1) != 0) == (label[kPair[b][0]] == label[kPair[b][1]]);
  return consistent;
}

PottsTarget::PottsTarget(const TorusLattice& l, int q, double k)
    : lattice(&l), num_colours(q), beta_coupling(k) {
  for (int j = 0; j < 9; ++j) {
    const double d = j - 4.0;
    const double p = std::exp(k * d);
    // p >= 1 -> always accept: 2^32 exceeds every 32-bit draw.
    accept_threshold[j] =
        p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
    bond_factor[j] = p;
  }
  for (int code = 0; code < 64; ++code) {
    std::array<int, 4> label{};
    const bool consistent = neighbour_slot_classes(code, label);
    std::array<int, 4> n{};
    int m = 0, n_max = 0, n_min = 4;
    for (int s = 0; s < 4; ++s) {
      for (int t = 0; t < 4; ++t) n[s] += label[t] == label[s];
      if (label[s] == s) {
        ++m;
        n_max = std::max(n_max, n[s]);
        n_min = std::min(n_min, n[s]);
      }
    }
    if (!consistent || m > q) continue;
    // Weights exp(K (n - ref)) <= 1 with ref the count of the most probable colour.
    const int ref = k >= 0.0 ? n_max : (m < q ? 0 : n_min);
    std::array<double, 4> cumulative{};
    double sum = 0.0;
    for (int s = 0; s < 4; ++s) {
      if (label[s] == s) sum += bond_factor[n[s] - ref + 4];
      cumulative[s] = sum;
    }
    const double total = sum + (q - m) * bond_factor[4 - ref];
    for (int s = 0; s < 4; ++s)
      heat_bath_threshold[code][s] =
          static_cast<std::uint64_t>(std::ldexp(cumulative[s] / total, 32));
    // No absent colour (m = q): the last class takes everything left by rounding.
    if (m == q) heat_bath_threshold[code][3] = std::uint64_t{1} << 32;
  }
}

PottsModel::PottsModel(int rows, int cols, int q, double coupling, double beta)
    : LatticeModel("logz::PottsModel", rows, cols, coupling, beta), q_(q) {
  if (q < 2 || q > kMaxColours)
    fail_argument("logz::PottsModel", "q", "an integer in 2..255, got " + std::to_string(q));
}

std::int64_t PottsModel::equal_bonds(const std::uint8_t* x) const {
  std::int64_t sum = 0;
  for (int i = 0; i < num_sites(); ++i) {
    const auto& nb = lattice_.neighbours(i);
    sum += (x[i] == x[nb[0]]) + (x[i] == x[nb[1]]);
  }
  return sum;
}

double PottsModel::base_log_z() const { return num_sites() * std::log(static_cast<double>(q_)); }

void PottsModel::sample_base(Batch& batch, const BatchRandom& random) const {
  const int n = num_sites();
  const auto q = static_cast<std::uint32_t>(q_);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.sites(p);
    for (int i = 0; i < n; ++i) x[i] = static_cast<std::uint8_t>(rng.below(q));
    batch.bond_sum(p) = equal_bonds(x);
  }
}

void PottsModel::ground_state(Batch& batch, const BatchRandom& random) const {
  const auto q = static_cast<std::uint32_t>(q_);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    const auto a = static_cast<std::uint8_t>(rng.below(q));
    // The second colour of the antiferromagnet's checkerboard: uniform among the other q - 1.
    std::uint32_t b = rng.below(q - 1);
    b += b >= a;
    std::uint8_t* x = batch.sites(p);
    for (int i = 0; i < num_sites(); ++i)
      x[i] = (coupling_ >= 0.0 || lattice_.colour(i) == 0) ? a : static_cast<std::uint8_t>(b);
    batch.bond_sum(p) = equal_bonds(x);
  }
}

}  // namespace logz
