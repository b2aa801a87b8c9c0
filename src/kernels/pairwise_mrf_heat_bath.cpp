#include "logz/kernels/pairwise_mrf_heat_bath.hpp"

#include <cmath>

namespace logz {

KernelInfo PairwiseMrfHeatBath::step(const PairwiseMrfTarget& target, PairwiseMrfBatch& batch,
                                     const BatchRandom& random) const {
  const PairwiseMrfParameters& m = *target.parameters;
  const int n = m.size();
  KernelInfo info;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::uint8_t* x = batch.x(p);
    double* f = batch.field(p);
    for (std::size_t s = 0; s < steps_; ++s) {
      const int i = static_cast<int>(rng.below(static_cast<std::uint32_t>(n)));
      const double up = 1.0 / (1.0 + std::exp(-target.beta * f[i]));
      const std::uint8_t v = rng.uniform() < up ? 1 : 0;
      ++info.attempted;
      if (v == x[i]) continue;
      ++info.accepted;
      const double d = v ? 1.0 : -1.0;
      batch.energy(p) -= d * f[i];  // E changes by -d field_i (W_ii = 0)
      x[i] = v;
      for (int j = 0; j < n; ++j) f[j] += m.W(j, i) * d;
    }
  }
  return info;
}

}  // namespace logz
