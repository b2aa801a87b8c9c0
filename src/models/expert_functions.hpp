// Internal to products of experts (not installed): the experts' energies and derivatives over
// the filter outputs U = Phi X of a batch, column by column, vectorised with Highway and
// dispatched at run time. For column p: e[p] = sum_l lambda_l E(U_lp), summed in double, and
// U_lp is overwritten by psi = lambda_l E'(U_lp), which the gradient's product Phi^T psi takes.
//   Laplace:   E(u) = |u|,          E'(u) = sign(u) (0 at 0)
//   Student-t: E(u) = log(1 + u^2), E'(u) = 2u / (1 + u^2)
#pragma once

#include <cstddef>

namespace logz::detail {

// U is L x P column-major; lambda has L entries; e has P.
void laplace_experts(double* U, std::size_t L, std::size_t P, const double* lambda, double* e);
void laplace_experts(float* U, std::size_t L, std::size_t P, const float* lambda, double* e);
void student_t_experts(double* U, std::size_t L, std::size_t P, const double* lambda, double* e);
void student_t_experts(float* U, std::size_t L, std::size_t P, const float* lambda, double* e);

}  // namespace logz::detail
