#include "logz/estimators/test_log_likelihood.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/estimators/jarzynski.hpp"

namespace logz {

TestLogLikelihood test_log_likelihood(std::span<const double> free_energies, double log_z,
                                      double log_z_std_error) {
  constexpr const char* fn = "logz::test_log_likelihood";
  detail::require_finite_works(fn, "free_energies", free_energies);
  if (!std::isfinite(log_z)) fail_argument(fn, "log_z", "a finite number");
  if (log_z_std_error < 0.0 || std::isinf(log_z_std_error))
    fail_argument(fn, "log_z_std_error", "a finite number >= 0 (or NaN when unknown)");
  TestLogLikelihood r;
  r.num_examples = free_energies.size();
  const double n = static_cast<double>(free_energies.size());
  // Shifted two-pass moments: free energies of MNIST images are ~ -500 with
  // spreads of ~ 30, so subtracting the mean first keeps the variance exact.
  double mean = 0.0;
  for (double f : free_energies) mean += -f;
  mean /= n;
  r.mean = mean - log_z;
  r.log_z_std_error = log_z_std_error;
  if (free_energies.size() < 2) {
    r.flags.push_back("too_few_samples");
  } else {
    double ss = 0.0;
    for (double f : free_energies) ss += (-f - mean) * (-f - mean);
    r.data_std_error = std::sqrt(ss / (n - 1.0) / n);
  }
  r.std_error = std::hypot(r.data_std_error, log_z_std_error);
  if (std::isnan(log_z_std_error)) r.flags.push_back("log_z_std_error_unknown");
  return r;
}

}  // namespace logz
