#include "logz/math/pareto_tail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace logz {

namespace {

// Zhang & Stephens (2009) generalized Pareto fit of exceedances x (sorted ascending, > 0),
// as PSIS does it: a quadrature over b = -k / sigma weighted by the profile likelihood, the
// posterior mean of b, then k = mean log(1 - b x), shrunk toward 1/2 by a prior of weight 10.
double gpd_shape(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  const int m = 30 + static_cast<int>(std::sqrt(n));
  const double quartile = x[static_cast<std::size_t>(n / 4 + 0.5) - 1];
  std::vector<double> b(static_cast<std::size_t>(m)), log_l(b.size());
  for (int j = 0; j < m; ++j) {
    b[j] = (1.0 - std::sqrt(m / (j + 0.5))) / (3.0 * quartile) + 1.0 / x.back();
    double k = 0.0;
    for (double xi : x) k += std::log1p(-b[j] * xi);
    k /= n;
    log_l[j] = n * (std::log(-b[j] / k) - k - 1.0);
  }
  // Normalised weights exp(L_j) / sum_l exp(L_l), without overflow.
  const double top = *std::max_element(log_l.begin(), log_l.end());
  double norm = 0.0, posterior_b = 0.0;
  for (int j = 0; j < m; ++j) norm += std::exp(log_l[j] - top);
  for (int j = 0; j < m; ++j) {
    const double w = std::exp(log_l[j] - top) / norm;
    if (w >= 10 * std::numeric_limits<double>::epsilon()) posterior_b += w * b[j];
  }
  double k = 0.0;
  for (double xi : x) k += std::log1p(-posterior_b * xi);
  k /= n;
  constexpr double kPrior = 10.0;
  return k * n / (n + kPrior) + kPrior * 0.5 / (n + kPrior);
}

}  // namespace

double pareto_k_hat(std::span<const double> log_w) {
  const std::size_t s = log_w.size();
  if (s < 10) return std::numeric_limits<double>::quiet_NaN();
  const double ds = static_cast<double>(s);
  const auto m = static_cast<std::size_t>(std::ceil(std::min(0.2 * ds, 3.0 * std::sqrt(ds))));
  // Only the M + 1 largest are read, in order: they are put in place, not the whole array
  // (SMC asks at every temperature).
  std::vector<double> sorted(log_w.begin(), log_w.end());
  const auto tail = sorted.begin() + static_cast<std::ptrdiff_t>(s - m - 1);
  std::nth_element(sorted.begin(), tail, sorted.end());
  std::sort(tail, sorted.end());
  // Exceedances of the M largest weights over the next one, scaled by the largest weight
  // (log-weights of order 1e4 neither overflow nor lose the tail).
  const double top = sorted.back(), cutoff = sorted[s - m - 1];
  std::vector<double> x;
  x.reserve(m);
  for (std::size_t i = s - m; i < s; ++i)
    x.push_back(std::exp(sorted[i] - top) - std::exp(cutoff - top));
  // A tail with ties at its lower quarter (or none above the cutoff) has no shape to fit.
  if (!(x[static_cast<std::size_t>(static_cast<double>(m) / 4 + 0.5) - 1] > 0.0))
    return std::numeric_limits<double>::quiet_NaN();
  return gpd_shape(x);
}

double pareto_k_threshold(std::size_t num_samples) {
  return std::min(
      1.0 - 1.0 / std::log10(static_cast<double>(std::max<std::size_t>(num_samples, 11))), 0.7);
}

}  // namespace logz
