#include "logz/estimators/bar.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/running_moments.hpp"

namespace logz {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPoorOverlap = 0.03;  // below this the asymptotic error is not to be trusted
constexpr int kMaxBracketExpansions = 100;

// log f(x) = -log(1 + exp(x)) for the Fermi function f(x) = 1/(1 + exp(x)); no overflow.
double log_fermi(double x) { return -log1p_exp(x); }

bool all_equal(std::span<const double> x) {
  return std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; });
}

double mean(std::span<const double> x) {
  RunningMoments moments;
  for (double v : x) moments.add(v);
  return moments.mean();
}

// Bennett's equation for given works, with scratch space for the log Fermi values.
class BennettEquation {
 public:
  BennettEquation(std::span<const double> forward_works, std::span<const double> reverse_works)
      : wf_(forward_works),
        wr_(reverse_works),
        m_(std::log(static_cast<double>(wf_.size()) / static_cast<double>(wr_.size()))),
        log_f_forward_(wf_.size()),
        log_f_reverse_(wr_.size()) {}

  // g(DeltaF) = log sum_i f(x_i) - log sum_j f(y_j) with x_i = M + W_f_i - DeltaF and
  // y_j = -M + W_r_j + DeltaF: increasing in DeltaF, zero at the BAR root.
  double operator()(double delta_f) {
    for (std::size_t i = 0; i < wf_.size(); ++i) {
      log_f_forward_[i] = log_fermi(m_ + wf_[i] - delta_f);
    }
    for (std::size_t j = 0; j < wr_.size(); ++j) {
      log_f_reverse_[j] = log_fermi(-m_ + wr_[j] + delta_f);
    }
    return log_sum_exp(log_f_forward_) - log_sum_exp(log_f_reverse_);
  }

 private:
  std::span<const double> wf_, wr_;
  double m_;
  std::vector<double> log_f_forward_, log_f_reverse_;
};

void check_inputs(const std::string& function, std::span<const double> forward_works,
                  std::span<const double> reverse_works, const BarOptions& options) {
  detail::require_two_sided_inputs(function, forward_works, reverse_works, options.tolerance,
                                   options.max_iterations);
}

// DeltaF = -log Z from exponential averages: forward (AIS) and reverse (RAISE).
double delta_f_ais(std::span<const double> forward_works) {
  std::vector<double> log_w(forward_works.size());
  for (std::size_t i = 0; i < log_w.size(); ++i) log_w[i] = -forward_works[i];
  return -log_mean_exp(log_w);
}
double delta_f_raise(std::span<const double> reverse_works) {
  std::vector<double> log_w(reverse_works.size());
  for (std::size_t j = 0; j < log_w.size(); ++j) log_w[j] = -reverse_works[j];
  return log_mean_exp(log_w);
}

// (<f^2>/<f>^2 - 1) / N in log space: the contribution of one side to the BAR variance.
double variance_term(std::span<const double> log_f) {
  const double n = static_cast<double>(log_f.size());
  std::vector<double> log_f2(log_f.size());
  for (std::size_t i = 0; i < log_f.size(); ++i) log_f2[i] = 2.0 * log_f[i];
  const double log_ratio = log_mean_exp(log_f2) - 2.0 * log_mean_exp(log_f);
  return std::max(0.0, std::expm1(log_ratio)) / n;
}

// Fills log_z, std_error, overlap and flags of a BAR estimate at the solution delta_f.
Estimate finish(std::string method, std::span<const double> wf, std::span<const double> wr,
                double delta_f, int iterations, bool converged) {
  Estimate est;
  est.method = std::move(method);
  est.log_z = -delta_f;
  est.se_method = "bar_asymptotic";
  Diagnostics& diag = est.diagnostics;
  diag.iterations = iterations;
  diag.converged = converged;
  if (!converged) diag.add_flag("not_converged");
  diag.values.emplace_back("delta_f", delta_f);

  const double nf = static_cast<double>(wf.size()), nr = static_cast<double>(wr.size());
  const double m = std::log(nf / nr);
  std::vector<double> log_f_fwd(wf.size()), log_f_rev(wr.size()), log_ff;
  log_ff.reserve(wf.size() + wr.size());
  for (std::size_t i = 0; i < wf.size(); ++i) {
    const double x = m + wf[i] - delta_f;
    log_f_fwd[i] = log_fermi(x);
    log_ff.push_back(log_f_fwd[i] + log_fermi(-x));
  }
  for (std::size_t j = 0; j < wr.size(); ++j) {
    const double y = -m + wr[j] + delta_f;
    log_f_rev[j] = log_fermi(y);
    log_ff.push_back(log_f_rev[j] + log_fermi(-y));
  }

  // 2-state MBAR overlap: O_01 + O_10 = (1/N_f + 1/N_r) [sum_i f(x_i) f(-x_i) +
  // sum_j f(y_j) f(-y_j)], which is 1 for identical distributions (all f = 1/2, N_f = N_r).
  diag.overlap = std::exp(log_sum_exp(log_ff) + std::log(1.0 / nf + 1.0 / nr));
  if (diag.overlap < kPoorOverlap) diag.add_flag("poor_overlap");

  if (wf.size() < 2 || wr.size() < 2) {
    diag.add_flag("too_few_samples");
    return est;
  }
  // A constant side contributes exactly 0; evaluating the formula would leave rounding noise.
  const double var = (all_equal(wf) ? 0.0 : variance_term(log_f_fwd)) +
                     (all_equal(wr) ? 0.0 : variance_term(log_f_rev));
  detail::set_std_error(est, std::sqrt(var));
  if (detail::disjoint_works(wf, wr) && std::isfinite(est.std_error)) {
    est.std_error = kNaN;
    diag.add_flag("no_overlap");
  }
  return est;
}

}  // namespace

Estimate bar(std::span<const double> forward_works, std::span<const double> reverse_works,
             const BarOptions& options) {
  check_inputs("bar", forward_works, reverse_works, options);
  BennettEquation g(forward_works, reverse_works);

  // Starting bracket: DeltaF from AIS, RAISE and the two mean-work bounds.
  const double starts[] = {delta_f_ais(forward_works), delta_f_raise(reverse_works),
                           mean(forward_works), -mean(reverse_works)};
  double a = *std::min_element(std::begin(starts), std::end(starts));
  double b = *std::max_element(std::begin(starts), std::end(starts));
  double fa = g(a), fb = a == b ? fa : g(b);

  // g is increasing and tends to -inf / +inf with slope about 1, so doubling steps bracket it.
  double step = std::max(b - a, 1.0);
  int expansions = 0;
  while (fa > 0.0 || fb < 0.0) {
    if (++expansions > kMaxBracketExpansions || !std::isfinite(fa) || !std::isfinite(fb)) {
      throw NumericalError("bar: could not bracket the root of Bennett's equation");
    }
    if (fa > 0.0) {
      b = a;
      fb = fa;
      a -= step;
      fa = g(a);
    } else {
      a = b;
      fa = fb;
      b += step;
      fb = g(b);
    }
    step *= 2.0;
  }

  // Brent's method (Brent 1973) on the bracket [a, b], fa <= 0 <= fb: inverse quadratic or
  // secant steps when they stay inside and shrink fast enough, bisection otherwise.
  int iterations = 0;
  bool converged = fa == 0.0 || fb == 0.0;
  double c = b, fc = fb, d = b - a, e = d;
  while (!converged && iterations < options.max_iterations) {
    ++iterations;
    if ((fb > 0.0 && fc > 0.0) || (fb < 0.0 && fc < 0.0)) {
      c = a;
      fc = fa;
      d = e = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const double tol1 = 2.0 * kEps * std::abs(b) + 0.5 * options.tolerance;
    const double xm = 0.5 * (c - b);
    if (std::abs(xm) <= tol1 || fb == 0.0) {
      converged = true;
      break;
    }
    if (std::abs(e) >= tol1 && std::abs(fa) > std::abs(fb)) {
      // Inverse quadratic interpolation, or the secant step when only two points are distinct.
      const double s = fb / fa;
      double p, q;
      if (a == c) {
        p = 2.0 * xm * s;
        q = 1.0 - s;
      } else {
        const double qq = fa / fc, r = fb / fc;
        p = s * (2.0 * xm * qq * (qq - r) - (b - a) * (r - 1.0));
        q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (p > 0.0) q = -q;
      p = std::abs(p);
      const double min1 = 3.0 * xm * q - std::abs(tol1 * q), min2 = std::abs(e * q);
      if (2.0 * p < std::min(min1, min2)) {
        e = d;
        d = p / q;
      } else {
        d = xm;  // interpolation not acceptable: bisect
        e = d;
      }
    } else {
      d = xm;
      e = d;
    }
    a = b;
    fa = fb;
    b += std::abs(d) > tol1 ? d : std::copysign(tol1, xm);
    fb = g(b);
  }
  const double root = (iterations == 0 && fa == 0.0) ? a : b;

  Estimate est = finish("bar", forward_works, reverse_works, root, iterations, converged);
  est.diagnostics.values.emplace_back("bracket_expansions", expansions);
  return est;
}

Estimate bar_fixed_point(std::span<const double> forward_works,
                         std::span<const double> reverse_works, const BarOptions& options) {
  check_inputs("bar_fixed_point", forward_works, reverse_works, options);
  BennettEquation g(forward_works, reverse_works);

  // log Z <- log Z + log sum_i f(M + W_f_i + log Z) - log sum_j f(-M + W_r_j - log Z), i.e.
  // DeltaF <- DeltaF - g(DeltaF).
  double delta_f = 0.5 * (delta_f_ais(forward_works) + delta_f_raise(reverse_works));
  int iterations = 0;
  bool converged = false;
  while (iterations < options.max_iterations) {
    ++iterations;
    const double update = -g(delta_f);
    delta_f += update;
    if (std::abs(update) <= options.tolerance + 4.0 * kEps * std::abs(delta_f)) {
      converged = true;
      break;
    }
  }
  return finish("bar_fixed_point", forward_works, reverse_works, delta_f, iterations, converged);
}

}  // namespace logz
