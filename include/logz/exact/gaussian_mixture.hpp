// Exact log partition functions for the Gaussian mixture model and for the geometric
// path from a Gaussian base to one Gaussian component.
//
// - gaussian_mixture_log_z: f(x) = sum_j w_j N(x; mu_j, Sigma_j) integrates to sum_j w_j,
//   so log Z = log sum_j w_j (whatever the means and covariances).
// - gaussian_geometric_log_z: log integral exp(-(1 - t) U_0(x) - t U_1(x)) dx with the
//   base energy U_0(x) = (x - m_0)^T S_0^{-1} (x - m_0) / 2 (logz's GaussianBase: no
//   constant) and the target U_1(x) = -log(w N(x; m_1, S_1)) (a one-component mixture).
//   The exponent is -x^T P x / 2 + h^T x - c with P = (1 - t) S_0^{-1} + t S_1^{-1},
//   h = (1 - t) S_0^{-1} m_0 + t S_1^{-1} m_1 and
//   c = (1 - t) m_0^T S_0^{-1} m_0 / 2 + t (m_1^T S_1^{-1} m_1 / 2 - log w + log det(2 pi S_1) /
//   2), so log Z_t = (d/2) log 2 pi - log det P / 2 + h^T P^{-1} h / 2 - c. Every level of that
//   path is Gaussian, which makes it an exact check of tempering at every level.
//
// These are oracles: they share no code with models/gaussian_mixture.hpp or
// models/gaussian_base.hpp (inverses and determinants by LU here, Cholesky there).
#pragma once

#include <Eigen/Core>
#include <span>

namespace logz::exact {

// log sum_j w_j for masses w_j > 0 (InvalidArgument otherwise).
double gaussian_mixture_log_z(std::span<const double> weights);

struct GaussianSpec {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
};

// log Z_t of the geometric path from the base N(m_0, S_0) (energy without constant) to the
// one-component target of mass `weight`, for t in [0, 1].
double gaussian_geometric_log_z(const GaussianSpec& base, double weight, const GaussianSpec& target,
                                double t);

}  // namespace logz::exact
