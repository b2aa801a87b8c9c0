// Bases of the RBM annealing paths: a product of Bernoullis over v with logits
// a0 (an RBM with no couplings and zero hidden bias), sampled exactly, with
// log Z_0 = sum_i softplus(a0_i) + J log 2 (hidden units uniform and independent).
// "uniform": a0 = 0. "base_rate" (Salakhutdinov & Murray 2008): a0_i = logit p_i
// with p_i the training data's mean of unit i, smoothed towards 1/2:
//   p_i = (c_i + s n) / (n + 2 s n),  c_i = sum of column i over the n rows,
// s = smoothing (default 0.05, Salakhutdinov's 5 pseudo-counts per 100 cases;
// they add them to the count only, we add them to both outcomes so that a
// unit that is always on or always off still gets a finite logit).
#pragma once

#include <Eigen/Core>
#include <string>

namespace logz {

struct RbmBase {
  std::string name;        // "uniform" or "base_rate"
  Eigen::VectorXd logits;  // a0, one per visible unit

  // log Z_0 of the base over (v, h) with num_hidden hidden units.
  double log_z(int num_hidden) const;
};

RbmBase uniform_rbm_base(int num_visible);

// data: one example per row (n x M), values in [0, 1] (means of binary units);
// smoothing s > 0. Throws InvalidArgument on an empty matrix, values outside
// [0, 1] or NaN, or s <= 0.
RbmBase base_rate_rbm_base(const Eigen::MatrixXd& data, double smoothing = 0.05);

}  // namespace logz
