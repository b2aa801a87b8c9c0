#include "logz/estimators/cumulant.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "logz/estimators/jarzynski.hpp"

namespace logz {

namespace {

// Sample moments of the works, by two passes (works of 1e4 with spreads of 1 lose nothing).
struct Moments {
  double n = 0.0;
  double mean = kNaN;
  double var = kNaN;  // unbiased, (n - 1)
  double m3 = kNaN;   // central third moment, 1/n
  double m4 = kNaN;   // central fourth moment, 1/n
};

Moments moments_of(std::span<const double> w) {
  Moments m;
  m.n = static_cast<double>(w.size());
  double sum = 0.0;
  for (double v : w) sum += v;
  m.mean = sum / m.n;
  double s2 = 0.0, s3 = 0.0, s4 = 0.0;
  for (double v : w) {
    const double d = v - m.mean, d2 = d * d;
    s2 += d2;
    s3 += d2 * d;
    s4 += d2 * d2;
  }
  m.var = w.size() > 1 ? s2 / (m.n - 1.0) : kNaN;
  m.m3 = s3 / m.n;
  m.m4 = s4 / m.n;
  return m;
}

// Variance (n - 1) of the influence values a (W - mean) + b ((W - mean)^2 - var): the
// delta-method variance of a mean(W) + b var(W) is this divided by n.
double influence_variance(std::span<const double> w, const Moments& m, double a, double b) {
  double sum = 0.0, sum2 = 0.0;
  for (double v : w) {
    const double d = v - m.mean;
    const double psi = a * d + b * (d * d - m.var);
    sum += psi;
    sum2 += psi * psi;
  }
  const double mean_psi = sum / m.n;
  return std::max(0.0, (sum2 - m.n * mean_psi * mean_psi) / (m.n - 1.0));
}

void shape_values(Diagnostics& diag, const Moments& m) {
  const double var_n = m.var * (m.n - 1.0) / m.n;  // 1/n variance for the shape ratios
  diag.values.emplace_back("skewness", var_n > 0.0 ? m.m3 / std::pow(var_n, 1.5) : kNaN);
  diag.values.emplace_back("excess_kurtosis", var_n > 0.0 ? m.m4 / (var_n * var_n) - 3.0 : kNaN);
}

// One-sided estimator: sign = -1 for forward (log Z = -mean + var/2), +1 for reverse
// (log Z = mean - var/2).
Estimate one_sided(std::string method, std::string_view argument, std::span<const double> works,
                   double sign) {
  detail::require_finite_works(method, argument, works);
  const Moments m = moments_of(works);
  Estimate est;
  est.method = std::move(method);
  est.se_method = "delta";
  Diagnostics& diag = est.diagnostics;
  if (works.size() < 2) {
    est.log_z = sign * m.mean;
    diag.add_flag("too_few_samples");
    return est;
  }
  est.log_z = sign * (m.mean - 0.5 * m.var);
  shape_values(diag, m);
  // The third cumulant equals the third central moment: the first term the expansion drops.
  const double truncation = std::abs(m.m3) / 6.0;
  diag.values.emplace_back("truncation", truncation);
  if (works.size() < 3) {
    diag.add_flag("too_few_samples");
    return est;
  }
  const double se = std::sqrt(influence_variance(works, m, sign, -0.5 * sign) / m.n);
  detail::set_std_error(est, m.var == 0.0 ? 0.0 : se);
  if (truncation > 2.0 * est.std_error) diag.add_flag("non_gaussian");
  return est;
}

}  // namespace

Estimate cumulant_forward(std::span<const double> forward_works) {
  return one_sided("cumulant_forward", "forward_works", forward_works, -1.0);
}

Estimate cumulant_reverse(std::span<const double> reverse_works) {
  return one_sided("cumulant_reverse", "reverse_works", reverse_works, +1.0);
}

Estimate cumulant(std::span<const double> forward_works, std::span<const double> reverse_works) {
  detail::require_finite_works("cumulant", "forward_works", forward_works);
  detail::require_finite_works("cumulant", "reverse_works", reverse_works);
  const Moments f = moments_of(forward_works), r = moments_of(reverse_works);
  Estimate est;
  est.method = "cumulant";
  est.se_method = "delta";
  Diagnostics& diag = est.diagnostics;
  if (forward_works.size() < 3 || reverse_works.size() < 3) {
    est.log_z =
        0.5 * (r.mean - f.mean) +
        (forward_works.size() > 1 && reverse_works.size() > 1 ? (f.var - r.var) / 12.0 : 0.0);
    diag.add_flag("too_few_samples");
    return est;
  }
  est.log_z = 0.5 * (r.mean - f.mean) + (f.var - r.var) / 12.0;

  const double var = influence_variance(forward_works, f, -0.5, 1.0 / 12.0) / f.n +
                     influence_variance(reverse_works, r, 0.5, -1.0 / 12.0) / r.n;
  // The one-sided estimates and the error of their difference (influence values of each).
  const double gap = (-f.mean + 0.5 * f.var) - (r.mean - 0.5 * r.var);
  const double gap_var = influence_variance(forward_works, f, -1.0, 0.5) / f.n +
                         influence_variance(reverse_works, r, -1.0, 0.5) / r.n;
  const double gap_se = std::sqrt(gap_var);
  diag.values.emplace_back("forward_reverse_gap", gap);
  diag.values.emplace_back("gap_std_error", gap_se > 0.0 ? gap_se : kNaN);
  detail::set_std_error(est, f.var == 0.0 || r.var == 0.0 ? 0.0 : std::sqrt(var));
  if (std::isfinite(est.std_error) && std::abs(gap) > 5.0 * gap_se) diag.add_flag("non_gaussian");
  return est;
}

}  // namespace logz
