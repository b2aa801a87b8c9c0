#include "logz/kernels/rbm_marginal_metropolis.hpp"

#include <cmath>

#include "logz/core/error.hpp"

namespace logz {

template <class Scalar>
KernelInfo RbmMarginalMetropolis<Scalar>::step(const RbmTarget<Scalar>& target,
                                               RbmBatch<Scalar>& batch,
                                               const BatchRandom& random) const {
  if (target.mode == RbmMode::joint)
    fail_argument("logz::RbmMarginalMetropolis::step", "target",
                  "a marginal target (visible or hidden)");
  const Rbm<Scalar>& rbm = *target.rbm;
  const double t = target.t;
  const bool keep_hidden = target.mode == RbmMode::hidden;
  // The summed layer's inputs for the current kept states (one GEMM if stale);
  // copied because updating the kept layer below forgets the cache.
  const RbmMatrix<Scalar> input = keep_hidden ? batch.visible_input() : batch.hidden_input();
  // Column j of A (the change of the summed layer's input when s_j flips) is
  // contiguous: W's column j (hidden kept) or W^T's column j (visible kept).
  const RbmMatrix<Scalar>& A = keep_hidden ? rbm.weights() : rbm.weights_transposed();
  const Eigen::Index n_kept = A.cols(), n_sum = A.rows();
  // c: the kept layer's tempered bias.
  Eigen::ArrayXd c(n_kept);
  const Eigen::ArrayXd a = rbm.visible_bias().template cast<double>().array();
  const Eigen::ArrayXd a0 = target.base_logits->template cast<double>().array();
  const Eigen::ArrayXd b = rbm.hidden_bias().template cast<double>().array();
  if (keep_hidden)
    c = t * b;
  else
    c = (1.0 - t) * a0 + t * a;
  RbmMatrix<Scalar>& S = keep_hidden ? batch.hidden_for_update() : batch.visible_for_update();
  KernelInfo info;
  Eigen::ArrayXd y(n_sum), y_new(n_sum), sp(n_sum), sp_new(n_sum);
  auto softplus_of = [](const Eigen::ArrayXd& z, Eigen::ArrayXd& out) {
    out = z.max(0.0) + ((-z.abs()).exp() + 1.0).log();
  };
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    const auto col = static_cast<Eigen::Index>(p);
    RandomStream rng = random.stream(p);
    // The summed layer's tempered logits: y = (1 - t) a0 + t (a + W h) or t (b + W^T v).
    const Eigen::ArrayXd x = input.col(col).template cast<double>().array();
    y = keep_hidden ? Eigen::ArrayXd((1.0 - t) * a0 + t * x) : Eigen::ArrayXd(t * x);
    softplus_of(y, sp);
    std::uint64_t accepted = 0;
    for (std::size_t k = 0; k < steps_; ++k) {
      const auto j = static_cast<Eigen::Index>(rng.below(static_cast<std::uint32_t>(n_kept)));
      const double delta = 1.0 - 2.0 * static_cast<double>(S(j, col));
      y_new = y + (t * delta) * A.col(j).template cast<double>().array();
      softplus_of(y_new, sp_new);
      const double dU = -c[j] * delta - (sp_new - sp).sum();
      // e^-dU overflows to +inf for very negative dU: accepted, as it should be.
      if (rng.uniform() < std::exp(-dU)) {
        S(j, col) = static_cast<Scalar>(1) - S(j, col);
        y.swap(y_new);
        sp.swap(sp_new);
        ++accepted;
      }
    }
    info.attempted += steps_;
    info.accepted += accepted;
  }
  return info;
}

template class RbmMarginalMetropolis<float>;
template class RbmMarginalMetropolis<double>;

}  // namespace logz
