#include "logz/anneal/resample.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

std::vector<std::size_t> systematic_resample(std::span<const double> log_weights,
                                             std::size_t num_draws, RandomStream& rng) {
  if (log_weights.empty())
    fail_argument("logz::systematic_resample", "log_weights", "at least one weight");
  const double log_total = log_sum_exp(log_weights);
  if (!std::isfinite(log_total))
    fail_argument("logz::systematic_resample", "log_weights", "finite weights with a positive sum");
  std::vector<std::size_t> idx(num_draws);
  const double step = 1.0 / static_cast<double>(num_draws);
  double u = rng.uniform() * step;
  double cumulative = std::exp(log_weights[0] - log_total);
  std::size_t j = 0;
  for (std::size_t i = 0; i < num_draws; ++i) {
    while (u > cumulative && j + 1 < log_weights.size()) {
      ++j;
      cumulative += std::exp(log_weights[j] - log_total);
    }
    idx[i] = j;
    u += step;
  }
  return idx;
}

}  // namespace logz
