#include "logz/tempering/level_probabilities.hpp"

#include <cmath>
#include <vector>

#include "logz/math/log_space_arrays.hpp"

namespace logz {

void level_log_probabilities(std::span<const double> u, std::span<const double> log_prior,
                             std::span<const double> log_z_hat, std::span<double> log_q) {
  for (std::size_t k = 0; k < u.size(); ++k) log_q[k] = log_prior[k] - log_z_hat[k] - u[k];
  const double norm = log_sum_exp_scaled(log_q, 1.0);
  for (double& v : log_q) v -= norm;
}

std::size_t draw_level(std::span<const double> log_q, double uniform) {
  thread_local std::vector<double> q;  // every level's probability, in one vectorised pass
  q.resize(log_q.size());
  exp_array(log_q, q);
  double cumulative = 0.0;
  for (std::size_t k = 0; k + 1 < q.size(); ++k) {
    cumulative += q[k];
    if (uniform < cumulative) return k;
  }
  return log_q.size() - 1;
}

}  // namespace logz
