// OpenBLAS as logz's sources call it (private to the library: its users never see <cblas.h>).
// One BLAS thread: logz's own threads run the chunks, and BLAS threads on top of them, which
// spin while they wait, oversubscribe the cores.
#pragma once

#include <Eigen/Core>

namespace logz::blas {

// OpenBLAS to one thread, once per process; every routine below calls it first.
void single_threaded();

// B := L B (transposed: L^T B), L square and lower triangular (its upper part is not read), B
// with L.rows() rows; B's storage may be swapped for another's. OpenBLAS's dtrmm: 20-25% less
// time than Eigen's triangular product at d = 30 - 100 and 100 columns, where SMC's whitened
// moves spend most of their own. Up to d = 50 its general product of the triangle with its zeros
// filled in is faster still (into a second buffer): 0.59 against 0.83 us at d = 10, 2.9 against
// 3.7 us at d = 30, for 100 columns.
void lower_triangular_multiply(const Eigen::MatrixXd& L, bool transposed, Eigen::MatrixXd& B);

// X := L Z, the same product into another matrix (no copy of Z first where dgemm does it).
void lower_triangular_product(const Eigen::MatrixXd& L, const Eigen::Ref<const Eigen::MatrixXd>& Z,
                              Eigen::MatrixXd& X);

}  // namespace logz::blas
