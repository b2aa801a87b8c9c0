#include "logz/kernels/step_size_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "logz/core/error.hpp"

namespace logz {

StepSizeProfile::StepSizeProfile(double step_size)
    : StepSizeProfile(std::vector<double>{0.0}, std::vector<double>{step_size}) {}

StepSizeProfile::StepSizeProfile(std::vector<double> fractions, std::vector<double> step_sizes)
    : t_(std::move(fractions)), eps_(std::move(step_sizes)) {
  constexpr const char* kWho = "logz::StepSizeProfile";
  if (t_.empty() || t_.size() != eps_.size())
    fail_argument(kWho, "step_sizes", "as many step sizes as fractions, at least one");
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (!std::isfinite(t_[i]) || (i > 0 && !(t_[i] > t_[i - 1])))
      fail_argument(kWho, "fractions", "finite and strictly rising");
    if (!(eps_[i] > 0.0) || !std::isfinite(eps_[i]))
      fail_argument(kWho, "step_sizes", "positive and finite");
  }
}

double StepSizeProfile::at(double t) const {
  if (t <= t_.front()) return eps_.front();
  if (t >= t_.back()) return eps_.back();
  const auto hi = static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
  const std::size_t lo = hi - 1;
  if (t == t_[lo]) return eps_[lo];  // a knot: its own step size, bit for bit
  const double w = (t - t_[lo]) / (t_[hi] - t_[lo]);
  return std::exp((1.0 - w) * std::log(eps_[lo]) + w * std::log(eps_[hi]));
}

}  // namespace logz
