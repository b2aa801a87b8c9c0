// The leapfrog integrator (velocity Verlet: half kick, drift, kick, ..., half kick) for
// H(x, v) = U(x) + |v|^2 / 2 with unit mass, on a batch of particles at once (d x P
// matrices, one column per particle). It is time reversible (run L steps, negate v, run
// L steps: back to the start up to rounding) and volume preserving, and its energy error
// after a fixed time is O(eps^2). Drifts reflect at the target's linear constraints
// (kernels/reflection.hpp).
//
// The paper's HAIS step is the position-Verlet form (half drift, kick, half drift); both
// forms are symmetric and symplectic. Velocity Verlet ends a step with the gradient at the
// new position, which the next step (at the next temperature, via the cached parts)
// starts from: one energy-and-gradient evaluation per leapfrog step.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "logz/kernels/reflection.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

// Particles per block of the passes between gradient evaluations: a block's columns of every
// array (2.3 KB each at d = 36) stay in the first-level cache from one pass to the next (the
// kick, the drift, and the caller's accept test), where the whole d x P arrays of a large chunk
// would each come again from the second level.
inline constexpr Eigen::Index kLeapfrogBlock = 8;

// Integrates `steps` leapfrog steps of size eps from (X0, V0), whose parts with gradients
// `parts0` holds (see evaluate_parts), to (X, V) with their parts in `parts`. The start is
// read, never copied: a Hamiltonian move proposes into scratch and keeps the start for a
// rejection. Between gradient evaluations the kicks and drifts run a block of particles at a
// time; `block_done(p0, np)`, when given, is called on the particles p0 .. p0 + np as soon as
// their last half kick is done. Returns the number of constraint reflections. Gradient
// evaluations: exactly `steps`, the last with energies (those before it with gradients alone
// where the target has them: evaluate_part_grads).
template <ContinuousTarget T, class BlockDone = std::nullptr_t>
std::uint64_t leapfrog(const T& target, const Eigen::MatrixXd& X0, const Eigen::MatrixXd& V0,
                       const EnergyParts& parts0, Eigen::MatrixXd& X, Eigen::MatrixXd& V,
                       EnergyParts& parts, double eps, int steps,
                       BlockDone&& block_done = nullptr) {
  const LinearConstraints* c = constraints_of(target);
  const CoordinateFaces* faces = c ? c->coordinate_faces.get() : nullptr;
  const Eigen::Index n = X0.cols();
  std::uint64_t reflections = 0;
  Eigen::MatrixXd slack;  // searched faces: the slacks carried from one drift to the next
  auto drift = [&](Eigen::Index p0, Eigen::Index np, const Eigen::MatrixXd& from) {
    if (!c) {
      X.middleCols(p0, np).noalias() = from.middleCols(p0, np) + eps * V.middleCols(p0, np);
      return;
    }
    if (&from != &X) X.middleCols(p0, np) = from.middleCols(p0, np);
    if (!faces) {
      reflections += reflected_drifts(*c, X.middleCols(p0, np), V.middleCols(p0, np), eps, slack);
      return;
    }
    for (Eigen::Index p = p0; p < p0 + np; ++p)
      reflections += static_cast<std::uint64_t>(reflected_drift(*faces, X.col(p), V.col(p), eps));
  };
  // Searched faces: one block, so that the drifts' products with the faces (reflected_drifts)
  // read A once for the whole batch.
  const Eigen::Index block = c && !faces ? std::max<Eigen::Index>(n, 1) : kLeapfrogBlock;
  auto for_blocks = [n, block](auto&& f) {
    for (Eigen::Index p0 = 0; p0 < n; p0 += block) f(p0, std::min(block, n - p0));
  };
  V.resize(V0.rows(), n);
  X.resize(X0.rows(), n);  // no change when X is X0
  for_blocks([&](Eigen::Index p0, Eigen::Index np) {
    kick_columns(target, parts0, V0, V, 0.5 * eps, p0, np);
    drift(p0, np, X0);
  });
  for (int l = 0; l < steps; ++l) {
    // Full kicks between drifts; the last kick is a half kick that ends at time L eps. Only the
    // end's energies are read (the accept test): the steps before it need gradients alone.
    const bool last = l + 1 == steps;
    if (last)
      evaluate_parts(target, X, parts, true);
    else
      evaluate_part_grads(target, X, parts);
    for_blocks([&](Eigen::Index p0, Eigen::Index np) {
      kick_columns(target, parts, V, V, last ? 0.5 * eps : eps, p0, np);
      if (!last)
        drift(p0, np, X);
      else if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<BlockDone>>)
        block_done(p0, np);
    });
  }
  return reflections;
}

// The same in place: on entry `parts` holds the parts with gradients at X; on return at the
// new X.
template <ContinuousTarget T>
std::uint64_t leapfrog(const T& target, Eigen::MatrixXd& X, Eigen::MatrixXd& V, EnergyParts& parts,
                       double eps, int steps) {
  return leapfrog(target, X, V, parts, X, V, parts, eps, steps);
}

}  // namespace logz
