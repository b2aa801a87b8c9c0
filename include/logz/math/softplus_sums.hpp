// Sums of softplus(z) = log(1 + e^z) over the float unit inputs of an RBM layer: the free-energy
// terms of the marginal annealing paths (models/rbm_paths.hpp). Evaluated in float lanes with
// Highway's exp (and expm1 for the increments), dispatched at run time to the processor's
// instruction set, and summed in double; softplus(z) = max(z, 0) + log(1 + e^-|z|), whose logs
// (and the increments' log1p terms) are summed as the log of a product formed in double (one
// log per lane per 64 vectors). The
// inputs are float already (GEMM outputs), so the evaluation adds error of the same order (a few
// 1e-7 relative per term); the last bits may differ between instruction sets, never between
// runs on one machine. Every z is o_i + t (y_i - o_i) with an offset o (null: 0).
#pragma once

#include <cstddef>
#include <span>

namespace logz {

// sum_i softplus(o_i + t (y_i - o_i)).
double tempered_softplus_sum(const float* y, const float* offset, double t, std::size_t n);

// sum_i [softplus(z_i(t_to)) - softplus(z_i(t_from))] with z_i(t) = o_i + t (y_i - o_i), taken
// term by term as log1p(sigmoid(z_i(t_from)) expm1(delta d_i)), delta = t_to - t_from and
// d_i = y_i - o_i, whose float error is relative to the difference itself (the difference of two
// float sums would lose it to cancellation when delta is small); the log1p terms summed as the
// log of the product of their 1 + x in double. NaN when some |delta d_i| > 1,
// where expm1 could overflow: the caller then takes the difference of the sums in double.
double softplus_increment_sum(const float* y, const float* offset, double t_from, double t_to,
                              std::size_t n);

// With z_i = t y_i: sum_i softplus(z_i) into softplus and sum_i y_i sigmoid(z_i) into slope,
// one exp per term for both.
void softplus_and_slope_sums(const float* y, double t, std::size_t n, double& softplus,
                             double& slope);

// The same at every fraction t_k of a ladder: softplus[k] = sum_i softplus(t_k y_i) and, unless
// slope is null, slope[k] = sum_i y_i sigmoid(t_k y_i). Where the ladder runs in equal steps (at
// least 4 levels per run on average, t >= 0) the terms are formed in double, e^(-t_k |y_i|) by a
// multiply per level from two exps per input and run (relative error about 1e-14 after 128
// levels, far below the float inputs' own); elsewhere the single-level functions above, level
// by level.
void softplus_level_sums(const float* y, std::size_t n, std::span<const double> t, double* softplus,
                         double* slope);

}  // namespace logz
