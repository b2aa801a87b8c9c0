// The linear generative model of Sohl-Dickstein & Culpepper (2011), eqs. 30-32:
// x = Phi a + n with n ~ N(0, sigma_n^2 I) (sigma_n = 0.1 in the paper), Phi (M x L),
// and a prior on a in R^L: Gaussian N(0, I), or Laplace prod_i exp(-|a_i|) / 2.
// For one data point x the posterior energy over a is the full negative log joint
//   U_x(a) = -log p(a) + |x - Phi a|^2 / (2 sigma_n^2) + (M/2) log(2 pi sigma_n^2),
// so that integral exp(-U_x(a)) da = p(x): annealing from a base with exact log Z_0 to U_x
// estimates log p(x) = log Z_0 + log(Z / Z_0). With the Gaussian prior, p(x) is exactly
// N(x; 0, Phi Phi^T + sigma_n^2 I); with Phi = 0, p(x) = N(x; 0, sigma_n^2 I) for any prior
// (the paper's sanity check, eq. 41).
//
// Parameter files (.npz): `Phi` (M x L) by default; sigma_n and the prior come from the config.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "logz/core/enum_names.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

LOGZ_NAMED_ENUM(PriorType, gaussian, laplace);

class LinearGenerative {
 public:
  // Phi finite (M x L, M, L >= 1); sigma_noise finite > 0. Errors name `source`.
  LinearGenerative(Eigen::MatrixXd phi, double sigma_noise, PriorType prior,
                   const std::string& source = "LinearGenerative");
  static LinearGenerative load(const std::string& path, double sigma_noise, PriorType prior,
                               const std::string& key = "Phi");
  // Seeded random bases: Phi_ij ~ N(0, 1/L) (row i from stream (seed, i, base_sample, 0)).
  static LinearGenerative random(int data_dim, int latent_dim, double sigma_noise, PriorType prior,
                                 std::uint64_t seed);

  int data_dim() const { return static_cast<int>(phi_.rows()); }    // M
  int latent_dim() const { return static_cast<int>(phi_.cols()); }  // L
  const Eigen::MatrixXd& phi() const { return phi_; }
  double sigma_noise() const { return sigma_noise_; }
  PriorType prior() const { return prior_; }

  // -log p(a) for every column of A (normalised prior), and its gradient.
  void prior_energy(const Eigen::MatrixXd& A, Eigen::VectorXd& e) const;
  void prior_energy_and_grad(const Eigen::MatrixXd& A, Eigen::VectorXd& e,
                             Eigen::MatrixXd& G) const;

  // Exact log p(x) for the Gaussian prior (nullopt for other priors).
  std::optional<double> exact_log_likelihood(const Eigen::VectorXd& x) const;
  // Exact draws x = Phi a + sigma_n n, a from the prior: column p from random.stream(p).
  void sample_data(Eigen::MatrixXd& X, const BatchRandom& random) const;

 private:
  Eigen::MatrixXd phi_;
  double sigma_noise_;
  PriorType prior_;
};

// The posterior energy U_x(a) of one data point: a continuous target over a (dim L).
class LinearGenerativePosterior {
 public:
  LinearGenerativePosterior(const LinearGenerative& model, Eigen::VectorXd x);

  int dim() const { return model_->latent_dim(); }
  const Eigen::VectorXd& data() const { return x_; }
  void energy(const Eigen::MatrixXd& A, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& A, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;

 private:
  const LinearGenerative* model_;
  Eigen::VectorXd x_;
  double log_norm_;  // (M/2) log(2 pi sigma_n^2)
};

static_assert(ContinuousTarget<LinearGenerativePosterior>);

}  // namespace logz
