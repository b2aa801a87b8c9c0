#include "math/blas.hpp"

#include <cblas.h>

#include <mutex>

namespace logz::blas {

namespace {

constexpr int kGeneralProductUpTo = 50;  // d; above it dtrmm (measured: blas.hpp)

// out := L B (transposed: L^T B) by dgemm, B d x n with leading dimension ldb. The triangle as a
// full matrix, transposed where asked (O(d^2), against the product's O(d^2 n)), so that the
// product is dgemm's plain one, its fastest at small d.
void general_product(const Eigen::MatrixXd& L, bool transposed, const double* B, int ldb, int n,
                     Eigen::MatrixXd& out) {
  thread_local Eigen::MatrixXd full;
  if (transposed)
    full = L.triangularView<Eigen::Lower>().transpose();
  else
    full = L.triangularView<Eigen::Lower>();
  const auto d = static_cast<int>(L.rows());
  out.resize(d, n);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d, n, d, 1.0, full.data(), d, B, ldb, 0.0,
              out.data(), d);
}

}  // namespace

void single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

void lower_triangular_multiply(const Eigen::MatrixXd& L, bool transposed, Eigen::MatrixXd& B) {
  if (B.size() == 0) return;  // dtrmm refuses a leading dimension of 0
  single_threaded();
  const auto d = static_cast<int>(L.rows()), n = static_cast<int>(B.cols());
  if (d > kGeneralProductUpTo) {
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, transposed ? CblasTrans : CblasNoTrans,
                CblasNonUnit, d, n, 1.0, L.data(), d, B.data(), d);
    return;
  }
  thread_local Eigen::MatrixXd product;
  general_product(L, transposed, B.data(), d, n, product);
  B.swap(product);
}

void lower_triangular_product(const Eigen::MatrixXd& L, const Eigen::Ref<const Eigen::MatrixXd>& Z,
                              Eigen::MatrixXd& X) {
  const auto d = static_cast<int>(L.rows()), n = static_cast<int>(Z.cols());
  if (d > kGeneralProductUpTo || n == 0 || Z.data() == X.data()) {
    X = Z;
    lower_triangular_multiply(L, false, X);
    return;
  }
  single_threaded();
  general_product(L, false, Z.data(), static_cast<int>(Z.outerStride()), n, X);
}

}  // namespace logz::blas
