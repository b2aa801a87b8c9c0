#include "logz/smc/genealogy_variance.hpp"

#include <cmath>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"

namespace logz {

GenealogyVariance genealogy_variance(std::span<const double> log_weights,
                                     std::span<const std::size_t> eves,
                                     std::size_t num_resamplings) {
  const std::size_t n = log_weights.size();
  if (n < 2 || eves.size() != n)
    fail_argument("logz::genealogy_variance", "eves", "one Eve index per weight, N >= 2");
  std::vector<double> eve_weight(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (eves[i] >= n) fail_argument("logz::genealogy_variance", "eves", "indices below N");
    eve_weight[eves[i]] += std::exp(log_weights[i]);
  }
  std::size_t num_eves = 0;  // those with weight: descendants of zero weight carry nothing
  for (double s : eve_weight) num_eves += s > 0.0;
  if (num_eves < 2) return {kNaN, num_eves};
  double sum_squares = 0.0;
  for (double s : eve_weight) sum_squares += s * s;
  const double nn = static_cast<double>(n);
  const double inflation =
      std::exp(static_cast<double>(num_resamplings + 1) * std::log1p(1.0 / (nn - 1.0)));
  return {1.0 - inflation * (1.0 - sum_squares), num_eves};
}

double log_z_std_error(double relative_variance) {
  if (!(relative_variance > 0.0)) return kNaN;
  return std::sqrt(std::log1p(relative_variance));
}

}  // namespace logz
