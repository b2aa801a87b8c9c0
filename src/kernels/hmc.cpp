#include "logz/kernels/hmc.hpp"

#include "logz/core/error.hpp"

namespace logz {

Hmc::Hmc(double step_size, int leapfrog_steps)
    : step_size_(step_size), leapfrog_steps_(leapfrog_steps) {
  if (!(std::isfinite(step_size) && step_size > 0.0))
    fail_argument("logz::Hmc", "step_size", "a finite number > 0");
  if (leapfrog_steps < 1) fail_argument("logz::Hmc", "leapfrog_steps", "at least 1");
}

}  // namespace logz
