// Exact log partition functions of small binary RBMs, E(v, h) = -(a.v + b.h + v.W.h),
// Z = sum over v in {0,1}^M, h in {0,1}^J of exp(-E). These are oracles: they
// share no code with models/rbm.hpp (their own softplus, loops and state order).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/models/rbm_parameters.hpp"

namespace logz::exact {

// The size of the smaller layer up to which runs and evaluations enumerate the exact log Z
// unless told otherwise ([model] exact_max_units): 784 x 25 takes seconds.
inline constexpr int kRbmExactMaxUnitsDefault = 25;

// Enumerates the smaller layer s in Gray-code order (one column of W added or
// removed per state) and sums the other layer analytically:
//   Z = sum_s exp(c.s) prod_i (1 + exp(d_i + (A s)_i)).
// Cost 2^min(M, J) * max(M, J) (one vectorised exp per term; 784 x 25 takes
// seconds), split into fixed chunks over `threads` (0 = all cores; the result
// does not depend on it); throws InvalidArgument above 30 units in the smaller layer, and
// Stopped between chunks once `stop` is requested.
double rbm_log_z(const RbmParameters& p, int threads = 0, StopToken stop = {});

// Brute force over all 2^(M+J) joint states (M + J <= 24): the oracle for rbm_log_z.
double rbm_log_z_brute_force(const RbmParameters& p);

// log p(v, h) of every joint state (M + J <= 22); state index = sum_i v_i 2^i +
// sum_j h_j 2^(M + j).
std::vector<double> rbm_joint_log_probabilities(const RbmParameters& p);

// The RBM equal to the annealing path's joint at fraction t with base logits a0:
// W -> t W, a -> (1 - t) a0 + t a, b -> t b (same Z_t as every path of models/rbm_paths.hpp).
RbmParameters rbm_tempered(const RbmParameters& p, const Eigen::VectorXd& base_logits, double t);

}  // namespace logz::exact
