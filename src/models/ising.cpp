#include "logz/models/ising.hpp"

#include <cmath>

#include "logz/core/error.hpp"

namespace logz {

IsingTarget::IsingTarget(const TorusLattice& l, double k) : lattice(&l), beta_coupling(k) {
  for (int j = 0; j < 5; ++j) {
    const double s_h = 2.0 * j - 4.0;
    const double p = std::exp(-2.0 * k * s_h);
    // p >= 1 -> always accept: 2^32 exceeds every 32-bit draw.
    accept_threshold[j] =
        p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
    up_probability[j] = 1.0 / (1.0 + std::exp(-2.0 * k * s_h));
  }
}

IsingModel::IsingModel(int rows, int cols, double coupling, double beta)
    : LatticeModel("logz::IsingModel", rows, cols, coupling, beta) {}

std::int64_t IsingModel::bond_sum(const std::int8_t* s) const {
  std::int64_t sum = 0;
  for (int i = 0; i < num_sites(); ++i) {
    const auto& nb = lattice_.neighbours(i);
    sum += s[i] * (s[nb[0]] + s[nb[1]]);
  }
  return sum;
}

double IsingModel::base_log_z() const { return num_sites() * std::log(2.0); }

void IsingModel::sample_base(Batch& batch, const BatchRandom& random) const {
  const int n = num_sites();
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::int8_t* s = batch.sites(p);
    for (int i = 0; i < n; i += 32) {
      const std::uint32_t bits = rng.next_u32();
      for (int b = 0; b < 32 && i + b < n; ++b) s[i + b] = ((bits >> b) & 1u) ? 1 : -1;
    }
    batch.bond_sum(p) = bond_sum(s);
  }
}

void IsingModel::ground_state(Batch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    const std::int8_t v = (rng.next_u32() & 1u) ? 1 : -1;
    std::int8_t* s = batch.sites(p);
    // Ferromagnet: all spins equal. Antiferromagnet: the Neel (checkerboard) state,
    // a ground state when both sides are even.
    for (int i = 0; i < num_sites(); ++i)
      s[i] = (coupling_ >= 0.0 || lattice_.colour(i) == 0) ? v : static_cast<std::int8_t>(-v);
    batch.bond_sum(p) = bond_sum(s);
  }
}

}  // namespace logz
