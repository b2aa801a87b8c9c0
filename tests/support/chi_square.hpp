// Chi-square goodness of fit for exact-start invariance tests: the statistic
// over all states, pooling cells whose expected count is below 5, and the
// critical value at a false-failure rate of 1e-6 (Wilson-Hilferty).
#pragma once

#include <cmath>
#include <vector>

namespace logz::test_support {

struct ChiSquare {
  double statistic = 0, critical = 0;
};

inline ChiSquare chi_square(const std::vector<long>& counts, const std::vector<double>& prob,
                            long n) {
  double stat = 0, pooled_obs = 0, pooled_exp = 0;
  int cells = 0;
  for (std::size_t s = 0; s < prob.size(); ++s) {
    const double e = prob[s] * static_cast<double>(n);
    if (e < 5) {
      pooled_obs += static_cast<double>(counts[s]);
      pooled_exp += e;
      continue;
    }
    stat += (static_cast<double>(counts[s]) - e) * (static_cast<double>(counts[s]) - e) / e;
    ++cells;
  }
  if (pooled_exp > 0) {
    stat += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / pooled_exp;
    ++cells;
  }
  const double dof = cells - 1, z = 4.753;  // upper 1e-6 quantile of N(0, 1)
  const double a = 2.0 / (9.0 * dof);
  return {stat, dof * std::pow(1.0 - a + z * std::sqrt(a), 3)};
}

}  // namespace logz::test_support
