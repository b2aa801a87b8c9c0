// OpenBLAS as logz's sources call it (private to the library: its users never see <cblas.h>).
// One BLAS thread: logz's own threads run the chunks, and BLAS threads on top of them, which
// spin while they wait, oversubscribe the cores.
#pragma once

#include <Eigen/Core>

namespace logz::blas {

// OpenBLAS to one thread, once per process; every routine below calls it first.
void single_threaded();

// B := L B (transposed: L^T B) in place, L square and lower triangular (its upper part is not
// read), B with L.rows() rows. OpenBLAS's dtrmm: 20-25% less time than Eigen's triangular
// product at d = 30 - 100 and 100 columns, where SMC's whitened moves spend most of their own.
void lower_triangular_multiply(const Eigen::MatrixXd& L, bool transposed, Eigen::MatrixXd& B);

}  // namespace logz::blas
