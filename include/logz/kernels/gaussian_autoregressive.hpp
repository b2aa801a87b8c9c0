// The Gaussian kernel of Habeck (2017), section 4, on a GaussianTarget N(mu, sigma^2):
//   T(x | x') = N(x; (1 - tau) mu + tau x', (1 - tau^2) sigma^2),
// an AR(1) step that satisfies detailed balance with respect to N(mu, sigma^2), so
// reverse runs apply it unchanged. tau = 0 draws exactly from the target, tau = 1
// never moves. `steps` applications per call make the same kernel with tau^steps
// (the author's script raises each kernel to the power 5).
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/gaussian_toy.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class GaussianAutoregressive {
 public:
  // steps >= 1 (throws InvalidArgument otherwise).
  explicit GaussianAutoregressive(std::size_t steps = 1);

  // Applies the kernel `steps` times to every particle; particle p draws from
  // random.stream(p). Every application is a draw (no rejection): KernelInfo counts
  // each as attempted and accepted.
  KernelInfo step(const GaussianTarget& target, GaussianBatch& batch,
                  const BatchRandom& random) const;
  std::size_t steps() const { return steps_; }

 private:
  std::size_t steps_;
};

static_assert(KernelFor<GaussianAutoregressive, GaussianToy>);

}  // namespace logz
