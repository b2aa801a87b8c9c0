// The box low <= x <= high (ends may be infinite) as linear constraints, faces in the order of
// the coordinates: x_i >= low_i where low_i is finite, then -x_i >= -high_i where high_i is;
// indexed (CoordinateFaces), so kernels reflect each coordinate on its own. A Uniform prior's
// blocks and a truncated base state their boxes this way.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "logz/models/continuous_target.hpp"

namespace logz {

// nullptr where no end is finite; sizes must agree (InvalidArgument naming `high`).
std::shared_ptr<const LinearConstraints> box_constraints(const Eigen::VectorXd& low,
                                                         const Eigen::VectorXd& high);

}  // namespace logz
