#include "logz/exact/rbm_enumeration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "logz/core/error.hpp"
#include "logz/parallel/run_chunks.hpp"

namespace logz::exact {

namespace {

// Running log-sum-exp: adds exp(x) to exp(m) * s.
struct LogSum {
  double m = -std::numeric_limits<double>::infinity(), s = 0.0;
  void add(double x) {
    if (x > m) {
      s = s * std::exp(m - x) + 1.0;
      m = x;
    } else {
      s += std::exp(x - m);
    }
  }
  double value() const { return m + std::log(s); }
};

double bit(std::uint64_t state, int i) { return static_cast<double>((state >> i) & 1u); }

}  // namespace

double rbm_log_z(const RbmParameters& p, int threads, StopToken stop) {
  p.validate("logz::exact::rbm_log_z");
  const bool hidden_small = p.W.cols() <= p.W.rows();
  // s: the enumerated layer with bias c; the other layer has bias d and input d + A s.
  const Eigen::MatrixXd A = hidden_small ? p.W : Eigen::MatrixXd(p.W.transpose());
  const Eigen::VectorXd& c = hidden_small ? p.b : p.a;
  const Eigen::VectorXd& d = hidden_small ? p.a : p.b;
  const int n = static_cast<int>(A.cols());
  const Eigen::Index m = A.rows();
  if (n > 30) fail_argument("logz::exact::rbm_log_z", "p", "at most 30 units in the smaller layer");
  // The states in Gray-code order, in fixed chunks summed in chunk order: the
  // result does not depend on the thread count.
  const std::uint64_t count = std::uint64_t{1} << n;
  const std::size_t chunk = std::size_t{1} << std::min(n, 16);
  const std::size_t chunks = static_cast<std::size_t>(count / chunk);
  const std::vector<LogSum> sums = run_chunks(
      chunks, 1, threads,
      [&](const ChunkRange& r) {
        const std::uint64_t first = static_cast<std::uint64_t>(r.begin) * chunk;
        std::uint64_t gray = first ^ (first >> 1);
        Eigen::ArrayXd x = d.array();
        double cs = 0.0;
        for (int j = 0; j < n; ++j)
          if ((gray >> j) & 1u) x += A.col(j).array(), cs += c[j];
        Eigen::ArrayXd e(m);
        LogSum total;
        // sum_i log(1 + e^x_i) = sum_i max(x_i, 0) + log prod_i (1 + e^-|x_i|): one vectorised exp
        // per unit and one log per block of 512 factors (each in [1, 2], so no overflow).
        auto term = [&] {
          e = (-x.abs()).exp() + 1.0;
          double log_prod = 0.0;
          for (Eigen::Index b = 0; b < m; b += 512)
            log_prod += std::log(e.segment(b, std::min<Eigen::Index>(512, m - b)).prod());
          return cs + x.max(0.0).sum() + log_prod;
        };
        total.add(term());
        for (std::uint64_t k = first + 1; k < first + chunk; ++k) {
          const int j = std::countr_zero(k);  // Gray code: unit j changes
          const bool on = !((gray >> j) & 1u);
          gray ^= std::uint64_t{1} << j;
          if (on)
            x += A.col(j).array(), cs += c[j];
          else
            x -= A.col(j).array(), cs -= c[j];
          total.add(term());
        }
        return total;
      },
      {}, stop);
  LogSum total;
  for (const auto& s : sums)
    if (s.s > 0) total.add(s.value());
  return total.value();
}

double rbm_log_z_brute_force(const RbmParameters& p) {
  p.validate("logz::exact::rbm_log_z_brute_force");
  const int m = static_cast<int>(p.W.rows()), n = static_cast<int>(p.W.cols());
  if (m + n > 24)
    fail_argument("logz::exact::rbm_log_z_brute_force", "p", "at most 24 units in all");
  LogSum total;
  for (std::uint64_t v = 0; v < (std::uint64_t{1} << m); ++v)
    for (std::uint64_t h = 0; h < (std::uint64_t{1} << n); ++h) {
      double minus_e = 0.0;
      for (int i = 0; i < m; ++i) minus_e += p.a[i] * bit(v, i);
      for (int j = 0; j < n; ++j) minus_e += p.b[j] * bit(h, j);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) minus_e += bit(v, i) * p.W(i, j) * bit(h, j);
      total.add(minus_e);
    }
  return total.value();
}

std::vector<double> rbm_joint_log_probabilities(const RbmParameters& p) {
  const int m = static_cast<int>(p.W.rows()), n = static_cast<int>(p.W.cols());
  if (m + n > 22)
    fail_argument("logz::exact::rbm_joint_log_probabilities", "p", "at most 22 units in all");
  const double log_z = rbm_log_z_brute_force(p);
  std::vector<double> out(std::size_t{1} << (m + n));
  for (std::uint64_t state = 0; state < out.size(); ++state) {
    double minus_e = 0.0;
    for (int i = 0; i < m; ++i) minus_e += p.a[i] * bit(state, i);
    for (int j = 0; j < n; ++j) minus_e += p.b[j] * bit(state, m + j);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) minus_e += bit(state, i) * p.W(i, j) * bit(state, m + j);
    out[state] = minus_e - log_z;
  }
  return out;
}

RbmParameters rbm_tempered(const RbmParameters& p, const Eigen::VectorXd& base_logits, double t) {
  if (base_logits.size() != p.W.rows())
    fail_argument("logz::exact::rbm_tempered", "base_logits", "one logit per visible unit");
  RbmParameters q;
  q.W = t * p.W;
  q.a = (1.0 - t) * base_logits + t * p.a;
  q.b = t * p.b;
  return q;
}

}  // namespace logz::exact
