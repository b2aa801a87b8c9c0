// The mean-covariance RBM (Ranzato & Hinton 2010) as an analysis model over x in R^M, with
// the marginal (free) energy of Sohl-Dickstein & Culpepper (2011), eq. 40 (hidden units
// summed out):
//   E(x) = - sum_k softplus( (1/2) sum_l P_lk (C_l x)^2 / n(x) + b_c_k )     (K covariance units)
//          - sum_j softplus( W_j x + b_m_j )                                  (J mean units)
//          + |x|^2 / (2 sigma^2) - b_v . x,
// softplus(y) = log(1 + e^y), with P (L x K), C (L x M) (rows C_l: L factors), W (J x M), and
// the length normalisation n(x) = |x|^2 + 1/2 as printed in eq. 40 (McRbmNorm::sum), or
// n(x) = |x|^2 / M + 1/2 as in Ranzato's released code, which divides the squared length by
// the number of inputs (McRbmNorm::mean). The paper lists b_v in R^K; it must be in R^M.
// The covariance term is bounded ((C_l x)^2 / n(x) < |C_l|^2 / kappa, kappa = 1 or 1/M) and
// the mean term grows at most linearly, so the Gaussian term makes Z finite for any sigma > 0.
// p(x) = exp(-E(x)) / Z; no exact log Z in general. With the covariance term identically zero
// (for every factor l, P_l. = 0 or C_l = 0) Z is a sum over the 2^J mean-unit states of
// Gaussian integrals: exact::mcrbm_log_z (exact/mcrbm_mean_units.hpp) for J <= 20.
//
// Batched energy and gradient (X is M x P), with F = C X, Q = F.^2 / n, Y = P^T Q / 2 + b_c,
// Z = W X + b_m, S = sigmoid(Y), R = P S:
//   dE/dx = -C^T (R .* F) / n + kappa x sum_l(R .* F.^2) / n^2 - W^T sigmoid(Z) + x / sigma^2 -
//   b_v,
// where kappa = 1 (sum) or 1/M (mean): six GEMMs per batch.
//
// Parameter files (.npz): `P` (L x K), `C` (L x M), `W` (J x M), `b_m` (J), `b_c` (K),
// `b_v` (M); names configurable (McRbmKeys); sigma and the normalisation from the config.
// L, K and J may be 0 (arrays of shape (0, M) etc.).
#pragma once

#include <Eigen/Core>
#include <string>

#include "logz/core/enum_names.hpp"
#include "logz/models/continuous_target.hpp"

namespace logz {

LOGZ_NAMED_ENUM(McRbmNorm, sum, mean);

struct McRbmKeys {
  std::string P = "P", C = "C", W = "W", b_mean = "b_m", b_cov = "b_c", b_vis = "b_v";
};

class McRbm {
 public:
  // Shapes as above with M >= 1 (L, K, J >= 0), finite values, sigma finite > 0. Errors name
  // `source` and the parameter.
  McRbm(Eigen::MatrixXd P, Eigen::MatrixXd C, Eigen::MatrixXd W, Eigen::VectorXd b_mean,
        Eigen::VectorXd b_cov, Eigen::VectorXd b_vis, double sigma, McRbmNorm norm,
        const std::string& source = "McRbm");
  static McRbm load(const std::string& path, double sigma, McRbmNorm norm,
                    const McRbmKeys& keys = {});
  // Seeded random parameters from Philox streams (seed, row, Purpose::base_sample, step):
  // C_l = g / |g| with g ~ N(0, I_M) (row l, step 0: unit-length filters); P_lk = -2 u_lk with
  // u uniform (row l, step 1: non-positive, as the released code's -FH); W_jm ~ N(0, 1/M)
  // (row j, step 2); from the stream (seed, 0, base_sample, 3): b_c_k ~ N(0, 1) for every k,
  // then b_m_j ~ N(0, 1/4), then b_v_i ~ N(0, 1/100).
  static McRbm random(int dim, int num_factors, int num_covariance, int num_mean, double sigma,
                      McRbmNorm norm, std::uint64_t seed);

  int dim() const { return static_cast<int>(C_.cols()); }                   // M
  int num_factors() const { return static_cast<int>(C_.rows()); }           // L
  int num_covariance_units() const { return static_cast<int>(P_.cols()); }  // K
  int num_mean_units() const { return static_cast<int>(W_.rows()); }        // J
  const Eigen::MatrixXd& P() const { return P_; }
  const Eigen::MatrixXd& C() const { return C_; }
  const Eigen::MatrixXd& W() const { return W_; }
  const Eigen::VectorXd& b_mean() const { return b_mean_; }
  const Eigen::VectorXd& b_cov() const { return b_cov_; }
  const Eigen::VectorXd& b_vis() const { return b_vis_; }
  double sigma() const { return sigma_; }
  McRbmNorm norm() const { return norm_; }

  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;

  // True when sum_l P_lk (C_l x)^2 = 0 for every x and k.
  bool covariance_term_vanishes() const;

 private:
  Eigen::MatrixXd P_, C_, W_;
  Eigen::VectorXd b_mean_, b_cov_, b_vis_;
  double sigma_;
  McRbmNorm norm_;
  double kappa_;  // weight of |x|^2 in n(x): 1 (sum) or 1/M (mean)
};

static_assert(ContinuousTarget<McRbm>);

}  // namespace logz
