#include "logz/samplers/hmc_sampler.hpp"

#include <algorithm>
#include <cmath>

namespace logz {

void StepSizeAdaptation::update(double& step_size, double& average_acceptance,
                                double acceptance) const {
  average_acceptance = slowness * average_acceptance + (1.0 - slowness) * acceptance;
  step_size *= average_acceptance > target_acceptance ? increase : decrease;
  step_size = std::clamp(step_size, min_step, max_step);
}

void StepSizeAdaptation::validate() const {
  const char* f = "logz::StepSizeAdaptation";
  if (!(target_acceptance > 0.0 && target_acceptance < 1.0))
    fail_argument(f, "target_acceptance", "a number in (0, 1)");
  if (!(slowness >= 0.0 && slowness < 1.0)) fail_argument(f, "slowness", "a number in [0, 1)");
  if (!(increase >= 1.0 && std::isfinite(increase)))
    fail_argument(f, "increase", "a finite factor >= 1");
  if (!(decrease > 0.0 && decrease <= 1.0)) fail_argument(f, "decrease", "a factor in (0, 1]");
  if (!(min_step > 0.0 && std::isfinite(max_step) && min_step <= max_step))
    fail_argument(f, "min_step, max_step", "0 < min_step <= max_step, finite");
}

}  // namespace logz
