#include "logz/models/rbm.hpp"

#include <cblas.h>

#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "math/blas.hpp"

namespace logz {

template <class Scalar>
double softplus_sum(const Scalar* x, std::size_t n) {
  // In double whatever the input precision; one fused, vectorised pass (no temporaries):
  // max(z, 0) + log(1 + e^-|z|), where e^-|z| is in (0, 1], so neither exp nor log overflows.
  const auto z =
      Eigen::Map<const Eigen::Array<Scalar, Eigen::Dynamic, 1>>(x, static_cast<Eigen::Index>(n))
          .template cast<double>();
  return (z.max(0.0) + ((-z.abs()).exp() + 1.0).log()).sum();
}

template double softplus_sum<float>(const float*, std::size_t);
template double softplus_sum<double>(const double*, std::size_t);

namespace detail {

namespace {}  // namespace

void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  blas::single_threaded();
  cblas_sgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* A, int lda,
          const double* B, int ldb, double beta, double* C, int ldc) {
  blas::single_threaded();
  cblas_dgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace detail

template <class Scalar>
Rbm<Scalar>::Rbm(const RbmParameters& p) {
  p.validate("logz::Rbm");
  W_ = p.W.cast<Scalar>();
  Wt_ = W_.transpose();
  a_ = p.a.cast<Scalar>();
  b_ = p.b.cast<Scalar>();
}

template <class Scalar>
void Rbm<Scalar>::affine_input(bool transpose, const RbmMatrix<Scalar>& X,
                               const RbmVector<Scalar>& bias, RbmMatrix<Scalar>& out) const {
  const Eigen::Index rows = transpose ? W_.cols() : W_.rows(),
                     inner = transpose ? W_.rows() : W_.cols();
  out.resize(rows, X.cols());
  if (X.cols() == 0) return;
  out.colwise() = bias;
  detail::gemm(transpose, false, static_cast<int>(rows), static_cast<int>(X.cols()),
               static_cast<int>(inner), Scalar(1), W_.data(), static_cast<int>(W_.rows()), X.data(),
               static_cast<int>(X.rows()), Scalar(1), out.data(), static_cast<int>(out.rows()));
}

template <class Scalar>
void Rbm<Scalar>::hidden_input(const RbmMatrix<Scalar>& V, RbmMatrix<Scalar>& out) const {
  if (V.rows() != W_.rows()) fail_argument("logz::Rbm::hidden_input", "V", "M rows");
  affine_input(true, V, b_, out);
}

template <class Scalar>
void Rbm<Scalar>::visible_input(const RbmMatrix<Scalar>& H, RbmMatrix<Scalar>& out) const {
  if (H.rows() != W_.cols()) fail_argument("logz::Rbm::visible_input", "H", "J rows");
  affine_input(false, H, a_, out);
}

namespace {

// F(s) = -bias.s - sum_i softplus(x_i) of every column s of S, x the other layer's inputs.
template <class Scalar>
void free_energy(const RbmMatrix<Scalar>& S, const RbmVector<Scalar>& bias,
                 const RbmMatrix<Scalar>& x, std::span<double> out) {
  for (Eigen::Index p = 0; p < S.cols(); ++p) {
    double linear = 0.0;
    for (Eigen::Index i = 0; i < S.rows(); ++i) linear += static_cast<double>(bias[i]) * S(i, p);
    out[p] = -linear - softplus_sum(x.col(p).data(), static_cast<std::size_t>(x.rows()));
  }
}

}  // namespace

template <class Scalar>
void Rbm<Scalar>::free_energy_visible(const RbmMatrix<Scalar>& V, std::span<double> out) const {
  RbmMatrix<Scalar> x;
  hidden_input(V, x);
  free_energy<Scalar>(V, a_, x, out);
}

template <class Scalar>
void Rbm<Scalar>::free_energy_hidden(const RbmMatrix<Scalar>& H, std::span<double> out) const {
  RbmMatrix<Scalar> x;
  visible_input(H, x);
  free_energy<Scalar>(H, b_, x, out);
}

template <class Scalar>
void Rbm<Scalar>::energy(const RbmMatrix<Scalar>& V, const RbmMatrix<Scalar>& H,
                         std::span<double> out) const {
  RbmMatrix<Scalar> x;
  visible_input(H, x);  // a + W h
  for (Eigen::Index p = 0; p < H.cols(); ++p) {
    double e = 0.0;
    for (Eigen::Index j = 0; j < H.rows(); ++j) e += static_cast<double>(b_[j]) * H(j, p);
    for (Eigen::Index i = 0; i < V.rows(); ++i) e += static_cast<double>(x(i, p)) * V(i, p);
    out[p] = -e;
  }
}

template class Rbm<float>;
template class Rbm<double>;

double rbm_energy(const RbmParameters& p, const Eigen::VectorXd& v, const Eigen::VectorXd& h) {
  return -(p.a.dot(v) + p.b.dot(h) + v.dot(p.W * h));
}

double rbm_free_energy_visible(const RbmParameters& p, const Eigen::VectorXd& v) {
  const Eigen::VectorXd x = p.b + p.W.transpose() * v;
  return -p.a.dot(v) - softplus_sum(x.data(), static_cast<std::size_t>(x.size()));
}

double rbm_free_energy_hidden(const RbmParameters& p, const Eigen::VectorXd& h) {
  const Eigen::VectorXd x = p.a + p.W * h;
  return -p.b.dot(h) - softplus_sum(x.data(), static_cast<std::size_t>(x.size()));
}

namespace {

// Uniforms in (0, 1) from 32 random bits each, at the resolution the scalar holds exactly;
// plain loops the compiler vectorises.
void uniforms_from_bits(const std::uint32_t* bits, float* u, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i)
    u[i] = static_cast<float>(static_cast<std::int32_t>(bits[i] >> 8)) * 0x1.0p-24f + 0x1.0p-25f;
}
void uniforms_from_bits(const std::uint32_t* bits, double* u, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i) u[i] = (static_cast<double>(bits[i]) + 0.5) * 0x1.0p-32;
}

}  // namespace

template <class Scalar>
void sample_bernoulli_tempered(const RbmMatrix<Scalar>& X, std::span<const double> t,
                               const RbmVector<Scalar>* offset, RbmMatrix<Scalar>& S,
                               std::span<RandomStream> streams) {
  using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
  const Eigen::Index n = X.rows();
  if (t.size() != 1 && t.size() != static_cast<std::size_t>(X.cols()))
    fail_argument("logz::sample_bernoulli_tempered", "t", "one path fraction, or one per column");
  if (offset != nullptr && offset->size() != n)
    fail_argument("logz::sample_bernoulli_tempered", "offset", "one entry per row");
  S.resize(n, X.cols());
  std::vector<std::uint32_t> bits(static_cast<std::size_t>(n));
  Array u(n), x(n);
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    streams[static_cast<std::size_t>(p)].fill_u32(bits.data(), bits.size());
    uniforms_from_bits(bits.data(), u.data(), n);
    const double t_p = t.size() == 1 ? t[0] : t[static_cast<std::size_t>(p)];
    if (t_p == 1.0) {
      x = X.col(p).array();
    } else {
      x = static_cast<Scalar>(t_p) * X.col(p).array();
      if (offset != nullptr) x += static_cast<Scalar>(1.0 - t_p) * offset->array();
    }
    // u < sigmoid(x) = 1 / (1 + e^-x)  <=>  u (1 + e^-x) < 1: no division, and
    // e^-x = inf (x very negative) or 0 (x very positive) gives the right answer.
    // e^-x on its own keeps Eigen's vectorised exp (a comparison in the same
    // expression makes Eigen fall back to scalar exp).
    x = (-x).exp();
    Scalar* s = S.col(p).data();
    for (Eigen::Index i = 0; i < n; ++i) s[i] = u[i] * (x[i] + Scalar(1)) < Scalar(1) ? 1 : 0;
  }
}

template <class Scalar>
void sample_bernoulli_logits(const RbmMatrix<Scalar>& X, RbmMatrix<Scalar>& S,
                             std::span<RandomStream> streams) {
  const double one = 1.0;
  sample_bernoulli_tempered<Scalar>(X, std::span<const double>(&one, 1), nullptr, S, streams);
}

template void sample_bernoulli_tempered<float>(const RbmMatrix<float>&, std::span<const double>,
                                               const RbmVector<float>*, RbmMatrix<float>&,
                                               std::span<RandomStream>);
template void sample_bernoulli_tempered<double>(const RbmMatrix<double>&, std::span<const double>,
                                                const RbmVector<double>*, RbmMatrix<double>&,
                                                std::span<RandomStream>);
template void sample_bernoulli_logits<float>(const RbmMatrix<float>&, RbmMatrix<float>&,
                                             std::span<RandomStream>);
template void sample_bernoulli_logits<double>(const RbmMatrix<double>&, RbmMatrix<double>&,
                                              std::span<RandomStream>);

}  // namespace logz
