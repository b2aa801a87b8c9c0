#include "logz/smc/conditional_ess.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/log_space_arrays.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

double reweight(std::span<double> log_w, std::span<const double> log_incremental, const char* who,
                double t) {
  for (std::size_t i = 0; i < log_w.size(); ++i) log_w[i] += log_incremental[i];
  const double increment = log_sum_exp(log_w);
  if (!std::isfinite(increment)) {
    std::ostringstream t_text;
    t_text << t;  // 6 significant digits: the first step's t is often below 1e-6
    throw NumericalError(std::string(who) + ": at t = " + t_text.str() + " no particle of " +
                         std::to_string(log_w.size()) +
                         " keeps a weight: the target's energy is +inf or NaN at every one, so "
                         "it has no mass where they are (for a likelihood: log L is -inf at "
                         "every particle; check where it is zero)");
  }
  for (double& w : log_w) w -= increment;
  return increment;
}

double ess_fraction(std::span<const double> log_weights) {
  std::vector<double> twice(log_weights.size());
  for (std::size_t i = 0; i < twice.size(); ++i) twice[i] = 2.0 * log_weights[i];
  return std::exp(-log_sum_exp(twice)) / static_cast<double>(log_weights.size());
}

namespace {

// conditional_ess_fraction with its two arrays of terms given (next_temperature's bisection
// evaluates it some 40 times a temperature: one pair of arrays for all of them).
double conditional_ess_fraction_in(std::span<const double> log_weights,
                                   std::span<const double> gaps, double dt,
                                   std::vector<double>& once, std::vector<double>& twice) {
  once.resize(gaps.size()), twice.resize(gaps.size());
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    const double log_w = log_incremental_weight(dt, gaps[i]);
    once[i] = log_weights[i] + log_w;
    twice[i] = log_weights[i] + 2.0 * log_w;
  }
  // Vectorised sums (Highway's exp), over every particle at each of those evaluations.
  const double log_num = 2.0 * log_sum_exp_scaled(once, 1.0),
               log_den = log_sum_exp_scaled(twice, 1.0);
  if (!std::isfinite(log_num) || !std::isfinite(log_den)) return 0.0;  // no mass left
  return std::exp(log_num - log_den);
}

void require_one_gap_per_weight(std::span<const double> log_weights, std::span<const double> gaps,
                                const char* who) {
  if (log_weights.size() != gaps.size() || log_weights.empty())
    fail_argument(who, "gaps", "one gap per weight, at least one");
}

}  // namespace

double conditional_ess_fraction(std::span<const double> log_weights, std::span<const double> gaps,
                                double dt) {
  require_one_gap_per_weight(log_weights, gaps, "logz::conditional_ess_fraction");
  std::vector<double> once, twice;
  return conditional_ess_fraction_in(log_weights, gaps, dt, once, twice);
}

double next_temperature(std::span<const double> log_weights, std::span<const double> gaps, double t,
                        double target_fraction) {
  if (!(target_fraction > 0.0 && target_fraction < 1.0))
    fail_argument("logz::next_temperature", "target_fraction", "a number in (0, 1)");
  if (!(t >= 0.0 && t < 1.0)) fail_argument("logz::next_temperature", "t", "a number in [0, 1)");
  require_one_gap_per_weight(log_weights, gaps, "logz::next_temperature");
  std::vector<double> once, twice;
  auto excess = [&](double t_next) {
    return conditional_ess_fraction_in(log_weights, gaps, t_next - t, once, twice) -
           target_fraction;
  };
  double f_high = excess(1.0);
  if (f_high >= 0.0) return 1.0;
  // The bracket excess(low) >= 0 > excess(high) narrowed to 1e-12. Each evaluation sums over every
  // particle: false position (Illinois: the end that stays twice has its value halved, so both
  // ends move) takes about ten where bisection took forty; a bisection step wherever two steps did
  // not halve the bracket keeps bisection's worst case.
  double low = t, high = 1.0, f_low = 1.0 - target_fraction;  // CESS(t) = N
  int kept_side = 0;                                          // +1: low moved last, -1: high
  double width_before = high - low, width_two_back = 2.0 * width_before;
  for (int step = 0; high - low > 1e-12 && step < 200; ++step) {
    double x = high - f_high * (high - low) / (f_high - f_low);
    if (!(x > low && x < high) || high - low > 0.5 * width_two_back) x = 0.5 * (low + high);
    if (x <= low || x >= high) break;
    width_two_back = width_before, width_before = high - low;
    const double f = excess(x);
    if (f >= 0.0) {
      low = x, f_low = f;
      if (kept_side == 1) f_high *= 0.5;
      kept_side = 1;
    } else {
      high = x, f_high = f;
      if (kept_side == -1) f_low *= 0.5;
      kept_side = -1;
    }
  }
  // The upper end: CESS at most the target, and always a step forward.
  return high;
}

}  // namespace logz
