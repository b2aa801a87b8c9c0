#include "logz/estimators/histogram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/math/effective_sample_size.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/random/philox.hpp"

namespace logz {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPoorOverlap = 0.03;  // as bar(): below this asymptotic errors are doubtful
constexpr double kLowPosteriorEss = 100.0;
constexpr int kMaxBracketExpansions = 200;

void check_options(const std::string& function, std::span<const double> forward_works,
                   std::span<const double> reverse_works, const HistogramOptions& options) {
  detail::require_two_sided_inputs(function, forward_works, reverse_works, options.tolerance,
                                   options.max_iterations);
}

// Support points of p_f with their counts and log c_b. Reverse works enter as w = -W_r.
WorkDistribution make_support(std::span<const double> wf, std::span<const double> wr,
                              std::size_t bins) {
  WorkDistribution d;
  if (bins == 0) {
    // One point per distinct value: sort each side, then merge them, grouping equal values.
    std::vector<double> f(wf.begin(), wf.end()), r(wr.size());
    for (std::size_t j = 0; j < wr.size(); ++j) r[j] = -wr[j];
    std::sort(f.begin(), f.end());
    std::sort(r.begin(), r.end());
    d.support.reserve(f.size() + r.size());
    std::size_t i = 0, j = 0;
    while (i < f.size() || j < r.size()) {
      const double v = j == r.size() || (i < f.size() && f[i] <= r[j]) ? f[i] : r[j];
      std::size_t nf = 0, nr = 0;
      for (; i < f.size() && f[i] == v; ++i) ++nf;
      for (; j < r.size() && r[j] == v; ++j) ++nr;
      d.support.push_back(v);
      d.log_c.push_back(-v);
      d.forward_counts.push_back(nf);
      d.reverse_counts.push_back(nr);
    }
    return d;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double w : wf) lo = std::min(lo, w), hi = std::max(hi, w);
  for (double w : wr) lo = std::min(lo, -w), hi = std::max(hi, -w);
  if (lo == hi) {
    d.support = {lo};
    d.log_c = {-lo};
    d.forward_counts = {wf.size()};
    d.reverse_counts = {wr.size()};
    return d;
  }
  const double width = (hi - lo) / static_cast<double>(bins);
  std::vector<std::size_t> nf(bins, 0), nr(bins, 0);
  auto index = [&](double v) {
    const double x = std::floor((v - lo) / width);
    return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, x)));
  };
  for (double w : wf) ++nf[index(w)];
  for (double w : wr) ++nr[index(-w)];
  // (1/h) int_a^{a+h} exp(-w) dw = exp(-a) (1 - exp(-h)) / h, in logs.
  const double log_shape = std::log(-std::expm1(-width)) - std::log(width);
  d.bin_width = width;
  for (std::size_t b = 0; b < bins; ++b) {
    if (nf[b] + nr[b] == 0) continue;  // an empty bin has pi_b = 0 in the MLE and the posterior
    const double a = lo + static_cast<double>(b) * width;
    d.support.push_back(a + 0.5 * width);
    d.log_c.push_back(-a + log_shape);
    d.forward_counts.push_back(nf[b]);
    d.reverse_counts.push_back(nr[b]);
  }
  return d;
}

// The WHAM equation for L = log Z. With x_b = log(N_r c_b / N_f) - L and s_b = 1 / (1 + exp(x_b))
// (the forward share of point b), the MLE solves sum_b n_b s_b = N_f, i.e. (subtracting
// sum_b f_b from both sides, f_b and r_b the forward and reverse counts of point b)
//   h(L) = log sum_b r_b s_b - log sum_b f_b (1 - s_b) = 0,
// increasing in L. In this balanced form neither side is a sum of terms close to 1, so h stays
// exact when the forward and reverse works do not overlap (there sum_b n_b s_b rounds to N_f
// over a wide range of L and the plain form is flat). One exp per point; the sums are taken in
// log space only when one of them underflows.
class WhamEquation {
 public:
  explicit WhamEquation(const WorkDistribution& d) : d_(d), n_(d.support.size()) {
    for (std::size_t b = 0; b < n_.size(); ++b) {
      nf_ += static_cast<double>(d.forward_counts[b]);
      nr_ += static_cast<double>(d.reverse_counts[b]);
      n_[b] = static_cast<double>(d.forward_counts[b] + d.reverse_counts[b]);
    }
    log_ratio_ = std::log(nr_ / nf_);
    log_nf_ = std::log(nf_);
  }

  // h(log_z); also keeps the slope dh/dL.
  double operator()(double log_z) {
    double sr = 0.0, sf = 0.0, sr_slope = 0.0, sf_slope = 0.0;
    for (std::size_t b = 0; b < n_.size(); ++b) {
      const double x = log_ratio_ + d_.log_c[b] - log_z;
      const auto f = static_cast<double>(d_.forward_counts[b]), r = static_cast<double>(d_.reverse_counts[b]);
      double s, t;  // s_b and 1 - s_b
      if (x > 700.0) {
        s = std::exp(-x), t = 1.0;
      } else {
        const double e = std::exp(x);
        s = 1.0 / (1.0 + e), t = e * s;
      }
      sr += r * s, sr_slope += r * s * t;
      sf += f * t, sf_slope += f * s * t;
    }
    if (sr > 1e-290 && sf > 1e-290) {
      slope_ = sr_slope / sr + sf_slope / sf;
      return std::log(sr) - std::log(sf);
    }
    // One side underflows: both sums in log space (log s = -log1p_exp(x), log(1 - s) = x - log1p_exp(x)).
    std::vector<double> lr, lf;
    for (std::size_t b = 0; b < n_.size(); ++b) {
      const double x = log_ratio_ + d_.log_c[b] - log_z, l = log1p_exp(x);
      if (d_.reverse_counts[b] > 0) lr.push_back(std::log(static_cast<double>(d_.reverse_counts[b])) - l);
      if (d_.forward_counts[b] > 0) lf.push_back(std::log(static_cast<double>(d_.forward_counts[b])) + x - l);
    }
    slope_ = 1.0;  // the side that underflows changes like exp(+-L)
    return log_sum_exp(lr) - log_sum_exp(lf);
  }

  double slope() const { return slope_; }

  // log t_b = log(n_b / N_f) - log(1 + exp(x_b)): log pi_b at the root.
  std::vector<double> log_t(double log_z) const {
    std::vector<double> lt(n_.size());
    for (std::size_t b = 0; b < n_.size(); ++b) {
      lt[b] = std::log(n_[b]) - log_nf_ - log1p_exp(log_ratio_ + d_.log_c[b] - log_z);
    }
    return lt;
  }

 private:
  const WorkDistribution& d_;
  std::vector<double> n_;
  double nf_ = 0.0, nr_ = 0.0, log_ratio_ = 0.0, log_nf_ = 0.0, slope_ = 1.0;
};

// Log Z from the forward (AIS) and reverse (RAISE) exponential averages: the starting point.
double starting_log_z(std::span<const double> wf, std::span<const double> wr) {
  std::vector<double> lw(wf.size());
  for (std::size_t i = 0; i < wf.size(); ++i) lw[i] = -wf[i];
  const double ais = log_mean_exp(lw);
  lw.resize(wr.size());
  for (std::size_t j = 0; j < wr.size(); ++j) lw[j] = -wr[j];
  const double raise = -log_mean_exp(lw);
  return 0.5 * (ais + raise);
}

// BAR's asymptotic error and the 2-state overlap for the works -log c_b at the solution
// (bar.hpp): x_b = M - log c_b + log Z with M = log(N_f / N_r); a forward sample in point b has
// f(x_b), a reverse one f(-x_b), f(x) = 1 / (1 + exp(x)).
void add_error_and_overlap(Estimate& est, const WorkDistribution& d, double log_z) {
  double nf = 0.0, nr = 0.0;
  std::size_t forward_points = 0, reverse_points = 0;
  for (std::size_t b = 0; b < d.support.size(); ++b) {
    nf += static_cast<double>(d.forward_counts[b]);
    nr += static_cast<double>(d.reverse_counts[b]);
    forward_points += d.forward_counts[b] > 0;
    reverse_points += d.reverse_counts[b] > 0;
  }
  const double m = std::log(nf / nr);
  std::vector<double> lf, lf2, lr, lr2, lff;
  lf.reserve(forward_points), lf2.reserve(forward_points);
  lr.reserve(reverse_points), lr2.reserve(reverse_points);
  lff.reserve(d.support.size());
  for (std::size_t b = 0; b < d.support.size(); ++b) {
    const double x = m - d.log_c[b] + log_z;
    const double log_f = -log1p_exp(x), log_f_minus = -log1p_exp(-x);
    const double log_n = std::log(static_cast<double>(d.forward_counts[b] + d.reverse_counts[b]));
    lff.push_back(log_n + log_f + log_f_minus);
    if (d.forward_counts[b] > 0) {
      const double ln = std::log(static_cast<double>(d.forward_counts[b]));
      lf.push_back(ln + log_f);
      lf2.push_back(ln + 2.0 * log_f);
    }
    if (d.reverse_counts[b] > 0) {
      const double ln = std::log(static_cast<double>(d.reverse_counts[b]));
      lr.push_back(ln + log_f_minus);
      lr2.push_back(ln + 2.0 * log_f_minus);
    }
  }
  Diagnostics& diag = est.diagnostics;
  diag.overlap = std::exp(log_sum_exp(lff) + std::log(1.0 / nf + 1.0 / nr));
  if (diag.overlap < kPoorOverlap) diag.add_flag("poor_overlap");
  if (nf < 2.0 || nr < 2.0) {
    diag.add_flag("too_few_samples");
    return;
  }
  // (<f^2>/<f>^2 - 1) / N per side; a side on one point contributes exactly 0.
  auto term = [](const std::vector<double>& l, const std::vector<double>& l2, double n) {
    const double log_ratio = (log_sum_exp(l2) - std::log(n)) - 2.0 * (log_sum_exp(l) - std::log(n));
    return std::max(0.0, std::expm1(log_ratio)) / n;
  };
  const double var = (forward_points > 1 ? term(lf, lf2, nf) : 0.0) +
                     (reverse_points > 1 ? term(lr, lr2, nr) : 0.0);
  detail::set_std_error(est, d.support.size() > 1 ? std::sqrt(var) : 0.0);
  // Every W_f above every -W_r (no point or bin holds both): log Z is only known to lie in the gap.
  double lowest_forward = std::numeric_limits<double>::infinity(), highest_reverse = -lowest_forward;
  for (std::size_t b = 0; b < d.support.size(); ++b) {
    if (d.forward_counts[b] > 0) lowest_forward = std::min(lowest_forward, d.support[b]);
    if (d.reverse_counts[b] > 0) highest_reverse = std::max(highest_reverse, d.support[b]);
  }
  if (lowest_forward > highest_reverse && std::isfinite(est.std_error)) {
    est.std_error = kNaN;
    diag.add_flag("no_overlap");
  }
}

// Solves h(log Z) = 0; fills log_weights of d. Returns log Z, iterations and convergence.
struct Solution {
  double log_z = kNaN;
  int iterations = 0;
  bool converged = false;
};

Solution solve_wham(WorkDistribution& d, std::span<const double> wf, std::span<const double> wr,
                    const HistogramOptions& options) {
  WhamEquation h(d);
  Solution s;
  if (d.support.size() == 1) {
    // One point: p_f is a point mass and Z = c exactly.
    s.log_z = d.log_c[0];
    s.converged = true;
    d.log_weights = {0.0};
    return s;
  }
  // Bracket: h is increasing with slope below 2, so from a point with h < 0 the root is at least
  // |h| / 2 to the right; steps that start at max(|h|, 1) and double find a sign change.
  double x0 = starting_log_z(wf, wr);
  double h0 = h(x0);
  double lo, hi, hlo, hhi;
  double step = std::max(std::abs(h0), 1.0);
  int expansions = 0;
  const auto no_bracket = [&] {
    double largest = 0.0;
    for (double w : wf) largest = std::max(largest, std::abs(w));
    for (double w : wr) largest = std::max(largest, std::abs(w));
    return NumericalError(fmt::format("histogram: forward and reverse works: expected works whose log Z equation "
                                      "changes sign within {} doublings of its start (works up to |W| = {:g} are "
                                      "beyond what it can bracket in double precision)",
                                      kMaxBracketExpansions, largest));
  };
  if (h0 < 0.0) {
    lo = x0, hlo = h0, hi = x0 + step, hhi = h(hi);
    while (hhi < 0.0) {
      if (++expansions > kMaxBracketExpansions) throw no_bracket();
      lo = hi, hlo = hhi, step *= 2.0, hi += step, hhi = h(hi);
    }
  } else {
    hi = x0, hhi = h0, lo = x0 - step, hlo = h(lo);
    while (hlo > 0.0) {
      if (++expansions > kMaxBracketExpansions) throw no_bracket();
      hi = lo, hhi = hlo, step *= 2.0, lo -= step, hlo = h(lo);
    }
  }
  // Safeguarded Newton: a Newton step inside the bracket, bisection otherwise.
  // Newton from the starting point, which is one end of the bracket and usually close.
  double x = hlo == 0.0 ? lo : (hhi == 0.0 ? hi : x0);
  double hx = h(x);
  while (s.iterations < options.max_iterations) {
    ++s.iterations;
    if (hx == 0.0) {
      s.converged = true;
      break;
    }
    if (hx < 0.0)
      lo = x;
    else
      hi = x;
    const double slope = h.slope();
    double next = slope > 0.0 ? x - hx / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const double moved = std::abs(next - x);
    x = next;
    hx = h(x);
    if (moved <= options.tolerance + 4.0 * kEps * std::abs(x) ||
        hi - lo <= options.tolerance + 4.0 * kEps * std::abs(x)) {
      s.converged = true;
      break;
    }
  }
  s.log_z = x;
  // log pi_b = log t_b, renormalised so that rounding in h leaves an exact distribution.
  d.log_weights = h.log_t(x);
  const double log_total = log_sum_exp(d.log_weights);
  for (double& lw : d.log_weights) lw -= log_total;
  return s;
}

// A Gamma(shape, 1) variate, returned as its log (Marsaglia & Tsang 2000; shape >= 1 here).
double log_gamma_variate(double shape, RandomStream& rng) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) U^(1/a) (Marsaglia & Tsang's boost), kept in logs for small a.
    return log_gamma_variate(shape + 1.0, rng) + std::log(rng.uniform()) / shape;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform(), x2 = x * x;
    // Marsaglia & Tsang's squeeze accepts most draws without the logarithms.
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d - d * v + d * std::log(v)) {
      return std::log(d) + std::log(v);
    }
  }
}

// Quantile of sorted data by linear interpolation between order statistics (type 7).
double quantile(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1.0) * p;
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (h - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace

HistogramResult histogram(std::span<const double> forward_works,
                          std::span<const double> reverse_works, const HistogramOptions& options) {
  check_options("histogram", forward_works, reverse_works, options);
  HistogramResult result;
  result.distribution = make_support(forward_works, reverse_works, options.bins);
  const Solution s = solve_wham(result.distribution, forward_works, reverse_works, options);
  Estimate& est = result.estimate;
  est.method = "histogram";
  est.log_z = s.log_z;
  est.se_method = "bar_asymptotic";
  est.diagnostics.iterations = s.iterations;
  est.diagnostics.converged = s.converged;
  if (!s.converged) est.diagnostics.add_flag("not_converged");
  est.diagnostics.values.emplace_back("num_support",
                                      static_cast<double>(result.distribution.support.size()));
  est.diagnostics.values.emplace_back("delta_f", -s.log_z);
  add_error_and_overlap(est, result.distribution, s.log_z);
  return result;
}

HistogramPosteriorResult histogram_posterior(std::span<const double> forward_works,
                                             std::span<const double> reverse_works,
                                             const HistogramPosteriorOptions& options) {
  check_options("histogram_posterior", forward_works, reverse_works, options.histogram);
  if (options.num_draws < 2) {
    fail_argument("histogram_posterior", "options.num_draws",
                  "at least 2, got " + std::to_string(options.num_draws));
  }
  if (options.num_draws + options.burn_in > std::numeric_limits<std::uint32_t>::max()) {
    fail_argument("histogram_posterior", "options.num_draws + options.burn_in",
                  "at most 2^32 - 1 sweeps");
  }
  if (!(options.prior_count >= 0.0) || !std::isfinite(options.prior_count)) {
    fail_argument("histogram_posterior", "options.prior_count",
                  "a finite number >= 0, got " + std::to_string(options.prior_count));
  }
  // The maximum-likelihood fit gives the starting point and the flags of the data.
  HistogramResult mle = histogram(forward_works, reverse_works, options.histogram);
  HistogramPosteriorResult result;
  result.distribution = std::move(mle.distribution);
  const WorkDistribution& d = result.distribution;
  const std::size_t num_points = d.support.size();

  const double nf = static_cast<double>(forward_works.size());
  const double nr = static_cast<double>(reverse_works.size());
  const double log_nf = std::log(nf);
  std::vector<double> shape(num_points), log_g(num_points), log_gc(num_points);
  for (std::size_t b = 0; b < num_points; ++b) {
    shape[b] = static_cast<double>(d.forward_counts[b] + d.reverse_counts[b]) + options.prior_count;
  }
  std::vector<double> mean_pi(num_points, 0.0);

  // At the MLE, g = pi (sum g = 1 is the scale the fixed rate N_f implies) and lambda = N_r / Z.
  double log_lambda = std::log(nr) - mle.estimate.log_z;
  const std::size_t sweeps = options.burn_in + options.num_draws;
  result.draws.reserve(options.num_draws);
  for (std::size_t t = 0; t < sweeps; ++t) {
    if ((t & 0x3FF) == 0x3FF) throw_if_stop_requested();  // 2^30 sweeps take hours: Ctrl-C must stop them
    RandomStream rng(options.seed, 0, Purpose::posterior, static_cast<std::uint32_t>(t));
    for (std::size_t b = 0; b < num_points; ++b) {
      // rate N_f + lambda c_b, in logs: c_b spans many orders of magnitude.
      const double log_rate = log_add_exp(log_nf, log_lambda + d.log_c[b]);
      log_g[b] = log_gamma_variate(shape[b], rng) - log_rate;
      log_gc[b] = log_g[b] + d.log_c[b];
    }
    const double log_z0 = log_sum_exp(log_g), log_z1 = log_sum_exp(log_gc);
    log_lambda = log_gamma_variate(nr, rng) - log_z1;
    if (t < options.burn_in) continue;
    result.draws.push_back(log_z1 - log_z0);
    for (std::size_t b = 0; b < num_points; ++b) mean_pi[b] += std::exp(log_g[b] - log_z0);
  }
  const double num_draws = static_cast<double>(options.num_draws);
  for (std::size_t b = 0; b < num_points; ++b) {
    result.distribution.log_weights[b] = std::log(mean_pi[b] / num_draws);
  }

  Estimate& est = result.estimate;
  est.method = "histogram_posterior";
  est.se_method = "posterior_sd";
  double mean = 0.0;
  for (double v : result.draws) mean += v;
  mean /= num_draws;
  double ss = 0.0;
  for (double v : result.draws) ss += (v - mean) * (v - mean);
  est.log_z = mean;
  Diagnostics& diag = est.diagnostics;
  diag.iterations = static_cast<int>(std::min<std::size_t>(sweeps, INT32_MAX));
  diag.overlap = mle.estimate.diagnostics.overlap;
  for (const auto& f : mle.estimate.diagnostics.flags) diag.add_flag(f);
  std::vector<double> sorted = result.draws;
  std::sort(sorted.begin(), sorted.end());
  diag.values.emplace_back("ci95_low", quantile(sorted, 0.025));
  diag.values.emplace_back("ci95_high", quantile(sorted, 0.975));
  const double ess = effective_sample_size(result.draws);
  diag.values.emplace_back("posterior_ess", ess);
  diag.values.emplace_back("num_draws", num_draws);
  diag.values.emplace_back("burn_in", static_cast<double>(options.burn_in));
  diag.values.emplace_back("mle_log_z", mle.estimate.log_z);
  if (!(ess >= kLowPosteriorEss)) diag.add_flag("low_posterior_ess");
  const double sd = std::sqrt(ss / (num_draws - 1.0));
  if (std::isfinite(sd) && sd > 0.0 && std::isfinite(est.log_z)) {
    est.std_error = sd;
  } else if (!diag.has_flag("zero_variance") && !diag.has_flag("overflow")) {
    detail::set_std_error(est, sd);
  }
  return result;
}

}  // namespace logz
