#include "math/blas.hpp"

#include <cblas.h>

#include <mutex>

namespace logz::blas {

void single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

void lower_triangular_multiply(const Eigen::MatrixXd& L, bool transposed, Eigen::MatrixXd& B) {
  if (B.size() == 0) return;  // dtrmm refuses a leading dimension of 0
  single_threaded();
  const auto d = static_cast<int>(L.rows());
  cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, transposed ? CblasTrans : CblasNoTrans,
              CblasNonUnit, d, static_cast<int>(B.cols()), 1.0, L.data(), d, B.data(), d);
}

}  // namespace logz::blas
