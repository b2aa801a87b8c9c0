#include "logz/smc/smc_resampling.hpp"

#include <cmath>

#include "logz/anneal/resample.hpp"
#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

std::vector<std::size_t> multinomial_resample(std::span<const double> log_weights,
                                              RandomStream& rng, std::size_t count) {
  const std::size_t n = log_weights.size(), draws = count == 0 ? n : count;
  const double log_total = log_sum_exp(log_weights);
  if (n == 0 || !std::isfinite(log_total))
    fail_argument("logz::multinomial_resample", "log_weights",
                  "at least one weight, finite with a positive sum");
  // Sorted uniforms from normalised partial sums of draws + 1 exponential draws (Devroye 1986,
  // V.3), then one pass along the cumulative weights.
  std::vector<double> sorted(draws);
  double sum = 0.0;
  for (std::size_t i = 0; i < draws; ++i) {
    sum -= std::log(rng.uniform());
    sorted[i] = sum;
  }
  sum -= std::log(rng.uniform());
  std::vector<std::size_t> idx(draws);
  double cumulative = std::exp(log_weights[0] - log_total);
  std::size_t j = 0;
  for (std::size_t i = 0; i < draws; ++i) {
    const double u = sorted[i] / sum;
    while (u > cumulative && j + 1 < n) cumulative += std::exp(log_weights[++j] - log_total);
    idx[i] = j;
  }
  return idx;
}

std::vector<std::size_t> resample_ancestors(SmcResampling scheme,
                                            std::span<const double> log_weights, RandomStream& rng,
                                            std::size_t count) {
  const std::size_t draws = count == 0 ? log_weights.size() : count;
  std::vector<std::size_t> idx = scheme == SmcResampling::systematic
                                     ? systematic_resample(log_weights, draws, rng)
                                     : multinomial_resample(log_weights, rng, draws);
  // Rounding in the cumulative sums can land a draw at its very end on a particle of zero
  // weight: it goes to the nearest particle of weight below it (above, if none is below).
  for (std::size_t& i : idx) {
    std::size_t j = i;
    while (j > 0 && std::isinf(log_weights[j]) && log_weights[j] < 0) --j;
    while (j + 1 < log_weights.size() && std::isinf(log_weights[j]) && log_weights[j] < 0) ++j;
    i = j;
  }
  return idx;
}

}  // namespace logz
