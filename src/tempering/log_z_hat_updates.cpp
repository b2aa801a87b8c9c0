#include "logz/tempering/log_z_hat_updates.hpp"

#include <algorithm>
#include <cmath>

namespace logz {

double max_level_deviation(std::span<const double> log_c, std::span<const double> log_prior) {
  double m = 0;
  for (std::size_t k = 0; k < log_c.size(); ++k)
    m = std::max(m, std::abs(std::exp(log_prior[k]) - std::exp(log_c[k])));
  return m;
}

std::vector<double> tan_update(std::span<const double> log_z_hat, std::span<const double> log_c,
                               std::span<const double> log_prior, double gamma) {
  std::vector<double> out(log_z_hat.begin(), log_z_hat.end());
  const double base = std::exp(log_c[0] - log_prior[0]);
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] += gamma * (std::exp(log_c[k] - log_prior[k]) - base);
  return out;
}

double partial_update(double log_z_hat_last, std::span<const double> log_c,
                      std::span<const double> log_prior, double alpha) {
  const std::size_t last = log_c.size() - 1;
  return log_z_hat_last + alpha * (log_prior[0] - log_prior[last] + log_c[last] - log_c[0]);
}

}  // namespace logz
