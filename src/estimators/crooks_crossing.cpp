#include "logz/estimators/crooks_crossing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/jarzynski.hpp"

namespace logz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kWindow = 10.0;   // kernels beyond 10 bandwidths weigh < exp(-50)
constexpr double kMinNear = 10.0;  // works within 2 bandwidths for a trusted crossing
constexpr int kBisections = 100;

double silverman(const std::vector<double>& sorted) {
  const double n = static_cast<double>(sorted.size());
  double mean = 0.0;
  for (double v : sorted) mean += v;
  mean /= n;
  double ss = 0.0;
  for (double v : sorted) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / std::max(1.0, n - 1.0));
  auto q = [&](double p) {
    const double h = (n - 1.0) * p;
    const auto i = static_cast<std::size_t>(h);
    return i + 1 < sorted.size()
               ? sorted[i] + (h - static_cast<double>(i)) * (sorted[i + 1] - sorted[i])
               : sorted.back();
  };
  const double iqr = q(0.75) - q(0.25);
  const double spread = iqr > 0.0 ? std::min(sd, iqr / 1.34) : sd;
  return 0.9 * spread * std::pow(n, -0.2);
}

// A Gaussian kernel density estimate over sorted data, evaluated in log space from the data
// within kWindow bandwidths (so tails far from all data are -inf, not rounding noise). Large
// samples are first merged into weighted points, the mean of the data in each cell of width
// h / 16: the kernel sum then costs O(range / h) instead of O(n), and replacing data by their
// cell means perturbs the density by O((cell / h)^2) relative, about 1e-4.
class LogKde {
 public:
  LogKde(const std::vector<double>& sorted, double h) : x_(sorted), h_(h) {
    log_norm_ = -std::log(static_cast<double>(x_.size()) * h_ * std::sqrt(2.0 * std::numbers::pi));
    const double cell = h / 16.0;
    const bool merge = x_.size() > kMergeAbove;
    for (std::size_t i = 0; i < x_.size();) {
      std::size_t j = i + 1;
      if (merge) {
        while (j < x_.size() && x_[j] < x_[i] + cell) ++j;
      }
      double sum = 0.0;
      for (std::size_t k = i; k < j; ++k) sum += x_[k];
      points_.push_back(sum / static_cast<double>(j - i));  // cell means stay sorted
      weights_.push_back(static_cast<double>(j - i));
      i = j;
    }
  }

  // log p(w) and d/dw log p(w).
  void eval(double w, double& log_p, double& dlog_p) const {
    const auto first = std::lower_bound(points_.begin(), points_.end(), w - kWindow * h_);
    const auto last = std::upper_bound(first, points_.end(), w + kWindow * h_);
    if (first == last) {
      log_p = -kInf;
      dlog_p = kNaN;
      return;
    }
    // The largest kernel belongs to the point nearest w: one of the two around it.
    const auto near = std::lower_bound(first, last, w);
    double min_z2 = kInf;
    if (near != last) min_z2 = std::min(min_z2, (*near - w) * (*near - w));
    if (near != first) min_z2 = std::min(min_z2, (*(near - 1) - w) * (*(near - 1) - w));
    const double max_e = -0.5 * min_z2 / (h_ * h_);
    double s = 0.0, sd = 0.0;
    for (auto it = first; it != last; ++it) {
      const double z = (w - *it) / h_;
      const double k =
          weights_[static_cast<std::size_t>(it - points_.begin())] * std::exp(-0.5 * z * z - max_e);
      s += k;
      sd += k * (-z / h_);
    }
    log_p = log_norm_ + max_e + std::log(s);
    dlog_p = sd / s;
  }

  double count_within(double w, double r) const {
    return static_cast<double>(std::upper_bound(x_.begin(), x_.end(), w + r) -
                               std::lower_bound(x_.begin(), x_.end(), w - r));
  }

  double size() const { return static_cast<double>(x_.size()); }

 private:
  static constexpr std::size_t kMergeAbove = 4096;  // smaller samples keep every datum

  const std::vector<double>& x_;
  double h_;
  double log_norm_ = 0.0;
  std::vector<double> points_, weights_;
};

}  // namespace

Estimate crooks_crossing(std::span<const double> forward_works,
                         std::span<const double> reverse_works,
                         const CrooksCrossingOptions& options) {
  detail::require_finite_works("crooks_crossing", "forward_works", forward_works);
  detail::require_finite_works("crooks_crossing", "reverse_works", reverse_works);
  if (!(options.bandwidth >= 0.0) || !std::isfinite(options.bandwidth)) {
    fail_argument("crooks_crossing", "options.bandwidth",
                  "a finite number >= 0, got " + std::to_string(options.bandwidth));
  }
  if (options.grid_points < 8) {
    fail_argument("crooks_crossing", "options.grid_points",
                  "at least 8, got " + std::to_string(options.grid_points));
  }
  Estimate est;
  est.method = "crooks_crossing";
  est.se_method = "kde_delta";
  Diagnostics& diag = est.diagnostics;

  std::vector<double> f(forward_works.begin(), forward_works.end()), r(reverse_works.size());
  for (std::size_t j = 0; j < r.size(); ++j) r[j] = -reverse_works[j];
  std::sort(f.begin(), f.end());
  std::sort(r.begin(), r.end());
  if (f.size() < 2 || r.size() < 2) {
    diag.add_flag("too_few_samples");
    diag.add_flag("no_overlap");
    return est;
  }
  const double h =
      options.bandwidth > 0.0 ? options.bandwidth : std::min(silverman(f), silverman(r));
  diag.values.emplace_back("bandwidth", h);
  if (!(h > 0.0)) {
    diag.add_flag("zero_variance");
    return est;
  }
  const LogKde pf(f, h), pr(r, h);

  // Scan the overlap of the two ranges for sign changes of d = log p_f - log p_r.
  const double a = std::max(f.front(), r.front()) - 3.0 * h;
  const double b = std::min(f.back(), r.back()) + 3.0 * h;
  if (!(a < b)) {
    diag.add_flag("no_overlap");
    return est;
  }
  auto d = [&](double w, double& smaller) {
    double lf, dlf, lr, dlr;
    pf.eval(w, lf, dlf);
    pr.eval(w, lr, dlr);
    smaller = std::min(lf, lr);
    return std::isfinite(smaller) ? lf - lr : kNaN;
  };
  const int n = options.grid_points;
  double best_lo = kNaN, best_hi = kNaN, best_height = -kInf;
  double prev_w = a, prev_small;
  double prev_d = d(a, prev_small);
  for (int i = 1; i < n; ++i) {
    const double w = a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1);
    double small;
    const double dw = d(w, small);
    if (std::isfinite(prev_d) && std::isfinite(dw) && (prev_d <= 0.0) != (dw <= 0.0)) {
      const double height = std::min(prev_small, small);
      if (height > best_height) best_height = height, best_lo = prev_w, best_hi = w;
    }
    prev_w = w, prev_d = dw, prev_small = small;
  }
  if (!std::isfinite(best_lo)) {
    diag.add_flag("no_overlap");
    return est;
  }
  // Bisection on the bracket (d is continuous where both densities are positive).
  double unused;
  const bool rising = d(best_lo, unused) <= 0.0;
  for (int i = 0; i < kBisections && best_hi - best_lo > 4.0 * 2.2e-16 * std::abs(best_lo); ++i) {
    const double mid = 0.5 * (best_lo + best_hi);
    const double dm = d(mid, unused);
    if ((dm <= 0.0) == rising)
      best_lo = mid;
    else
      best_hi = mid;
  }
  const double w_cross = 0.5 * (best_lo + best_hi);
  est.log_z = -w_cross;

  double lf, dlf, lr, dlr;
  pf.eval(w_cross, lf, dlf);
  pr.eval(w_cross, lr, dlr);
  const double slope = dlf - dlr;
  const double forward_near = pf.count_within(w_cross, 2.0 * h);
  const double reverse_near = pr.count_within(w_cross, 2.0 * h);
  diag.values.emplace_back("w_cross", w_cross);
  diag.values.emplace_back("slope", slope);
  diag.values.emplace_back("forward_near", forward_near);
  diag.values.emplace_back("reverse_near", reverse_near);
  if (std::min(forward_near, reverse_near) < kMinNear) diag.add_flag("poor_overlap");

  // Var p_hat(w) ~ p(w) R(K) / (n h), R(K) = 1 / (2 sqrt(pi)) for the Gaussian kernel, so
  // Var log p_hat ~ R(K) / (n h p); the root moves by the error of d over its slope.
  const double rk = 0.5 / std::sqrt(std::numbers::pi);
  const double var_d = rk / (pf.size() * h * std::exp(lf)) + rk / (pr.size() * h * std::exp(lr));
  const double se = std::sqrt(var_d) / std::abs(slope);
  if (std::isfinite(se) && se > 0.0) est.std_error = se;
  return est;
}

}  // namespace logz
