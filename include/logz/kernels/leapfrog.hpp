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

#include "logz/kernels/reflection.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

// Integrates `steps` leapfrog steps of size eps. On entry `parts` must hold the target's
// parts with gradients at X (see evaluate_parts); on return it holds them at the new X.
// G is scratch (d x P). Returns the number of constraint reflections. Gradient
// evaluations: exactly `steps`.
template <ContinuousTarget T>
std::uint64_t leapfrog(const T& target, Eigen::MatrixXd& X, Eigen::MatrixXd& V, EnergyParts& parts,
                       Eigen::MatrixXd& G, double eps, int steps) {
  const LinearConstraints* c = constraints_of(target);
  std::uint64_t reflections = 0;
  combined_grad(target, parts, G);
  V.noalias() -= (0.5 * eps) * G;
  for (int l = 0; l < steps; ++l) {
    if (c) {
      for (Eigen::Index p = 0; p < X.cols(); ++p)
        reflections += static_cast<std::uint64_t>(reflected_drift(*c, X.col(p), V.col(p), eps));
    } else {
      X.noalias() += eps * V;
    }
    evaluate_parts(target, X, parts, true);
    combined_grad(target, parts, G);
    // Full kicks between drifts; the last kick is a half kick that ends at time L eps.
    V.noalias() -= (l + 1 == steps ? 0.5 * eps : eps) * G;
  }
  return reflections;
}

}  // namespace logz
