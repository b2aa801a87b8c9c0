#include "logz/kernels/gaussian_autoregressive.hpp"

#include <cmath>

#include "logz/core/error.hpp"

namespace logz {

GaussianAutoregressive::GaussianAutoregressive(std::size_t steps) : steps_(steps) {
  if (steps < 1) fail_argument("logz::GaussianAutoregressive", "steps", "an integer >= 1");
}

KernelInfo GaussianAutoregressive::step(const GaussianTarget& target, GaussianBatch& batch,
                                        const BatchRandom& random) const {
  const double tau = target.tau;
  // x <- mu + tau (x - mu) + sqrt(1 - tau^2) sigma z: the centred form keeps x = mu a fixed
  // point in floating point; (1 - tau)(1 + tau) avoids the cancellation of 1 - tau^2 near 1.
  const double noise = std::sqrt((1.0 - tau) * (1.0 + tau)) * target.std_dev;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    double x = batch.x(p);
    for (std::size_t s = 0; s < steps_; ++s)
      x = target.mean + tau * (x - target.mean) + noise * rng.normal();
    batch.x(p) = x;
  }
  const std::uint64_t n = static_cast<std::uint64_t>(batch.num_particles()) * steps_;
  return KernelInfo{n, n};
}

}  // namespace logz
