// Block Gibbs sampling for the tempered RBM (models/rbm_paths.hpp): each layer
// is drawn from its exact conditional given the other, all particles of a
// chunk at once (one GEMM per half-sweep). One sweep depends on the target:
//   joint   (v, h): h | v, then v | h; the time reversal, v | h then h | v, is
//                   what reversed() returns and reverse runs apply;
//   visible (p_t(v), h summed out): h | v then v | h, a reversible chain on v
//                   (h is only an auxiliary draw), as in Salakhutdinov & Murray;
//   hidden  (p_t(h), v summed out): v | h then h | v, reversible on h.
// Every draw leaves the target invariant; reports one accepted update per
// particle and sweep.
#pragma once

#include <cstddef>

#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_kernel.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class Scalar>
class RbmGibbs {
 public:
  explicit RbmGibbs(std::size_t sweeps = 1, bool reversed = false)
      : sweeps_(sweeps), reversed_(reversed) {}

  // Particle p draws from random.stream(p) for all its sweeps.
  KernelInfo step(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                  const BatchRandom& random) const;
  // Simulated tempering (core/levels_kernel.hpp): particle p of the batch at path fraction t[p]
  // of `path`, all in one GEMM per half-sweep; the same draws as step(path.at(t[p]), ...) on
  // particle p alone.
  static constexpr bool provides_step_levels = true;
  template <class Path>
  KernelInfo step_levels(const Path& path, std::span<const double> t, RbmBatch<Scalar>& batch,
                         const BatchRandom& random) const {
    RbmTarget<Scalar> target = path.at(1.0);
    target.column_t = t;
    return step(target, batch, random);
  }
  RbmGibbs reversed() const { return RbmGibbs(sweeps_, !reversed_); }
  RbmGibbs with_steps(std::size_t sweeps) const { return RbmGibbs(sweeps, reversed_); }
  std::size_t steps() const { return sweeps_; }
  bool is_reversed() const { return reversed_; }

 private:
  std::size_t sweeps_;
  bool reversed_;
};

// One half-sweep: the hidden (visible) layer of every particle drawn from its conditional.
template <class Scalar>
void rbm_sample_hidden(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                       std::span<RandomStream> streams);
template <class Scalar>
void rbm_sample_visible(const RbmTarget<Scalar>& target, RbmBatch<Scalar>& batch,
                        std::span<RandomStream> streams);

// The reverse start from data (Habeck 2017, section 6.3): particle p takes the
// row of `data` (n x M, binary) that its stream picks uniformly, draws
// h ~ p(h | v) of the target RBM, then makes `sweeps` block Gibbs sweeps at
// t = 1 (the paper's 100), so that the state is close to a target sample.
template <class Scalar>
void rbm_start_from_data(const RbmPathBase<Scalar>& path, RbmBatch<Scalar>& batch,
                         const Eigen::MatrixXd& data, std::size_t sweeps,
                         const BatchRandom& random);

extern template class RbmGibbs<float>;
extern template class RbmGibbs<double>;

static_assert(KernelFor<RbmGibbs<float>, RbmFullPath<float>> &&
              KernelFor<RbmGibbs<double>, RbmMarginalVisiblePath<double>>);
static_assert(KernelFor<RbmGibbs<float>, RbmMarginalHiddenPath<float>>);
static_assert(uses_step_levels<RbmGibbs<float>, RbmFullPath<float>> &&
              uses_step_levels<RbmGibbs<double>, RbmMarginalVisiblePath<double>>);

}  // namespace logz
