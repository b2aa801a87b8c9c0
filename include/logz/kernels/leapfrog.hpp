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
#include <cstdint>
#include <optional>

#include "logz/kernels/reflection.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

// Integrates `steps` leapfrog steps of size eps from (X0, V0), whose parts with gradients
// `parts0` holds (see evaluate_parts), to (X, V) with their parts in `parts`. The start is
// read, never copied: a Hamiltonian move proposes into scratch and keeps the start for a
// rejection. Returns the number of constraint reflections. Gradient evaluations: exactly
// `steps`.
template <ContinuousTarget T>
std::uint64_t leapfrog(const T& target, const Eigen::MatrixXd& X0, const Eigen::MatrixXd& V0, const EnergyParts& parts0,
                       Eigen::MatrixXd& X, Eigen::MatrixXd& V, EnergyParts& parts, double eps, int steps) {
  const LinearConstraints* c = constraints_of(target);
  const CoordinateFaces* faces = c ? c->coordinate_faces.get() : nullptr;
  std::uint64_t reflections = 0;
  kick(target, parts0, V0, V, 0.5 * eps);
  for (int l = 0; l < steps; ++l) {
    if (c) {
      if (l == 0) X = X0;
      for (Eigen::Index p = 0; p < X.cols(); ++p)
        reflections += static_cast<std::uint64_t>(faces ? reflected_drift(*faces, X.col(p), V.col(p), eps)
                                                        : reflected_drift(*c, X.col(p), V.col(p), eps));
    } else if (l == 0) {
      X.noalias() = X0 + eps * V;
    } else {
      X.noalias() += eps * V;
    }
    evaluate_parts(target, X, parts, true);
    // Full kicks between drifts; the last kick is a half kick that ends at time L eps.
    kick(target, parts, V, V, l + 1 == steps ? 0.5 * eps : eps);
  }
  return reflections;
}

// The same in place: on entry `parts` holds the parts with gradients at X; on return at the
// new X.
template <ContinuousTarget T>
std::uint64_t leapfrog(const T& target, Eigen::MatrixXd& X, Eigen::MatrixXd& V, EnergyParts& parts, double eps,
                       int steps) {
  return leapfrog(target, X, V, parts, X, V, parts, eps, steps);
}

}  // namespace logz
