// The bilinear generative model of Culpepper, Sohl-Dickstein & Olshausen (2011), as written in
// Sohl-Dickstein & Culpepper (2011), eqs. 30 and 33-35: the linear generative model
// x = Phi a + n, n ~ N(0, sigma_n^2 I) (sigma_n = 0.1 in the paper), Phi (M x L), with the
// coefficients factored into two multiplicative parts,
//   a = (Theta c) .* (Psi d),      Theta (L x K_c), Psi (L x K_d),
//   p(c) = prod_k exp(-|c_k|) / 2  (Laplace; the paper prints the normaliser as 1/2, which is
//                                   right for one coordinate: K_c of them give 2^(-K_c)),
//   p(d) = prod_k exp(-d_k), d >= 0 (one-sided Laplace, already normalised).
// For one data point x the target over the latent z = (c, d) (c first, dim K_c + K_d) is the
// negative log joint
//   U_x(z) = |c|_1 + K_c log 2 + sum_k d_k + |x - Phi a|^2 / (2 sigma_n^2) + (M/2) log(2 pi
//   sigma_n^2),
// so that integral exp(-U_x) dz = p(x) (eqs. 28-29), with the constraint d >= 0 as linear
// constraints (Hamiltonian kernels reflect at d_k = 0, as in the paper's section 2.3).
// Annealing from the prior (`prior()`, a LaplaceBase: exact sampler, log Z_0 = K_c log 2)
// along the geometric path gives U_prior + t U_likelihood, the paper's path for generative
// models. Gradient (r = x - Phi a, g = -Phi^T r / sigma_n^2):
//   dU/dc = sign(c) + Theta^T (g .* (Psi d)),   dU/dd = 1 + Psi^T (g .* (Theta c)).
// Exact: where a is identically 0 (for every l, column l of Phi, row l of Theta or row l of
// Psi is zero; Phi = 0 is the paper's sanity check, eq. 41), p(x) = N(x; 0, sigma_n^2 I).
//
// Parameter files (.npz): `Phi` (M x L), `Theta` (L x K_c), `Psi` (L x K_d); names
// configurable (BilinearKeys). sigma_n comes from the config.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "logz/models/continuous_target.hpp"
#include "logz/models/laplace_base.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct BilinearKeys {
  std::string phi = "Phi", theta = "Theta", psi = "Psi";
};

class BilinearGenerative {
 public:
  // Phi (M x L), Theta (L x K_c), Psi (L x K_d), all dimensions >= 1, finite values;
  // sigma_noise finite > 0. Errors name `source` and the parameter.
  BilinearGenerative(Eigen::MatrixXd phi, Eigen::MatrixXd theta, Eigen::MatrixXd psi,
                     double sigma_noise, const std::string& source = "BilinearGenerative");
  static BilinearGenerative load(const std::string& path, double sigma_noise,
                                 const BilinearKeys& keys = {});
  // Seeded random parameters from Philox streams (seed, row, Purpose::base_sample, step):
  // Phi_ij ~ N(0, 1/L) (row i, step 0; the same Phi as LinearGenerative::random),
  // Theta_lk ~ N(0, 1/K_c) (row l, step 1), Psi_lk = 2 u_lk / K_d with u uniform (row l,
  // step 2: non-negative, so that E[(Psi d)_l] = 1 and d scales the amplitudes of a).
  static BilinearGenerative random(int data_dim, int basis_dim, int num_c, int num_d,
                                   double sigma_noise, std::uint64_t seed);

  int data_dim() const { return static_cast<int>(phi_.rows()); }   // M
  int basis_dim() const { return static_cast<int>(phi_.cols()); }  // L
  int num_c() const { return static_cast<int>(theta_.cols()); }    // K_c
  int num_d() const { return static_cast<int>(psi_.cols()); }      // K_d
  int latent_dim() const { return num_c() + num_d(); }             // dim of z = (c, d)
  const Eigen::MatrixXd& phi() const { return phi_; }
  const Eigen::MatrixXd& theta() const { return theta_; }
  const Eigen::MatrixXd& psi() const { return psi_; }
  double sigma_noise() const { return sigma_noise_; }
  // The prior p(c) p(d) as a base (energy without its constant; log_z() = K_c log 2).
  const LaplaceBase& prior() const { return prior_; }

  // a = (Theta c) .* (Psi d) for every column z = (c, d) of Z (L x P).
  void coefficients(const Eigen::MatrixXd& Z, Eigen::MatrixXd& A) const;
  // True when a = 0 for every z, so that p(x) = N(x; 0, sigma_n^2 I).
  bool coefficients_vanish() const;
  // Exact log p(x) where coefficients_vanish(); nullopt otherwise.
  std::optional<double> exact_log_likelihood(const Eigen::VectorXd& x) const;
  // Exact draws x = Phi a + sigma_n n with z from the prior (LaplaceBase::sample_one, then M
  // normals for n): column p from random.stream(p).
  void sample_data(Eigen::MatrixXd& X, const BatchRandom& random) const;

 private:
  Eigen::MatrixXd phi_, theta_, psi_;
  double sigma_noise_;
  LaplaceBase prior_;
};

// The posterior energy U_x(z) of one data point: a constrained target over z = (c, d).
class BilinearGenerativePosterior {
 public:
  BilinearGenerativePosterior(const BilinearGenerative& model, Eigen::VectorXd x);

  int dim() const { return model_->latent_dim(); }
  const Eigen::VectorXd& data() const { return x_; }
  void energy(const Eigen::MatrixXd& Z, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& Z, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;
  // d >= 0 (the prior's constraints).
  const LinearConstraints* constraints() const { return model_->prior().constraints(); }

 private:
  // The residuals R = x - Phi a and the two factors of a, for a batch.
  void residuals(const Eigen::MatrixXd& Z, Eigen::MatrixXd& TC, Eigen::MatrixXd& PD,
                 Eigen::MatrixXd& R) const;

  const BilinearGenerative* model_;
  Eigen::VectorXd x_;
  double log_norm_;  // K_c log 2 + (M/2) log(2 pi sigma_n^2)
};

static_assert(ConstrainedTarget<BilinearGenerativePosterior>);

}  // namespace logz
