#include "logz/samplers/hmc_sampler.hpp"

#include <algorithm>
#include <cmath>

namespace logz {

void StepSizeAdaptation::update(double& step_size, double& average_acceptance, double acceptance) const {
  average_acceptance = slowness * average_acceptance + (1.0 - slowness) * acceptance;
  step_size *= average_acceptance > target_acceptance ? increase : decrease;
  step_size = std::clamp(step_size, min_step, max_step);
}

void StepSizeAdaptation::validate() const {
  const char* f = "logz::StepSizeAdaptation";
  if (!(target_acceptance > 0.0 && target_acceptance < 1.0)) fail_argument(f, "target_acceptance", "a number in (0, 1)");
  if (!(slowness >= 0.0 && slowness < 1.0)) fail_argument(f, "slowness", "a number in [0, 1)");
  if (!(increase >= 1.0 && std::isfinite(increase))) fail_argument(f, "increase", "a finite factor >= 1");
  if (!(decrease > 0.0 && decrease <= 1.0)) fail_argument(f, "decrease", "a factor in (0, 1]");
  if (!(min_step > 0.0 && std::isfinite(max_step) && min_step <= max_step))
    fail_argument(f, "min_step, max_step", "0 < min_step <= max_step, finite");
}

AdaptPhase parse_adapt_phase(const std::string& name) {
  if (name == "burn_in") return AdaptPhase::burn_in;
  if (name == "always") return AdaptPhase::always;
  if (name == "never") return AdaptPhase::never;
  fail_argument("logz::parse_adapt_phase", "name", "\"burn_in\", \"always\" or \"never\", got \"" + name + "\"");
}

std::string to_string(AdaptPhase phase) {
  switch (phase) {
    case AdaptPhase::burn_in: return "burn_in";
    case AdaptPhase::always: return "always";
    default: return "never";
  }
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
      for (std::size_t t = 0; t + lag < N; ++t) c += (at(t, m) - means[m]) * (at(t + lag, m) - means[m]);
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
