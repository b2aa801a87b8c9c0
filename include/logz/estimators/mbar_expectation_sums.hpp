// The sums behind MBAR's expectations of observables with their covariance (Shirts & Chodera
// 2008, section IV), in passes over the samples in blocks, never holding an N x M matrix: each
// expectation E_s[A] = sum_n W_n,c(s) A_i(s)(x_n) is an augmented state of weights
// W_n,c(s) (A_i(s)(x_n) - shift) / (shifted mean), and the asymptotic covariance needs the Gram
// matrix of every weight column, G = W_aug' W_aug (M = C + S columns: the C weight columns, then
// the S expectations'). logz.mbar_analysis builds the covariance from G (its svd-ew and
// approximate methods need nothing else): at 100 states x 10^6 samples the numpy version
// materialised 1.6 GB of weights for it.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace logz {

struct MbarExpectationSums {
  std::vector<double> log_shifted_mean;  // per expectation: log sum_n W_n,c(s) (A - shift)
  Eigen::MatrixXd gram;                  // M x M; NaN or inf in the rows of non-finite columns
};

// Inputs, every matrix row-major with one row per sample (log_shifted: one row per observable):
//   log_w: N x C normalised log weights (-inf: no weight; NaN: an undefined state);
//   log_shifted: I x N, log(A_i(x_n) - shift_i) (-inf where A equals the shift);
//   observable[s] in [0, I) and column[s] in [0, C): expectation s is of observable[s] in the
//   state of weight column column[s].
// A term of zero weight is zero whatever the observable (+inf included: a hard wall's energy).
// InvalidArgument naming the argument for sizes or indices out of range.
MbarExpectationSums mbar_expectation_sums(std::span<const double> log_w, std::size_t num_samples,
                                          std::size_t num_columns,
                                          std::span<const double> log_shifted,
                                          std::size_t num_observables,
                                          std::span<const std::int64_t> observable,
                                          std::span<const std::int64_t> column);

}  // namespace logz
