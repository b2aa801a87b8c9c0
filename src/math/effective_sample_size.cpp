#include "logz/math/effective_sample_size.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

double effective_sample_size(std::span<const double> x) {
  const std::size_t n = x.size();
  if (n < 4) return kNaN;
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  auto autocov = [&](std::size_t lag) {
    double s = 0.0;
    for (std::size_t i = 0; i + lag < n; ++i) s += (x[i] - mean) * (x[i + lag] - mean);
    return s / static_cast<double>(n);
  };
  const double c0 = autocov(0);
  if (!(c0 > 0.0)) return kNaN;
  // Sum of pairs Gamma_k = c(2k) + c(2k+1), kept while positive and made non-increasing.
  double tau = -c0, prev = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; 2 * k + 1 < n; ++k) {
    double pair = autocov(2 * k) + autocov(2 * k + 1);
    if (pair <= 0.0) break;
    pair = std::min(pair, prev);
    prev = pair;
    tau += 2.0 * pair;
  }
  return static_cast<double>(n) * c0 / std::max(tau, c0 / static_cast<double>(n));
}

double effective_sample_size(const double* x, std::size_t num_draws, std::size_t num_chains,
                             std::size_t stride_t, std::size_t stride_m) {
  const std::size_t N = num_draws, M = num_chains;
  if (N < 4 || M < 1) return kNaN;
  auto at = [&](std::size_t t, std::size_t m) { return x[t * stride_t + m * stride_m]; };
  std::vector<double> means(M, 0.0);
  for (std::size_t m = 0; m < M; ++m) {
    for (std::size_t t = 0; t < N; ++t) means[m] += at(t, m);
    means[m] /= static_cast<double>(N);
  }
  // Mean over chains of the biased (1/N) within-chain autocovariance at `lag`.
  auto acov = [&](std::size_t lag) {
    double s = 0.0;
    for (std::size_t m = 0; m < M; ++m) {
      double c = 0.0;
      for (std::size_t t = 0; t + lag < N; ++t)
        c += (at(t, m) - means[m]) * (at(t + lag, m) - means[m]);
      s += c / static_cast<double>(N);
    }
    return s / static_cast<double>(M);
  };
  const double dn = static_cast<double>(N);
  const double W = acov(0) * dn / (dn - 1.0);
  double b_over_n = 0.0;
  if (M > 1) {
    double grand = 0.0;
    for (double mu : means) grand += mu;
    grand /= static_cast<double>(M);
    for (double mu : means) b_over_n += (mu - grand) * (mu - grand);
    b_over_n /= static_cast<double>(M - 1);
  }
  const double var_plus = (dn - 1.0) / dn * W + b_over_n;
  if (!(var_plus > 0.0) || !std::isfinite(var_plus)) return kNaN;
  auto rho = [&](std::size_t lag) { return 1.0 - (W - acov(lag)) / var_plus; };

  // Geyer's initial positive sequence: sum pairs rho(2k) + rho(2k+1) while positive.
  std::vector<double> r(N + 1, 0.0);
  r[0] = 1.0;
  double even = 1.0, odd = rho(1);
  r[1] = odd;
  std::size_t t = 1;
  while (t + 5 < N && even + odd > 0.0) {
    even = rho(t + 1);
    odd = rho(t + 2);
    if (even + odd >= 0.0) {
      r[t + 1] = even;
      r[t + 2] = odd;
    }
    t += 2;
  }
  const std::size_t max_t = t;
  if (even > 0.0) r[max_t + 1] = even;
  // Initial monotone sequence: the pair sums may not increase.
  for (std::size_t k = 1; k + 4 <= max_t; k += 2) {
    if (r[k + 1] + r[k + 2] > r[k - 1] + r[k]) {
      r[k + 1] = 0.5 * (r[k - 1] + r[k]);
      r[k + 2] = r[k + 1];
    }
  }
  double tau = -1.0;
  for (std::size_t k = 0; k <= max_t; ++k) tau += 2.0 * r[k];
  tau += r[max_t + 1];
  const double total = static_cast<double>(N * M);
  tau = std::max(tau, 1.0 / std::log10(total));
  return total / tau;
}

}  // namespace logz
