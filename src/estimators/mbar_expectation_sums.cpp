#include "logz/estimators/mbar_expectation_sums.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "logz/core/error.hpp"
#include "logz/math/log_space_arrays.hpp"

namespace logz {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr std::size_t kBlock = 512;  // samples per block: a block of M = 200 columns is 800 KB

// log of sample n's term of expectation s: log W_n,c + log(A_n - shift); -inf for no weight.
double log_term(double log_w, double log_shifted) {
  return log_w == kNegInf ? kNegInf : log_w + log_shifted;
}

}  // namespace

MbarExpectationSums mbar_expectation_sums(std::span<const double> log_w, std::size_t num_samples,
                                          std::size_t num_columns,
                                          std::span<const double> log_shifted,
                                          std::size_t num_observables,
                                          std::span<const std::int64_t> observable,
                                          std::span<const std::int64_t> column) {
  const char* const where = "logz::mbar_expectation_sums";
  const std::size_t n = num_samples, c = num_columns, s_count = observable.size();
  if (log_w.size() != n * c) fail_argument(where, "log_w", "N x C values");
  if (log_shifted.size() != num_observables * n)
    fail_argument(where, "log_shifted", "I x N values");
  if (column.size() != s_count) fail_argument(where, "column", "one weight column per expectation");
  for (std::size_t s = 0; s < s_count; ++s) {
    if (observable[s] < 0 || static_cast<std::size_t>(observable[s]) >= num_observables)
      fail_argument(where, "observable", "indices in [0, I)");
    if (column[s] < 0 || static_cast<std::size_t>(column[s]) >= c)
      fail_argument(where, "column", "indices in [0, C)");
  }
  auto term = [&](std::size_t i, std::size_t s) {
    const auto col = static_cast<std::size_t>(column[s]);
    const auto obs = static_cast<std::size_t>(observable[s]);
    return log_term(log_w[i * c + col], log_shifted[obs * n + i]);
  };

  // 1. log sum_n of every expectation's terms, shifted by the largest finite one (as
  // mbar_analysis.logsumexp: -inf for no term, +inf where a term is, NaN where one is NaN).
  MbarExpectationSums out;
  std::vector<double> top(s_count, kNegInf);
  std::vector<char> nan(s_count, 0), inf(s_count, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t s = 0; s < s_count; ++s) {
      const double t = term(i, s);
      if (std::isnan(t))
        nan[s] = 1;
      else if (t == std::numeric_limits<double>::infinity())
        inf[s] = 1;
      else if (t > top[s])
        top[s] = t;
    }
  std::vector<double> sum(s_count, 0.0), block(kBlock * std::max<std::size_t>(s_count, 1));
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t rows = std::min(kBlock, n - begin);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t s = 0; s < s_count; ++s) {
        const double t = term(begin + r, s);
        block[r * s_count + s] = std::isfinite(t) ? t - top[s] : kNegInf;
      }
    exp_array(std::span<const double>(block.data(), rows * s_count),
              std::span<double>(block.data(), rows * s_count));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t s = 0; s < s_count; ++s) sum[s] += block[r * s_count + s];
  }
  out.log_shifted_mean.resize(s_count);
  for (std::size_t s = 0; s < s_count; ++s)
    out.log_shifted_mean[s] = nan[s]              ? std::numeric_limits<double>::quiet_NaN()
                              : inf[s]            ? std::numeric_limits<double>::infinity()
                              : top[s] == kNegInf ? kNegInf
                                                  : top[s] + std::log(sum[s]);

  // 2. The Gram matrix of the M weight columns, a block of rows at a time (dsyrk, upper part).
  const std::size_t m = c + s_count;
  Eigen::MatrixXd gram =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(m));
  std::vector<double> rows_block(kBlock * m);
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t rows = std::min(kBlock, n - begin);
    for (std::size_t r = 0; r < rows; ++r) {
      double* row = rows_block.data() + r * m;
      std::copy_n(log_w.data() + (begin + r) * c, c, row);
      for (std::size_t s = 0; s < s_count; ++s)
        row[c + s] = term(begin + r, s) - out.log_shifted_mean[s];
    }
    // exp_array leaves +inf undefined: such a weight (not a normalised one) is reported as NaN.
    for (std::size_t k = 0; k < rows * m; ++k)
      if (rows_block[k] == std::numeric_limits<double>::infinity())
        rows_block[k] = std::numeric_limits<double>::quiet_NaN();
    exp_array(std::span<const double>(rows_block.data(), rows * m),
              std::span<double>(rows_block.data(), rows * m));
    // gram (column-major) += block' block, block row-major rows x m: column-major m x rows.
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, static_cast<int>(m),
                static_cast<int>(rows), 1.0, rows_block.data(), static_cast<int>(m), 1.0,
                gram.data(), static_cast<int>(m));
  }
  out.gram = gram.selfadjointView<Eigen::Upper>();
  return out;
}

}  // namespace logz
