#include "logz/estimators/bar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/math/log_space_arrays.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
}  // namespace

namespace detail {

BennettEquation::BennettEquation(const FermiTerms& forward, const FermiTerms& reverse,
                                 double num_forward, double num_reverse)
    : forward_(forward),
      reverse_(reverse),
      nf_(num_forward),
      nr_(num_reverse),
      m_(std::log(nf_ / nr_)) {}

BennettPoint BennettEquation::operator()(double delta_f) const {
  BennettPoint p;
  p.delta_f = delta_f;
  p.forward = forward_.at(m_ - delta_f);
  p.reverse = reverse_.at(-m_ + delta_f);
  p.value = p.forward.log_f() - p.reverse.log_f();
  // d/dDeltaF log sum f(x_i) = <f(-x)>_f (x falls as DeltaF grows); the reverse side the same.
  p.slope = p.forward.slope() + p.reverse.slope();
  return p;
}

BennettSolution solve_bennett(const BennettEquation& g, double start, double low, double high,
                              double tolerance, int max_iterations, int max_expansions,
                              std::string_view function) {
  const double inf = std::numeric_limits<double>::infinity();
  BennettSolution s;
  // lo and hi: the nearest points seen with g < 0 and g > 0. Steps stay strictly between them,
  // and beyond [low, high] (the range the root is expected in) go at most `grow` further,
  // doubling each time a step has to leave it again.
  double lo = -inf, hi = inf, grow = std::max(high - low, 1.0);
  BennettPoint p = g(start);
  while (true) {
    if (!std::isfinite(p.value)) {
      throw NumericalError(
          fmt::format("{}: Bennett's equation is not finite at DeltaF = {:g} (works beyond what "
                      "double precision can solve for)",
                      function, p.delta_f));
    }
    if (p.value < 0.0) lo = p.delta_f;
    if (p.value > 0.0) hi = p.delta_f;
    if (s.iterations >= max_iterations) break;
    ++s.iterations;
    const double x = p.delta_f, step = -p.value / p.slope;
    const double tol = tolerance + 4.0 * kEps * std::abs(x);
    if (p.value == 0.0 || std::abs(step) <= tol || hi - lo <= tol) {
      s.converged = true;
      break;
    }
    double next = x + step;
    if (std::isfinite(lo) && std::isfinite(hi)) {
      if (!(next > lo && next < hi))
        next = 0.5 * (lo + hi);  // bisection when Newton leaves the bracket
    } else if (p.value < 0.0) {  // the root is above x; nothing above it seen yet
      if (!(next > x && next <= high)) {
        if (x < high) {
          next = high;
        } else {
          if (++s.bracket_expansions > max_expansions) break;
          high = x + grow;
          grow *= 2.0;
          next = high;
        }
      }
    } else {  // below x
      if (!(next < x && next >= low)) {
        if (x > low) {
          next = low;
        } else {
          if (++s.bracket_expansions > max_expansions) break;
          low = x - grow;
          grow *= 2.0;
          next = low;
        }
      }
    }
    if (next == x) {  // no representable number between: as close as double precision allows
      s.converged = true;
      break;
    }
    p = g(next);
  }
  if (s.bracket_expansions > max_expansions) {
    throw NumericalError(
        fmt::format("{}: could not bracket the root of Bennett's equation within {} doublings "
                    "of its starting range",
                    function, max_expansions));
  }
  s.root = p;
  return s;
}

BennettStart bennett_start(std::span<const double> forward_works,
                           std::span<const double> reverse_works) {
  const double nf = static_cast<double>(forward_works.size()),
               nr = static_cast<double>(reverse_works.size());
  // DeltaF = -log Z from exponential averages: forward (AIS) and reverse (RAISE).
  const double ais = -(log_sum_exp_scaled(forward_works, -1.0) - std::log(nf));
  const double raise = log_sum_exp_scaled(reverse_works, -1.0) - std::log(nr);
  // Four independent partial sums: not one long chain of dependent additions.
  const auto sum = [](std::span<const double> x) {
    double part[4] = {0.0, 0.0, 0.0, 0.0};
    std::size_t i = 0;
    for (; i + 4 <= x.size(); i += 4)
      for (std::size_t k = 0; k < 4; ++k) part[k] += x[i + k];
    for (; i < x.size(); ++i) part[0] += x[i];
    return (part[0] + part[1]) + (part[2] + part[3]);
  };
  const double starts[] = {ais, raise, sum(forward_works) / nf, -sum(reverse_works) / nr};
  return {0.5 * (ais + raise), *std::min_element(std::begin(starts), std::end(starts)),
          *std::max_element(std::begin(starts), std::end(starts))};
}

double bar_variance_term(const FermiSums& side, double n) {
  // log(n sum f^2 / (sum f)^2): the scale factors exp(2c) cancel.
  const double log_ratio = std::log(side.f_squared) + std::log(n) - 2.0 * std::log(side.f);
  return std::max(0.0, std::expm1(log_ratio)) / n;
}

double bar_overlap(const BennettPoint& p, double num_forward, double num_reverse) {
  const double log_ff = log_add_exp(std::log(p.forward.f_f_minus) - p.forward.log_scale,
                                    std::log(p.reverse.f_f_minus) - p.reverse.log_scale);
  return std::exp(log_ff + std::log(1.0 / num_forward + 1.0 / num_reverse));
}

}  // namespace detail

namespace {

constexpr int kBarBracketExpansions = 100;

bool all_equal(std::span<const double> x) {
  return std::all_of(x.begin(), x.end(), [&](double v) { return v == x[0]; });
}

void check_inputs(const std::string& function, std::span<const double> forward_works,
                  std::span<const double> reverse_works, const BarOptions& options) {
  detail::require_two_sided_inputs(function, forward_works, reverse_works, options.tolerance,
                                   options.max_iterations);
}

// The works with Bennett's equation over them (which views forward and reverse: not copied).
struct BarProblem {
  FermiTerms forward, reverse;
  detail::BennettEquation g;
  BarProblem(std::span<const double> wf, std::span<const double> wr)
      : forward(wf),
        reverse(wr),
        g(forward, reverse, static_cast<double>(wf.size()), static_cast<double>(wr.size())) {}
  BarProblem(const BarProblem&) = delete;
  BarProblem& operator=(const BarProblem&) = delete;
};

// Fills log_z, std_error, overlap and flags of a BAR estimate from the sums at the solution.
Estimate finish(std::string method, std::span<const double> wf, std::span<const double> wr,
                const BarProblem& problem, const detail::BennettPoint& root, int iterations,
                bool converged) {
  Estimate est;
  est.method = std::move(method);
  est.log_z = -root.delta_f;
  est.se_method = "bar_asymptotic";
  Diagnostics& diag = est.diagnostics;
  diag.iterations = iterations;
  diag.converged = converged;
  if (!converged) diag.add_flag("not_converged");
  diag.values.emplace_back("delta_f", root.delta_f);

  const double nf = static_cast<double>(wf.size()), nr = static_cast<double>(wr.size());
  // 2-state MBAR overlap: O_01 + O_10 = (1/N_f + 1/N_r) [sum_i f(x_i) f(-x_i) +
  // sum_j f(y_j) f(-y_j)], which is 1 for identical distributions (all f = 1/2, N_f = N_r).
  diag.overlap = detail::bar_overlap(root, nf, nr);
  if (diag.overlap < detail::kPoorOverlap) diag.add_flag("poor_overlap");

  if (wf.size() < 2 || wr.size() < 2) {
    diag.add_flag("too_few_samples");
    return est;
  }
  // A constant side contributes exactly 0; evaluating the formula would leave rounding noise.
  const double var = (all_equal(wf) ? 0.0 : detail::bar_variance_term(root.forward, nf)) +
                     (all_equal(wr) ? 0.0 : detail::bar_variance_term(root.reverse, nr));
  detail::set_std_error(est, std::sqrt(var));
  // Every W_f above every -W_r: log Z is only known to lie in the gap (detail::disjoint_works).
  if (problem.forward.lowest() > -problem.reverse.lowest() && std::isfinite(est.std_error)) {
    est.std_error = kNaN;
    diag.add_flag("no_overlap");
  }
  return est;
}

}  // namespace

Estimate bar(std::span<const double> forward_works, std::span<const double> reverse_works,
             const BarOptions& options) {
  check_inputs("bar", forward_works, reverse_works, options);
  const BarProblem problem(forward_works, reverse_works);

  const detail::BennettStart from = detail::bennett_start(forward_works, reverse_works);
  const detail::BennettSolution s =
      detail::solve_bennett(problem.g, from.start, from.low, from.high, options.tolerance,
                            options.max_iterations, kBarBracketExpansions, "bar");
  Estimate est =
      finish("bar", forward_works, reverse_works, problem, s.root, s.iterations, s.converged);
  est.diagnostics.values.emplace_back("bracket_expansions", s.bracket_expansions);
  return est;
}

Estimate bar_fixed_point(std::span<const double> forward_works,
                         std::span<const double> reverse_works, const BarOptions& options) {
  check_inputs("bar_fixed_point", forward_works, reverse_works, options);
  const BarProblem problem(forward_works, reverse_works);

  // log Z <- log Z + log sum_i f(M + W_f_i + log Z) - log sum_j f(-M + W_r_j - log Z), i.e.
  // DeltaF <- DeltaF - g(DeltaF).
  double delta_f = detail::bennett_start(forward_works, reverse_works).start;
  int iterations = 0;
  bool converged = false;
  while (iterations < options.max_iterations) {
    ++iterations;
    const double update = -problem.g(delta_f).value;
    delta_f += update;
    if (std::abs(update) <= options.tolerance + 4.0 * kEps * std::abs(delta_f)) {
      converged = true;
      break;
    }
  }
  return finish("bar_fixed_point", forward_works, reverse_works, problem, problem.g(delta_f),
                iterations, converged);
}

}  // namespace logz
