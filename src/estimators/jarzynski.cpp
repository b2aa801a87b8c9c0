#include "logz/estimators/jarzynski.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/pareto_tail.hpp"
#include "logz/math/running_moments.hpp"

namespace logz {

namespace detail {

void set_std_error(Estimate& est, double se) {
  if (std::isfinite(se) && se > 0.0 && std::isfinite(est.log_z)) {
    est.std_error = se;
  } else {
    est.std_error = kNaN;
    est.diagnostics.add_flag(std::isfinite(se) && std::isfinite(est.log_z) ? "zero_variance"
                                                                           : "overflow");
  }
}

bool disjoint_works(std::span<const double> forward_works, std::span<const double> reverse_works) {
  const double min_forward = *std::min_element(forward_works.begin(), forward_works.end());
  const double min_reverse = *std::min_element(reverse_works.begin(), reverse_works.end());
  return min_forward > -min_reverse;
}

void require_finite_works(std::string_view function, std::string_view argument,
                          std::span<const double> works) {
  if (works.empty()) fail_argument(function, argument, "at least one value, got none");
  for (std::size_t i = 0; i < works.size(); ++i) {
    const double w = works[i];
    if (std::isfinite(w)) continue;
    std::string indexed(argument);
    indexed.append("[").append(std::to_string(i)).append("]");
    const char* got = std::isnan(w) ? "nan" : (w > 0 ? "inf" : "-inf");
    fail_argument(function, indexed, std::string("finite values, got ") + got);
  }
}

void require_two_sided_inputs(std::string_view function, std::span<const double> forward_works,
                              std::span<const double> reverse_works, double tolerance,
                              int max_iterations) {
  require_finite_works(function, "forward_works", forward_works);
  require_finite_works(function, "reverse_works", reverse_works);
  if (!(tolerance > 0.0) || !std::isfinite(tolerance))
    fail_argument(function, "options.tolerance",
                  "a positive finite number, got " + std::to_string(tolerance));
  if (max_iterations < 1)
    fail_argument(function, "options.max_iterations",
                  "at least 1, got " + std::to_string(max_iterations));
}

}  // namespace detail

namespace {

// Nats of estimated dissipated work past which the delta-method error bar is not trusted.
constexpr double kHighDissipation = 0.75;

// Exponential average of log weights -works: log mean exp(-W) with the delta-method error and
// the importance-weight diagnostics. `sign` is +1 for AIS (log Z = log mean) and -1 for RAISE.
Estimate exponential_average(std::string method, std::string_view argument,
                             std::span<const double> works, double sign) {
  detail::require_finite_works(method, argument, works);
  const std::size_t m = works.size();

  std::vector<double> log_w(m);
  for (std::size_t i = 0; i < m; ++i) log_w[i] = -works[i];
  const double log_mean = log_mean_exp(log_w);

  // Normalised weights: the largest is exactly 1, so the sums neither overflow nor underflow.
  const double max_log_w = *std::max_element(log_w.begin(), log_w.end());
  RunningMoments moments;
  double sum_w = 0.0, sum_w2 = 0.0;
  for (double lw : log_w) {
    const double w = std::exp(lw - max_log_w);
    moments.add(w);
    sum_w += w;
    sum_w2 += w * w;
  }

  Estimate est;
  est.method = std::move(method);
  est.log_z = sign * log_mean;
  est.se_method = "delta";

  const double md = static_cast<double>(m);
  Diagnostics& diag = est.diagnostics;
  diag.ess = sum_w * sum_w / sum_w2;
  diag.values.emplace_back("ess_fraction", diag.ess / md);
  diag.values.emplace_back("max_weight_fraction", 1.0 / sum_w);
  if (diag.ess < std::max(10.0, 0.01 * md)) diag.add_flag("low_ess");
  // A heavy right tail of the weights makes the delta-method SE (below) too small whatever
  // the ESS says: flag it by the Pareto k-hat of the tail.
  const double k_hat = pareto_k_hat(log_w);
  if (std::isfinite(k_hat)) {
    diag.values.emplace_back("pareto_k", k_hat);
    if (k_hat > pareto_k_threshold(m)) diag.add_flag("heavy_tailed_weights");
  }

  if (m < 2) {
    diag.add_flag("too_few_samples");
  } else {
    detail::set_std_error(est, std::sqrt(moments.variance()) / (std::sqrt(md) * moments.mean()));
    // Var(W) / 2, the second-cumulant estimate of the work dissipated: past about 0.75 nats the
    // runs that miss the answer are those whose largest weights were not drawn, which the
    // weights drawn cannot show, so the delta-method interval covers less than it promises
    // (docs/calibration.md). Works spread beyond a double's range give no estimate.
    RunningMoments work_moments;
    for (double w : works) work_moments.add(w);
    const double dissipation = 0.5 * work_moments.variance();
    if (std::isfinite(dissipation)) {
      diag.values.emplace_back("dissipation", dissipation);
      if (dissipation > kHighDissipation) diag.add_flag("high_dissipation");
    }
  }
  return est;
}

}  // namespace

Estimate ais(std::span<const double> forward_works) {
  return exponential_average("ais", "forward_works", forward_works, +1.0);
}

Estimate raise(std::span<const double> reverse_works) {
  return exponential_average("raise", "reverse_works", reverse_works, -1.0);
}

}  // namespace logz
