#include "logz/exact/potts_transfer_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "exact/energy_levels.hpp"
#include "logz/core/error.hpp"

namespace logz::exact {
namespace {

// Set partitions of R rows as restricted growth strings (block labels in order
// of first appearance) with at most max_blocks blocks.
void partitions(int rows, int max_blocks, std::vector<int>& current,
                std::vector<std::vector<int>>& out) {
  if (static_cast<int>(current.size()) == rows) {
    out.push_back(current);
    return;
  }
  const int used = current.empty() ? 0 : *std::max_element(current.begin(), current.end()) + 1;
  for (int b = 0; b <= used && b < max_blocks; ++b) {
    current.push_back(b);
    partitions(rows, max_blocks, current, out);
    current.pop_back();
  }
}

std::vector<std::vector<int>> partitions(int rows, int max_blocks) {
  std::vector<std::vector<int>> out;
  std::vector<int> current;
  partitions(rows, max_blocks, current, out);
  return out;
}

double column_states(int r, int q) { return std::pow(static_cast<double>(q), r); }

void check_arguments(std::string_view function, int rows, int cols, int q, double beta,
                     double coupling) {
  if (rows < 1) fail_argument(function, "rows", ">= 1, got " + std::to_string(rows));
  if (cols < 1) fail_argument(function, "cols", ">= 1, got " + std::to_string(cols));
  if (q < 2 || q > 255)
    fail_argument(function, "q", "an integer in 2..255, got " + std::to_string(q));
  if (!potts_transfer_matrix_feasible(rows, cols, q))
    fail_argument(function, "rows, cols",
                  "min(rows, cols) small enough for q^R <= 2^17 column states (R <= 4 for q = 10), "
                  "got " +
                      std::to_string(rows) + " x " + std::to_string(cols) +
                      " with q = " + std::to_string(q));
  if (!std::isfinite(beta) || beta < 0.0)
    fail_argument(function, "beta", "a finite number >= 0, got " + std::to_string(beta));
  if (!std::isfinite(coupling))
    fail_argument(function, "coupling", "a finite number, got " + std::to_string(coupling));
  if (std::abs(beta * coupling) * 2.0 * std::min(rows, cols) > 600.0)
    fail_argument(function, "beta * coupling",
                  "|beta J| <= 300 / min(rows, cols), got " + std::to_string(beta * coupling));
}

LogZAndEnergy transfer(int rows, int cols, int q, double beta, double coupling) {
  const int r_side = std::min(rows, cols), length = std::max(rows, cols);
  const double k = beta * coupling;
  std::size_t states = 1;
  std::vector<std::size_t> stride(r_side);
  for (int r = 0; r < r_side; ++r) {
    stride[r] = states;
    states *= static_cast<std::size_t>(q);
  }
  // Vertical equal bonds of every column state: delta(a_r, a_{r+1 mod R}) for each r
  // (R = 1: the self-bond, always 1; R = 2: both bonds of the pair).
  std::vector<int> vertical(states, 0);
  {
    std::vector<int> digit(r_side, 0);
    for (std::size_t a = 0; a < states; ++a) {
      int v = 0;
      for (int r = 0; r < r_side; ++r) v += digit[r] == digit[(r + 1) % r_side];
      vertical[a] = v;
      for (int r = 0; r < r_side && ++digit[r] == q; ++r) digit[r] = 0;
    }
  }
  // Every factor is scaled so that the largest is 1 and the scale goes to the log:
  // K >= 0: exp(K n) = exp(K R) exp(K (n - R)); h = e^K (I + e^-K (1 1^T - I)).
  // K < 0:  factors as they are; h = e^K I + (1 1^T - I).
  const double ak = std::abs(k);
  std::vector<double> d_factor(r_side + 1);
  for (int n = 0; n <= r_side; ++n) d_factor[n] = std::exp(k >= 0 ? k * (n - r_side) : k * n);
  const double diag = k >= 0 ? 1.0 : std::exp(-ak), off = k >= 0 ? std::exp(-ak) : 1.0;
  const double log_scale_per_step = k >= 0 ? 2.0 * k * r_side : 0.0;

  // (v, dv): the vector and its derivative by K, both times exp(-log_scale).
  std::vector<double> v(states), dv(states), y(states), dy(states);
  std::vector<double> acc(states / q), dacc(states / q);
  const auto parts = partitions(r_side, q);
  std::vector<double> log_terms, ratios;
  for (const auto& part : parts) {
    std::size_t start = 0;
    int blocks = 0;
    for (int r = 0; r < r_side; ++r) {
      start += static_cast<std::size_t>(part[r]) * stride[r];
      blocks = std::max(blocks, part[r] + 1);
    }
    // The number of column states with this partition: q (q - 1) ... (q - blocks + 1).
    double log_count = 0.0;
    for (int b = 0; b < blocks; ++b) log_count += std::log(static_cast<double>(q - b));
    std::fill(v.begin(), v.end(), 0.0);
    std::fill(dv.begin(), dv.end(), 0.0);
    v[start] = 1.0;
    double log_scale = 0.0;
    for (int step = 0; step < length; ++step) {
      // H along each row's axis: y_i = diag x_i + off sum_{j != i} x_j; the sum
      // over the others from prefix and suffix sums, so nothing cancels. With
      // scaled factors the derivative of the unscaled map is diag (x_i + dx_i) +
      // off sum_{j != i} dx_j (d/dK of e^K x_i is e^K x_i; the scale is e^K or 1).
      for (int r = 0; r < r_side; ++r) {
        const std::size_t s = stride[r], block = s * q;
        for (std::size_t o = 0; o < states; o += block) {
          std::fill(acc.begin(), acc.begin() + s, 0.0);
          std::fill(dacc.begin(), dacc.begin() + s, 0.0);
          for (int j = 0; j < q; ++j) {
            const std::size_t p = o + j * s;
            for (std::size_t in = 0; in < s; ++in) {
              y[p + in] = acc[in];
              dy[p + in] = dacc[in];
              acc[in] += v[p + in];
              dacc[in] += dv[p + in];
            }
          }
          std::fill(acc.begin(), acc.begin() + s, 0.0);
          std::fill(dacc.begin(), dacc.begin() + s, 0.0);
          for (int j = q - 1; j >= 0; --j) {
            const std::size_t p = o + j * s;
            for (std::size_t in = 0; in < s; ++in) {
              const double x = v[p + in], dx = dv[p + in];
              y[p + in] = diag * x + off * (y[p + in] + acc[in]);
              dy[p + in] = diag * (x + dx) + off * (dy[p + in] + dacc[in]);
              acc[in] += x;
              dacc[in] += dx;
            }
          }
        }
        v.swap(y);
        dv.swap(dy);
      }
      // D: exp(K n) x and its derivative n exp(K n) x + exp(K n) dx; then rescale
      // by the largest entry (all entries are positive).
      double top = 0.0;
      for (std::size_t a = 0; a < states; ++a) {
        const double f = d_factor[vertical[a]];
        dv[a] = f * (vertical[a] * v[a] + dv[a]);
        v[a] *= f;
        top = std::max(top, v[a]);
      }
      const double inv = 1.0 / top;
      for (std::size_t a = 0; a < states; ++a) {
        v[a] *= inv;
        dv[a] *= inv;
      }
      log_scale += log_scale_per_step + std::log(top);
    }
    log_terms.push_back(log_count + log_scale + std::log(v[start]));
    ratios.push_back(dv[start] / v[start]);
  }
  const double top = *std::max_element(log_terms.begin(), log_terms.end());
  double sum = 0.0, weighted = 0.0;
  for (std::size_t i = 0; i < log_terms.size(); ++i) {
    const double w = std::exp(log_terms[i] - top);
    sum += w;
    weighted += w * ratios[i];
  }
  // d log Z / dK = <number of equal bonds>; <E> = -J times that.
  return {top + std::log(sum), -coupling * (weighted / sum)};
}

std::size_t usable_partitions(int r_side, int q) { return partitions(r_side, q).size(); }

}  // namespace

bool potts_transfer_matrix_feasible(int rows, int cols, int q) {
  if (rows < 1 || cols < 1 || q < 2 || q > 255) return false;
  const int r_side = std::min(rows, cols);
  if (r_side > 17) return false;  // q >= 2: 2^17 states at most
  const double states = column_states(r_side, q);
  if (states > kPottsTransferMaxStates) return false;
  return static_cast<double>(usable_partitions(r_side, q)) * states <= kPottsTransferMaxWork;
}

double potts_transfer_matrix_cost(int rows, int cols, int q) {
  if (!potts_transfer_matrix_feasible(rows, cols, q)) return INFINITY;
  const int r_side = std::min(rows, cols);
  return static_cast<double>(usable_partitions(r_side, q)) * column_states(r_side, q) *
         (r_side + 1.0) * std::max(rows, cols);
}

double potts_log_z_transfer_matrix(int rows, int cols, int q, double beta, double coupling) {
  check_arguments("potts_log_z_transfer_matrix", rows, cols, q, beta, coupling);
  return transfer(rows, cols, q, beta, coupling).log_z;
}

double potts_mean_energy_transfer_matrix(int rows, int cols, int q, double beta, double coupling) {
  check_arguments("potts_mean_energy_transfer_matrix", rows, cols, q, beta, coupling);
  return transfer(rows, cols, q, beta, coupling).mean_energy;
}

}  // namespace logz::exact
