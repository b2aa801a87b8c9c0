// Single-site Metropolis on a marginal of the tempered RBM (Habeck 2017,
// section 6.3): the kept layer s (h for RbmMode::hidden, v for
// RbmMode::visible) with the other layer summed out,
//   U_t(s) = -c.s - sum_i softplus(y_i(s)),  y(s) = d + t A s,
// (hidden: c = t b, d = (1 - t) a0 + t a, A = W; visible: c = (1 - t) a0 + t a,
// d = t b, A = W^T). A step proposes flipping one uniformly random unit s_j
// (sign delta = 1 - 2 s_j), Delta U = -c_j delta - sum_i [softplus(y_i + t
// delta A_ij) - softplus(y_i)], and accepts with probability min(1, e^-Delta U).
// Each step is reversible, so the kernel is its own time reversal. A step costs
// O(size of the summed layer) softplus evaluations, done in double.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class Scalar>
class RbmMarginalMetropolis {
 public:
  // steps: single-unit proposals per particle and call.
  explicit RbmMarginalMetropolis(std::size_t steps) : steps_(steps) {}

  // Throws InvalidArgument for a joint target (this kernel samples a marginal).
  KernelInfo step(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                  const BatchRandom& random) const;
  RbmMarginalMetropolis with_steps(std::size_t steps) const { return RbmMarginalMetropolis(steps); }
  std::size_t steps() const { return steps_; }

 private:
  std::size_t steps_;
};

extern template class RbmMarginalMetropolis<float>;
extern template class RbmMarginalMetropolis<double>;

static_assert(KernelFor<RbmMarginalMetropolis<float>, RbmMarginalVisiblePath<float>>);
static_assert(KernelFor<RbmMarginalMetropolis<double>, RbmMarginalHiddenPath<double>>);

}  // namespace logz
