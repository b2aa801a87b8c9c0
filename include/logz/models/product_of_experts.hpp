// Products of experts (Hinton 2002) over x in R^d, as in Sohl-Dickstein & Culpepper (2011),
// eq. 36: U(x) = sum_l E(Phi_l x; lambda_l) with filters Phi (L x d) and
//   Laplace experts    E(u; lambda) = lambda |u|            (z(lambda) = 2 / lambda),
//   Student-t experts  E(u; lambda) = lambda log(1 + u^2)   (z(lambda) = sqrt(pi) G(lambda - 1/2) /
//   G(lambda),
//                                                            finite for lambda > 1/2),
// where z(lambda) = integral exp(-E(u; lambda)) du. Energies and gradients of a batch are
// two GEMMs: U = Phi X and dU/dX = Phi^T psi(U). For a complete (square, invertible) Phi,
// log Z = sum_l log z(lambda_l) - log |det Phi| exactly, and exact draws are
// x = Phi^{-1} u with independent u_l ~ exp(-E(u; lambda_l)) / z(lambda_l).
//
// Parameter files (.npz): `Phi` (L x d) and `lambda` (L) by default; key names configurable.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "logz/core/enum_names.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

LOGZ_NAMED_ENUM(ExpertType, laplace, student_t);

struct PoeKeys {
  std::string filters = "Phi", lambda = "lambda";
};

class ProductOfExperts {
 public:
  // Validates: Phi finite with rank d (L >= d), lambda of length L, finite, > 0, and > 1/2
  // for Student-t experts when Phi is square. Errors name `source`.
  ProductOfExperts(ExpertType type, Eigen::MatrixXd phi, Eigen::VectorXd lambda,
                   const std::string& source = "ProductOfExperts");
  // Reads `keys.filters` and `keys.lambda` from an .npz file.
  static ProductOfExperts load(const std::string& path, ExpertType type, const PoeKeys& keys = {});
  // Seeded random parameters (docs/hais.md): G_lj ~ N(0, 1) from Philox streams keyed by
  // `seed` (row l is particle l, Purpose::base_sample, step 0), Phi = sqrt(L/d) Q with Q the
  // orthonormal L x d factor of G's Householder QR (so Phi^T Phi = (L/d) I); lambda_l = 1 for
  // Laplace and, for Student-t, lambda_l = 0.75 + 1.25 u_l with u_l uniform (drawn after row
  // l's normals).
  static ProductOfExperts random(ExpertType type, int dim, int num_experts, std::uint64_t seed);

  int dim() const { return static_cast<int>(phi_.cols()); }
  int num_experts() const { return static_cast<int>(phi_.rows()); }
  ExpertType expert() const { return type_; }
  const Eigen::MatrixXd& phi() const { return phi_; }
  const Eigen::VectorXd& lambda() const { return lambda_; }
  bool is_complete() const { return phi_.rows() == phi_.cols(); }

  // The filter products and the experts in single precision (float), the energies still summed
  // in double and everything outside the model (positions, momenta, works) double: about
  // twice as fast, with energies and gradients accurate to about 1e-7 relative.
  ProductOfExperts with_single_precision(bool single = true) const;
  bool single_precision() const { return single_; }

  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const;
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const;

  // log z(lambda) of one expert (InvalidArgument where it is infinite).
  static double expert_log_normaliser(ExpertType type, double lambda);
  // Exact log Z for a complete Phi; nullopt otherwise.
  std::optional<double> exact_log_z() const;
  // Exact draws for a complete Phi: column p from random.stream(p) (InvalidArgument otherwise).
  void sample_exact(Eigen::MatrixXd& X, const BatchRandom& random) const;

 private:
  ExpertType type_;
  Eigen::MatrixXd phi_;          // L x d
  Eigen::VectorXd lambda_;       // L
  Eigen::MatrixXd phi_inverse_;  // complete only
  double log_abs_det_ = 0.0;     // complete only
  bool single_ = false;
  // Phi (L x d) and Phi^T (d x L) with zero rows appended to whole vectors of any x86 target
  // (8 doubles, 16 floats), and lambda with zeros to match: the products of a batch run on
  // whole vectors (src/models/filter_products.hpp) and the experts never meet a partial one.
  Eigen::MatrixXd phi_padded_, phi_t_padded_;
  Eigen::VectorXd lambda_padded_;
  Eigen::MatrixXf phi_padded_single_, phi_t_padded_single_;  // single precision only
  Eigen::VectorXf lambda_padded_single_;
};

static_assert(ContinuousTarget<ProductOfExperts>);

}  // namespace logz
