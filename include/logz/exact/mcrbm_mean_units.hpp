// Exact log Z of an mcRBM (models/mcrbm.hpp) whose covariance term vanishes (every factor l
// has P_l. = 0 or C_l = 0, e.g. P = 0): the energy is then
//   E(x) = |x|^2 / (2 sigma^2) - b_v . x - sum_j softplus(W_j x + b_m_j) - sum_k softplus(b_c_k),
// and expanding prod_j (1 + exp(W_j x + b_m_j)) over the subsets S of mean units turns Z into
// a sum of Gaussian integrals,
//   Z = prod_k (1 + e^{b_c_k}) (2 pi sigma^2)^{M/2}
//       sum_S exp(sum_{j in S} b_m_j + sigma^2 |b_v + sum_{j in S} W_j|^2 / 2).
// An oracle: it shares no code with the model's energy (own loops, Gray-code order). The model
// does not call it (exact/ stands above models/): the services attach mcrbm_log_z(model) to a
// run as its reference.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "logz/models/mcrbm.hpp"

namespace logz::exact {

// W (J x M), b_mean (J), b_cov (K), b_vis (M), sigma > 0; J <= 24 (2^J terms).
// InvalidArgument names the bad argument.
double mcrbm_mean_units_log_z(const Eigen::MatrixXd& W, const Eigen::VectorXd& b_mean,
                              const Eigen::VectorXd& b_cov, const Eigen::VectorXd& b_vis,
                              double sigma);

// The exact log Z of `model` where its covariance term vanishes and it has J <= 20 mean units;
// nullopt otherwise.
std::optional<double> mcrbm_log_z(const McRbm& model);

}  // namespace logz::exact
