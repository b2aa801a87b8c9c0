// A binary restricted Boltzmann machine, E(v, h) = -(a.v + b.h + v.W.h) with
// v in {0,1}^M and h in {0,1}^J, in float or double, for batches of particles
// held as matrices (column = particle) so that both conditionals are GEMMs.
// Free energies (energy units, p(v) = exp(-F(v)) / Z):
//   F(v) = -a.v - sum_j softplus(b_j + (W^T v)_j),  F(h) = -b.h - sum_i softplus(a_i + (W h)_i),
// with softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|), finite at any finite x.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "logz/models/rbm_parameters.hpp"
#include "logz/random/philox.hpp"

namespace logz {

template <class Scalar>
using RbmMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
template <class Scalar>
using RbmVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

// log(1 + e^x) without overflow (x = +-1e4 gives 1e4 and 0); NaN stays NaN.
template <class Scalar>
inline Scalar softplus(Scalar x) {
  // std::max(NaN, 0) returns its first argument, so NaN propagates.
  return std::max(x, Scalar(0)) + std::log1p(std::exp(-std::abs(x)));
}

// sum_i softplus(x_i), accumulated in double. Vectorised (Eigen's exp and log);
// log(1 + t) for t = e^-|x| <= 1 is off by at most the scalar's epsilon per term.
template <class Scalar>
double softplus_sum(const Scalar* x, std::size_t n);

// One RBM in the precision the GEMMs run in. W is M x J (column-major) and
// also kept transposed, so both single-unit Metropolis updates read contiguous memory.
template <class Scalar>
class Rbm {
 public:
  explicit Rbm(const RbmParameters& parameters);

  int num_visible() const { return static_cast<int>(W_.rows()); }
  int num_hidden() const { return static_cast<int>(W_.cols()); }
  const RbmMatrix<Scalar>& weights() const { return W_; }              // M x J
  const RbmMatrix<Scalar>& weights_transposed() const { return Wt_; }  // J x M
  const RbmVector<Scalar>& visible_bias() const { return a_; }
  const RbmVector<Scalar>& hidden_bias() const { return b_; }

  // out = b 1^T + W^T V (J x P): the hidden units' inputs given visible states V (M x P).
  void hidden_input(const RbmMatrix<Scalar>& V, RbmMatrix<Scalar>& out) const;
  // out = a 1^T + W H (M x P): the visible units' inputs given hidden states H (J x P).
  void visible_input(const RbmMatrix<Scalar>& H, RbmMatrix<Scalar>& out) const;

  // F(v) of every column of V, in double.
  void free_energy_visible(const RbmMatrix<Scalar>& V, std::span<double> out) const;
  // F(h) of every column of H, in double.
  void free_energy_hidden(const RbmMatrix<Scalar>& H, std::span<double> out) const;
  // E(v, h) of every column pair, in double.
  void energy(const RbmMatrix<Scalar>& V, const RbmMatrix<Scalar>& H, std::span<double> out) const;

 private:
  // out = bias 1^T + op(W) X with op(W) = W^T (transpose) or W: one GEMM.
  void affine_input(bool transpose, const RbmMatrix<Scalar>& X, const RbmVector<Scalar>& bias,
                    RbmMatrix<Scalar>& out) const;

  RbmMatrix<Scalar> W_, Wt_;
  RbmVector<Scalar> a_, b_;
};

// Double-precision conveniences for single states (v and h as 0/1 vectors).
double rbm_energy(const RbmParameters& p, const Eigen::VectorXd& v, const Eigen::VectorXd& h);
double rbm_free_energy_visible(const RbmParameters& p, const Eigen::VectorXd& v);
double rbm_free_energy_hidden(const RbmParameters& p, const Eigen::VectorXd& h);

// S(i, p) = 1 with probability sigmoid(X(i, p)), else 0; column p draws its
// uniforms from streams[p] in row order. exp(-x) of +-inf logits saturates to
// the right 0/1 answer. Uniforms have 24 (float) or 32 (double) bits, so
// probabilities are resolved to 2^-24 or 2^-32.
template <class Scalar>
void sample_bernoulli_logits(const RbmMatrix<Scalar>& X, RbmMatrix<Scalar>& S,
                             std::span<RandomStream> streams);

// The same draw from the tempered logits t_p X(i, p) + (1 - t_p) offset_i
// (offset null: 0), formed column by column in one pass over X with no logits
// matrix: the half-sweep of block Gibbs. `t` holds one path fraction per column, or
// one for all; the logits have the bits of (Scalar(t_p) X) + Scalar(1 - t_p) offset.
template <class Scalar>
void sample_bernoulli_tempered(const RbmMatrix<Scalar>& X, std::span<const double> t,
                               const RbmVector<Scalar>* offset, RbmMatrix<Scalar>& S,
                               std::span<RandomStream> streams);

namespace detail {

// C = alpha op(A) op(B) + beta C (column-major) by OpenBLAS, which is set to
// one thread on first use: parallelism comes from particle chunks, so results
// never depend on the thread count.
void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc);
void gemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* A, int lda,
          const double* B, int ldb, double beta, double* C, int ldc);

}  // namespace detail

extern template class Rbm<float>;
extern template class Rbm<double>;

}  // namespace logz
