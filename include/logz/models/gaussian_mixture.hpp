// A mixture of M Gaussians on R^d with component masses w_j > 0:
//   f(x) = sum_j w_j N(x; mu_j, Sigma_j),   U(x) = -log f(x)   (nats),
// so Z = integral f = sum_j w_j exactly: the masses need not sum to one, they set log Z
// (the mixing proportions are w_j / sum_l w_l). Energies are a log-sum-exp over the
// components, shifted by the largest term per particle, so that far from every mean
// (|x| of 1e4 and beyond) U stays finite and the gradient
//   dU/dx = sum_j r_j(x) Sigma_j^{-1} (x - mu_j),   r_j = w_j N_j(x) / f(x),
// is weighted by responsibilities that never overflow. Exact draws pick component j with
// probability w_j / sum_l w_l, then x = mu_j + L_j z (Sigma_j = L_j L_j^T). The exact
// log Z used as a reference lives apart, in exact/gaussian_mixture.hpp.
//
// rts_fig2() is the default of `logz run` [model] type = "gaussian_mixture": two
// 10-dimensional components standing in for the mixture of Carlson et al. (2016), Fig. 2,
// whose appendix E.1 (the exact setup) is not in our copy of the paper; the choice is
// documented in docs/tempering.md.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class GaussianMixture {
 public:
  // weights: M masses, finite and > 0; means: M vectors of one length d >= 1, finite;
  // covariances: M symmetric positive definite d x d matrices. Errors (InvalidArgument)
  // name `source` and the component.
  GaussianMixture(std::vector<double> weights, std::vector<Eigen::VectorXd> means,
                  std::vector<Eigen::MatrixXd> covariances,
                  const std::string& source = "logz::GaussianMixture");

  // The default mixture: d = 10, masses (3, 7) (Z = 10), means -2 (1, ..., 1) and
  // +2 (1, ..., 1), covariances I and 0.5 I.
  static GaussianMixture rts_fig2();

  int dim() const { return static_cast<int>(means_.front().size()); }
  int num_components() const { return static_cast<int>(means_.size()); }
  const std::vector<double>& weights() const { return weights_; }
  const std::vector<Eigen::VectorXd>& means() const { return means_; }
  const std::vector<Eigen::MatrixXd>& covariances() const { return covariances_; }

  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;

  // log sum_j w_j, as the model sees it (the reference is exact::gaussian_mixture_log_z).
  double log_z() const { return log_z_; }

  // Exact draws: column p of X from random.stream(p): one uniform picks the component,
  // then d normals.
  void sample(Eigen::MatrixXd& X, const BatchRandom& random) const;
  void sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const;

 private:
  // log w_j - (1/2) log det(2 pi Sigma_j) - |L_j^{-1}(x - mu_j)|^2 / 2 for every component
  // (rows) and particle (columns); with `grad`, S[j] = Sigma_j^{-1} (x - mu_j).
  void component_terms(const Eigen::MatrixXd& X, Eigen::MatrixXd& a,
                       std::vector<Eigen::MatrixXd>* S) const;

  std::vector<double> weights_;
  std::vector<Eigen::VectorXd> means_;
  std::vector<Eigen::MatrixXd> covariances_;
  std::vector<Eigen::MatrixXd> chol_;  // lower Cholesky factors L_j
  std::vector<double> log_norm_;       // log w_j - (1/2) log det(2 pi Sigma_j)
  std::vector<double> cumulative_;     // cumulative mixing proportions (last = 1)
  double log_z_ = 0.0;
};

static_assert(ContinuousTarget<GaussianMixture>);

}  // namespace logz
