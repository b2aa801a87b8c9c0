#include "logz/estimators/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logz/estimators/jarzynski.hpp"
#include "logz/math/pareto_tail.hpp"
#include "logz/math/running_moments.hpp"

namespace logz {

namespace {

Estimate mean_work_bound(std::string method, std::string_view argument,
                         std::span<const double> works, double sign) {
  detail::require_finite_works(method, argument, works);
  RunningMoments moments;
  for (double w : works) moments.add(w);

  Estimate est;
  est.method = std::move(method);
  est.log_z = sign * moments.mean();
  est.se_method = "sample_mean";
  if (works.size() < 2) {
    est.diagnostics.add_flag("too_few_samples");
  } else {
    detail::set_std_error(est, moments.std_error_of_mean());
  }
  // The mean's error bar needs works of finite variance: a heavy right tail (a path now and then
  // far out where base and target differ by much) makes the bound and its SE both meaningless.
  // k-hat of the works' largest values (a Pareto fit to their exceedances, so any shift does):
  // fitted as weights exp(log(W - W_min + 1)) = W - W_min + 1.
  if (works.size() >= 10 && std::isfinite(est.log_z)) {
    const double lowest = *std::min_element(works.begin(), works.end());
    std::vector<double> log_shifted(works.size());
    for (std::size_t i = 0; i < works.size(); ++i) log_shifted[i] = std::log1p(works[i] - lowest);
    const double k_hat = pareto_k_hat(log_shifted);
    if (std::isfinite(k_hat)) {
      est.diagnostics.values.emplace_back("pareto_k", k_hat);
      if (k_hat > pareto_k_threshold(works.size())) est.diagnostics.add_flag("heavy_tailed_works");
    }
  }
  return est;
}

}  // namespace

Estimate lower_bound(std::span<const double> forward_works) {
  return mean_work_bound("lower_bound", "forward_works", forward_works, -1.0);
}

Estimate upper_bound(std::span<const double> reverse_works) {
  return mean_work_bound("upper_bound", "reverse_works", reverse_works, +1.0);
}

}  // namespace logz
