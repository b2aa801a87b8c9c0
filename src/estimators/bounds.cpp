#include "logz/estimators/bounds.hpp"

#include <string>
#include <string_view>
#include <utility>

#include "logz/estimators/jarzynski.hpp"
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
