// Hamiltonian drift inside a polytope {x : A x >= b}: the position moves along the
// momentum, x(s) = x + s v, and wherever the path meets a face a_j . x = b_j the
// momentum's component along the face normal is negated, v -= 2 (a_j.v / |a_j|^2) a_j
// (a billiard; Neal 2010, section 5.5.1.5; Sohl-Dickstein & Culpepper 2011, section 2.3).
// Faces are taken in the order the path meets them, which makes the map exactly time
// reversible (drift, negate v, drift, negate v returns to the start) and volume preserving.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "logz/models/continuous_target.hpp"

namespace logz {

// Moves x for time `tau` along v, reflecting at the faces of `c`; returns the number of
// reflections. x must satisfy the constraints (a slightly negative slack from rounding
// counts as being on the face). Throws NumericalError after 10^6 reflections in one call.
int reflected_drift(const LinearConstraints& c, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau);

// The same billiard for each column of X and V: one particle per column, the faces' slacks and
// approaches of all of them as matrix products (the same path up to rounding). `slack`: the
// faces' slacks A X - b (m x columns), computed where its shape is not that, and left holding
// them at the drift's end, so that the next drift from there (after a kick) starts from them.
// Returns the reflections of all.
std::uint64_t reflected_drifts(const LinearConstraints& c, Eigen::Ref<Eigen::MatrixXd> X,
                               Eigen::Ref<Eigen::MatrixXd> V, double tau, Eigen::MatrixXd& slack);

// The same billiard on coordinate faces, LinearConstraints::coordinate_faces (the same path up
// to rounding; a reflection negates the coordinate's momentum exactly).
int reflected_drift(const CoordinateFaces& f, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau);

}  // namespace logz
