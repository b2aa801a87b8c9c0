// The tilted path from a base with an exact sampler and known log Z_0: U_t(x) = U_base(x) +
// t G(x), t in [0, 1], with G the tilt. It is the geometric path from the base to the target
// U_base + G (paths/geometric_path.hpp), held with the tilt as its second part instead of the
// target's whole energy: an evaluation computes the base's energy once, not twice, and the
// energy gap U_1 - U_0 = G is read off, not found by a difference. For the evidence of a prior
// x likelihood (evidence/run_evidence.hpp) the base is the prior and G = -log L: the path of
// likelihood tempering, prior x L^t. The target's support is the base's (its constraints).
#pragma once

#include <Eigen/Core>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/paths/geometric_path.hpp"

namespace logz {

// The tempered target U_base + t G: parts (base, tilt) with weights (1, t).
template <ContinuousBase Base, ContinuousTarget Tilt>
class TiltedTarget : public GeometricParts<Base, Tilt, TiltedTarget<Base, Tilt>> {
 public:
  TiltedTarget(const Base& base, const Tilt& tilt, double t, const void* tag)
      : GeometricParts<Base, Tilt, TiltedTarget>(base, tilt, tag), base_(&base), t_(t) {}

  double t() const { return t_; }
  double part_weight(int k) const { return k == 0 ? 1.0 : t_; }
  // The base's constraints: the tilt only reweights inside them.
  const LinearConstraints* constraints() const { return constraints_of(*base_); }

 private:
  const Base* base_;
  double t_;
};

// What adaptive tempered SMC (smc/adaptive_smc.hpp) needs of a path: the tempered targets and
// the base's exact draws with both parts.
template <ContinuousBase Base, ContinuousTarget Tilt>
class TiltedPath {
 public:
  using Batch = ContinuousBatch;
  using TemperedTarget = TiltedTarget<Base, Tilt>;

  // Base and tilt are held by value (copies); dimensions must agree.
  TiltedPath(Base base, Tilt tilt) : base_(std::move(base)), tilt_(std::move(tilt)) {
    if (base_.dim() != tilt_.dim())
      fail_argument("logz::TiltedPath", "tilt", "the base's dimension");
  }
  // The path hands out pointers to itself (the cache tag): not copyable or movable.
  TiltedPath(const TiltedPath&) = delete;
  TiltedPath& operator=(const TiltedPath&) = delete;

  const Base& base() const { return base_; }
  const Tilt& tilt() const { return tilt_; }
  int dim() const { return base_.dim(); }
  double base_log_z() const { return base_.log_z(); }
  TemperedTarget at(double t) const { return TemperedTarget(base_, tilt_, t, this); }

  // The parts are (U_0, G), not (U_0, U_1): the gap is part 1 itself, U_1 their sum.
  static constexpr bool tilted_path = true;

  Batch make_batch(std::size_t n) const { return Batch(dim(), n); }

  // Exact base draws: particle p takes its position from random.stream(p), then its momentum
  // (d normals, for the Hamiltonian kernels); both parts are evaluated.
  void sample_base(Batch& batch, const BatchRandom& random) const {
    for (Eigen::Index p = 0; p < batch.X.cols(); ++p) {
      RandomStream s = random.stream(static_cast<std::size_t>(p));
      base_.sample_one(s, batch.X.col(p));
      s.fill_normal(batch.V.col(p).data(), static_cast<std::size_t>(batch.V.rows()));
    }
    evaluate_parts(at(0.0), batch.X, batch.parts, false);
  }

 private:
  Base base_;
  Tilt tilt_;
};

}  // namespace logz
