#include "logz/anneal/annealer.hpp"

#include <fmt/format.h>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"

namespace logz::detail {

void ChunkTrace::add(const ChunkTrace& other) {
  for (std::size_t k = 0; k < energy_sum.size(); ++k) {
    energy_sum[k] += other.energy_sum[k];
    attempted[k] += other.attempted[k];
    accepted[k] += other.accepted[k];
  }
}

Works make_works(Direction d, std::span<const double> fractions, const ChunkTrace& sums,
                 std::vector<double> works, std::size_t num_paths) {
  const std::size_t num_k = fractions.size();
  Works w;
  w.direction = d;
  w.works = std::move(works);
  w.fractions.assign(fractions.begin(), fractions.end());
  w.mean_energy.assign(num_k, kNaN);
  w.acceptance.assign(num_k, kNaN);
  for (std::size_t k = 0; k < num_k; ++k) {
    w.kernel_updates += sums.attempted[k];
    w.mean_energy[k] = sums.energy_sum[k] / static_cast<double>(num_paths);
    if (sums.attempted[k] > 0)
      w.acceptance[k] =
          static_cast<double>(sums.accepted[k]) / static_cast<double>(sums.attempted[k]);
  }
  // No equilibrated state at the end of the path: forward runs stop at the target, reverse at the
  // base.
  (d == Direction::forward ? w.mean_energy.back() : w.mean_energy.front()) = kNaN;
  return w;
}

}  // namespace logz::detail
