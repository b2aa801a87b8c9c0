#include "logz/anneal/annealer.hpp"

#include <fmt/format.h>

namespace logz::detail {

void fail_non_finite_work(Direction d, std::size_t particle, std::size_t k, double t,
                          double increment) {
  throw NumericalError(fmt::format(
      "{} annealing: non-finite work increment {} for path {} at temperature index {} (beta "
      "fraction {}): the model's energy is not finite there",
      to_string(d), increment, particle, k, t));
}

Works reduce_chunks(Direction d, std::span<const double> betas, const std::vector<ChunkTrace>& traces,
                    std::vector<double> works, std::size_t num_paths) {
  const std::size_t num_k = betas.size();
  Works w;
  w.direction = d;
  w.works = std::move(works);
  w.betas.assign(betas.begin(), betas.end());
  w.mean_energy.assign(num_k, 0.0);
  w.acceptance.assign(num_k, kNaN);
  std::vector<std::uint64_t> attempted(num_k, 0), accepted(num_k, 0);
  for (const auto& t : traces)  // chunk order: deterministic sums
    for (std::size_t k = 0; k < num_k; ++k) {
      w.mean_energy[k] += t.energy_sum[k];
      attempted[k] += t.attempted[k];
      accepted[k] += t.accepted[k];
    }
  for (std::size_t k = 0; k < num_k; ++k) {
    w.mean_energy[k] /= static_cast<double>(num_paths);
    if (attempted[k] > 0)
      w.acceptance[k] = static_cast<double>(accepted[k]) / static_cast<double>(attempted[k]);
  }
  return w;
}

}  // namespace logz::detail
