#include "logz/kernels/hais.hpp"

#include "logz/core/error.hpp"

namespace logz {

namespace {

void check_step_size(const char* function, double eps) {
  if (!(std::isfinite(eps) && eps > 0.0))
    fail_argument(function, "step_size", "a finite number > 0");
}

}  // namespace

Hais::Hais(double step_size, double momentum_refresh, int leapfrog_steps, bool refresh_first)
    : step_size_(step_size),
      gamma_(momentum_refresh),
      leapfrog_steps_(leapfrog_steps),
      refresh_first_(refresh_first) {
  check_step_size("logz::Hais", step_size);
  if (!(momentum_refresh > 0.0 && momentum_refresh <= 1.0))
    fail_argument("logz::Hais", "momentum_refresh", "a number in (0, 1]");
  if (leapfrog_steps < 1) fail_argument("logz::Hais", "leapfrog_steps", "at least 1");
}

double Hais::half_life_refresh(double step_size, int leapfrog_steps, double half_life) {
  check_step_size("logz::Hais::half_life_refresh", step_size);
  if (leapfrog_steps < 1)
    fail_argument("logz::Hais::half_life_refresh", "leapfrog_steps", "at least 1");
  if (!(std::isfinite(half_life) && half_life > 0.0))
    fail_argument("logz::Hais::half_life_refresh", "half_life", "a finite number > 0");
  // (1 - gamma)^(T / (eps L)) = 1/2 at T = half_life; -expm1 keeps small gammas accurate.
  return -std::expm1(-std::log(2.0) * step_size * leapfrog_steps / half_life);
}

}  // namespace logz
