#include "logz/math/log_sum_exp.hpp"

#include <cmath>
#include <limits>

namespace logz {

double log_sum_exp(std::span<const double> x) {
  const double inf = std::numeric_limits<double>::infinity();
  double m = -inf;
  for (double v : x) {
    if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
    if (v > m) m = v;
  }
  if (m == -inf || m == inf) return m;
  // Shift by the maximum: every term is exp(<= 0), the largest is exactly 1.
  double s = 0.0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

double log_mean_exp(std::span<const double> x) {
  if (x.empty()) return -std::numeric_limits<double>::infinity();
  return log_sum_exp(x) - std::log(static_cast<double>(x.size()));
}

double log_add_exp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  const double m = a > b ? a : b;
  if (std::isinf(m)) return m;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

double log1p_exp(double x) {
  // For large x, log(1+e^x) = x + log1p(e^-x); for very negative x it is e^x.
  if (x > 0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

}  // namespace logz
