#include "logz/exact/ising_kaufman.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "logz/core/error.hpp"

namespace logz::exact {
namespace {

constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kPi = 3.141592653589793238462643383279502884;

// log(sinh x) for x > 0, without overflow for large x or cancellation for small x.
double log_sinh(double x) { return x + std::log(-std::expm1(-2.0 * x)) - kLn2; }

// log(2 cosh x).
double log_2cosh(double x) {
  const double a = std::fabs(x);
  return a + std::log1p(std::exp(-2.0 * a));
}

// log(1 - exp(-x)) for x > 0, accurate for small and large x.
double log1m_exp_neg(double x) {
  return x < kLn2 ? std::log(-std::expm1(-x)) : std::log1p(-std::exp(-x));
}

// log(exp(a) + exp(b)), -inf allowed.
double add_log(double a, double b) {
  const double m = std::max(a, b);
  if (m == -INFINITY) return m;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// Couplings of the transfer-matrix form: K1 = a1*beta > 0 on the bonds between successive rows
// (m rows: the transfer direction), K2 = a2*beta > 0 on the n bonds within a row. (The public
// functions only use a1 = a2 = |J|; the two names keep track of which bond is which.)
struct Couplings {
  double a1, a2;
  double k1, k2;
  double k1_dual;       // K1* with tanh K1* = exp(-2 K1)
  double dk1_dual;      // d K1* / d beta = -a1 / sinh 2K1
  double log_sinh_2k1;  // log sinh 2K1 (sinh 2K1* = 1 / sinh 2K1)
  double log_sinh_2k2;  // log sinh 2K2
  double coth_2k2;      // coth 2K2
};

Couplings make_couplings(double a1, double a2, double beta) {
  Couplings c{};
  c.a1 = a1;
  c.a2 = a2;
  c.k1 = a1 * beta;
  c.k2 = a2 * beta;
  // K1* = -log(tanh K1)/2, log tanh K1 = log(1 - e^{-2K1}) - log(1 + e^{-2K1}).
  c.k1_dual = -0.5 * (log1m_exp_neg(2.0 * c.k1) - std::log1p(std::exp(-2.0 * c.k1)));
  c.log_sinh_2k1 = log_sinh(2.0 * c.k1);
  c.dk1_dual = -a1 * std::exp(-c.log_sinh_2k1);
  c.log_sinh_2k2 = log_sinh(2.0 * c.k2);
  c.coth_2k2 = 1.0 / std::tanh(2.0 * c.k2);
  return c;
}

// One gamma_l. To keep the high-temperature end (K1* -> infinity as beta -> 0) free of
// cancellation, each factor 2cosh(m gamma/2) or 2sinh(m gamma/2) is carried divided by
// e^{m K1*}, and the prefactor multiplied by e^{mn K1*}: (2 sinh 2K1)^{mn/2} e^{mn K1*} =
// (2 cosh K1)^{mn}. So a mode is described by gamma and by |gamma| - 2K1*, both with their
// beta derivatives, the latter computed without subtracting large numbers.
struct Mode {
  double gamma;     // signed for the special mode l = 0, else > 0
  double dgamma;    // d gamma / d beta
  double shifted;   // |gamma| - 2 K1*
  double dshifted;  // d|gamma|/d beta - 2 dK1*/d beta
};

// gamma_l of Kaufman's formula, cosh gamma_l = cosh 2K1* cosh 2K2 - sinh 2K1* sinh 2K2 cos(pi l/n),
// for 0 <= l < 2n. Written as cosh gamma_l = 1 + d with d = A + B,
//   A = 2 sinh^2(K2 - K1*),  B = 2 sinh 2K1* sinh 2K2 sin^2(pi l / 2n),
// both terms >= 0 (B > 0 for l != 0), so gamma is accurate near 0 and computed in log space when
// large. The mode l = 0, where d can vanish, carries a sign: gamma_0 = 2(K2 - K1*), i.e.
// e^{gamma_0} = e^{2K} tanh K in the isotropic case, which is NEGATIVE for K < K_c (high
// temperature); taking |gamma_0| there is the classic error. gamma_n = 2(K2 + K1*) > 0.
Mode kaufman_mode(const Couplings& c, int n, int l) {
  Mode mode{};
  const double k1s = c.k1_dual;
  const double dk1s = c.dk1_dual;
  if (l == 0) {
    mode.gamma = 2.0 * (c.k2 - k1s);
    mode.dgamma = 2.0 * (c.a2 - dk1s);
    const bool neg = c.k2 < k1s;
    mode.shifted = neg ? -2.0 * c.k2 : 2.0 * c.k2 - 4.0 * k1s;
    mode.dshifted = neg ? -2.0 * c.a2 : 2.0 * c.a2 - 4.0 * dk1s;
    return mode;
  }
  if (l == n) {
    mode.gamma = 2.0 * (c.k2 + k1s);
    mode.dgamma = 2.0 * (c.a2 + dk1s);
    mode.shifted = 2.0 * c.k2;
    mode.dshifted = 2.0 * c.a2;
    return mode;
  }
  const int lf = std::min(l, 2 * n - l);  // gamma_l = gamma_{2n-l}; 0 < lf < n
  const double log_w = 2.0 * std::log(std::sin(kPi * lf / (2.0 * n)));
  const double u = c.k2 - k1s;
  const double abs_u = std::fabs(u);
  // log A, log B and the same minus 2K1*:
  //   log A - 2K1* = -log 2 + 2(|u| - K1*) + 2 log(1 - e^{-2|u|}),
  //   log B - 2K1* = log(1 - e^{-4K1*}) + log sinh 2K2 + log w.
  double log_a = -INFINITY;
  double log_a_shift = -INFINITY;
  if (u != 0.0) {
    const double log1m = log1m_exp_neg(2.0 * abs_u);
    log_a = -kLn2 + 2.0 * abs_u + 2.0 * log1m;
    log_a_shift = -kLn2 + (u < 0.0 ? -2.0 * c.k2 : 2.0 * c.k2 - 4.0 * k1s) + 2.0 * log1m;
  }
  const double log_b = kLn2 - c.log_sinh_2k1 + c.log_sinh_2k2 + log_w;
  const double log_b_shift = log1m_exp_neg(4.0 * k1s) + c.log_sinh_2k2 + log_w;
  const double log_d = add_log(log_a, log_b);
  const double log_d_shift = add_log(log_a_shift, log_b_shift);
  // d log A / d beta - 2 dK1*, with u' = a2 - dK1* (dK1* ~ -1/(2 beta) is large at small beta):
  //   u < 0: -2 a2 coth|u| + 2 dK1* (coth|u| - 1);  u > 0: 2 u' coth u - 2 dK1*.
  double da_shift = 0.0;
  if (u < 0.0) {
    da_shift = -2.0 * c.a2 / std::tanh(abs_u) + 2.0 * dk1s * (2.0 / std::expm1(2.0 * abs_u));
  } else if (u > 0.0) {
    da_shift = 2.0 * (c.a2 - dk1s) / std::tanh(u) - 2.0 * dk1s;
  }
  // d log B / d beta - 2 dK1* = -2 a1 tanh K1 + 2 a2 coth 2K2.
  const double db_shift = -2.0 * c.a1 * std::tanh(c.k1) + 2.0 * c.a2 * c.coth_2k2;
  const double dlog_d_shift = (u != 0.0 ? std::exp(log_a_shift - log_d_shift) * da_shift : 0.0) +
                              std::exp(log_b_shift - log_d_shift) * db_shift;
  // gamma = acosh(1 + d); gamma' = (d'/d) r with r = sqrt(d / (d + 2)).
  double r = 0.0;
  double r_minus_1 = 0.0;
  if (log_d < 0.0) {
    const double d = std::exp(log_d);
    mode.gamma = std::log1p(d + std::sqrt(d * (d + 2.0)));
    mode.shifted = mode.gamma - 2.0 * k1s;
    r = std::sqrt(d / (d + 2.0));
    r_minus_1 = -(2.0 / (d + 2.0)) / (r + 1.0);
  } else {
    // acosh(1 + d) = log(2d) + log((1 + q + sqrt(1 + 2q)) / 2), q = 1/d.
    const double q = std::exp(-log_d);
    const double sq = std::sqrt(1.0 + 2.0 * q);
    const double corr = std::log1p(0.5 * q * (1.0 + 2.0 / (sq + 1.0)));
    mode.gamma = kLn2 + log_d + corr;
    mode.shifted = kLn2 + log_d_shift + corr;
    r = 1.0 / sq;
    r_minus_1 = -(2.0 * q / (1.0 + 2.0 * q)) / (r + 1.0);
  }
  // |gamma|' - 2 dK1* = (dlog_d_shift + 2 dK1*) r - 2 dK1*.
  mode.dshifted = dlog_d_shift * r + 2.0 * dk1s * r_minus_1;
  mode.dgamma = mode.dshifted + 2.0 * dk1s;
  return mode;
}

// Product of n factors 2cosh(x) e^{-m K1*} or 2sinh(x) e^{-m K1*}, x = m gamma / 2, kept as a
// sign, a log magnitude and d log|.| / d beta; an exactly-zero sinh factor is handled apart.
struct Product {
  double log_abs = 0.0;  // log|product of the nonzero factors|
  int sign = 1;
  int zeros = 0;
  double dlog = 0.0;    // sum over nonzero factors of d log|factor| / d beta
  double zero_d = 0.0;  // d factor / d beta of the zero factor (if zeros == 1)

  // With ax = m|gamma|/2: log factor = (m/2) shifted + log(1 +- e^{-2 ax}), and
  //   d log factor = (m/2) [f(ax) dshifted + 2 dK1* (f(ax) - 1)], f = tanh or coth,
  // where 2 dK1* (f - 1) = -+4 a1 e^{-2ax} / ((1 +- e^{-2ax}) sinh 2K1) is taken in log space.
  void add_cosh(const Mode& mode, int m, const Couplings& c) {
    const double h = 0.5 * m;
    const double ax = h * std::fabs(mode.gamma);
    const double log1p_e = std::log1p(std::exp(-2.0 * ax));
    log_abs += h * mode.shifted + log1p_e;
    const double tail = std::exp(std::log(4.0 * c.a1) - c.log_sinh_2k1 - 2.0 * ax - log1p_e);
    dlog += h * (std::tanh(ax) * mode.dshifted + tail);
  }
  void add_sinh(const Mode& mode, int m, const Couplings& c) {
    const double h = 0.5 * m;
    const double ax = h * std::fabs(mode.gamma);
    if (ax == 0.0) {
      // d/d beta of 2 sinh(x) e^{-m K1*} at x = 0.
      ++zeros;
      zero_d = 2.0 * h * mode.dgamma * std::exp(-m * c.k1_dual);
      return;
    }
    const double log1m_e = log1m_exp_neg(2.0 * ax);
    log_abs += h * mode.shifted + log1m_e;
    if (mode.gamma < 0.0) sign = -sign;
    const double tail = std::exp(std::log(4.0 * c.a1) - c.log_sinh_2k1 - 2.0 * ax - log1m_e);
    dlog += h * (mode.dshifted / std::tanh(ax) - tail);
  }
};

struct LogZ {
  double log_z;
  double dlog_z;  // d log Z / d beta
};

// Kaufman (1949): Z = (1/2) (2 sinh 2K1)^{mn/2} (Z_1 + Z_2 + Z_3 + Z_4), with
//   Z_1 = prod_r 2cosh(m gamma_{2r+1}/2), Z_2 = prod_r 2sinh(m gamma_{2r+1}/2),
//   Z_3 = prod_r 2cosh(m gamma_{2r}/2),   Z_4 = prod_r 2sinh(m gamma_{2r}/2), r = 0..n-1,
// evaluated as log Z = -log 2 + mn log(2 cosh K1) + log sum_i Z_i e^{-mn K1*}. Z_4 < 0 for
// K < K_c (one negative factor, from gamma_0); the sum stays positive (Z_1 + Z_2 dominates).
LogZ kaufman_core(int m, int n, double a1, double a2, double beta) {
  const Couplings c = make_couplings(a1, a2, beta);
  Product p[4];
  for (int r = 0; r < n; ++r) {
    const Mode odd = kaufman_mode(c, n, 2 * r + 1);
    const Mode even = kaufman_mode(c, n, 2 * r);
    p[0].add_cosh(odd, m, c);
    p[1].add_sinh(odd, m, c);
    p[2].add_cosh(even, m, c);
    p[3].add_sinh(even, m, c);
  }
  double top = -INFINITY;
  for (const Product& q : p) {
    if (q.zeros <= 1) top = std::max(top, q.log_abs);
  }
  double sum = 0.0;
  double dsum = 0.0;
  for (int i = 0; i < 4; ++i) {
    const Product& q = p[i];
    if (q.zeros > 1) continue;
    const double v = q.sign * std::exp(q.log_abs - top);
    if (q.zeros == 0) {
      sum += v;
      dsum += v * q.dlog;
    } else {
      dsum += v * q.zero_d;
    }
  }
  if (!(sum > 0.0)) {
    throw NumericalError(
        fmt::format("ising Kaufman formula: sum of the four terms not positive ({:g}) for m = {}, "
                    "n = {}, beta = {:g}, couplings {:g} and {:g}",
                    sum, m, n, beta, a1, a2));
  }
  const double mn = static_cast<double>(m) * n;
  LogZ out{};
  out.log_z = -kLn2 + mn * log_2cosh(c.k1) + top + std::log(sum);
  out.dlog_z = mn * a1 * std::tanh(c.k1) + dsum / sum;
  return out;
}

// log(1 - exp(-z)) with z = e^l given by its log (no underflow for tiny z).
double log1m_exp_neg_exp(double l) {
  if (l < -20.0) return l - 0.5 * std::exp(l);
  return log1m_exp_neg(std::exp(l));
}

// Exact 1D result for a ring of L sites whose other bond per site is a self-bond (R or C = 1):
// E = -J L - J sum_k s_k s_{k+1 mod L}, Z = e^{K L} ((2 cosh K)^L + (2 sinh K)^L), K = beta J.
// Used for J < 0, where Kaufman's signed sum would cancel; written with t = tanh|K| so that the
// near-cancelling 1 - t^L at low temperature is taken in log space.
LogZ ring_with_self_bonds(int length, double coupling, double beta) {
  const double k = beta * coupling;
  const double a = std::fabs(k);
  const double len = length;
  const double x = std::exp(-2.0 * a);
  const double log_t = log1m_exp_neg(2.0 * a) - std::log1p(x);  // log tanh a < 0
  // log(-log tanh a) = log(2 atanh(e^{-2a})), atanh(x) = x (1 + x^2/3 + ...).
  const double log_neg_log_t = kLn2 + (x > 1e-8 ? std::log(std::atanh(x)) : -2.0 * a + x * x / 3.0);
  auto log_one_minus_t_pow = [&](double p) {  // log(1 - t^p), p >= 1
    return log1m_exp_neg_exp(std::log(p) + log_neg_log_t);
  };
  auto log_one_plus_t_pow = [&](double p) { return std::log1p(std::exp(p * log_t)); };
  LogZ out{};
  if (k > 0.0) {
    const double log_den = log_one_plus_t_pow(len);
    out.log_z = k * len + len * log_2cosh(k) + log_den;
    // d/dK: L (1 + tanh K + t^{L-1} sech^2 K / (1 + t^L)).
    const double log_sech2 = 2.0 * kLn2 - 2.0 * log_2cosh(k);
    out.dlog_z =
        coupling * len * (1.0 + std::tanh(k) + std::exp((len - 1.0) * log_t + log_sech2 - log_den));
    return out;
  }
  // K = -a < 0: (2 cosh K)^L + (2 sinh K)^L = (2 cosh a)^L (1 + (-t)^L), and
  // d log Z / dK = L (1 - t) ... = L (2 / (e^{2a} + 1)) (1 - (-t)^{L-1}) / (1 + (-t)^L) > 0.
  const bool odd = length % 2 == 1;
  const double log_den = odd ? log_one_minus_t_pow(len) : log_one_plus_t_pow(len);
  const double log_num = odd ? log_one_plus_t_pow(len - 1.0) : log_one_minus_t_pow(len - 1.0);
  out.log_z = k * len + len * log_2cosh(a) + log_den;
  out.dlog_z = coupling * len * std::exp(kLn2 - 2.0 * a - std::log1p(x) + log_num - log_den);
  return out;
}

void check_kaufman_arguments(std::string_view function, int rows, int cols, double beta,
                             double coupling) {
  if (rows < 1) fail_argument(function, "rows", ">= 1, got " + std::to_string(rows));
  if (cols < 1) fail_argument(function, "cols", ">= 1, got " + std::to_string(cols));
  if (!std::isfinite(beta) || beta < 0.0) {
    fail_argument(function, "beta", "a finite number >= 0, got " + std::to_string(beta));
  }
  if (!std::isfinite(coupling)) {
    fail_argument(function, "coupling", "a finite number, got " + std::to_string(coupling));
  }
  if (!std::isfinite(2.0 * rows * cols * beta * std::fabs(coupling)))
    fail_argument(
        function, "beta and coupling",
        fmt::format(
            "beta |J| times the 2 R C bonds finite (log Z would overflow), got beta = {:g}, "
            "J = {:g}",
            beta, coupling));
  const bool both_even = rows % 2 == 0 && cols % 2 == 0;
  if (coupling < 0.0 && !both_even && rows > 1 && cols > 1) {
    fail_argument(function, "coupling",
                  ">= 0 unless rows and cols are both even or one of them is 1 (an antiferromagnet "
                  "with an odd side is frustrated and Kaufman's signed sum then cancels "
                  "catastrophically at low temperature), got " +
                      std::to_string(coupling));
  }
}

LogZ ising_kaufman(int rows, int cols, double beta, double coupling) {
  const double mn = static_cast<double>(rows) * cols;
  if (std::fabs(coupling) * beta < 1e-150) {
    // No interaction (beta = 0 or J = 0), or so weak that the next order is below rounding:
    // log Z = mn log 2 + beta J S and <E> = -J S - beta Var_0(E), with S the number of
    // self-bonds (rows or cols = 1) and Var_0(E) = J^2 sum over site pairs of (bond count)^2.
    // This also keeps the formula away from subnormal K1.
    const double self_bonds = (rows == 1 ? cols : 0) + (cols == 1 ? rows : 0);
    const double vertical = rows == 1 ? 0.0 : rows == 2 ? 4.0 * cols : mn;
    const double horizontal = cols == 1 ? 0.0 : cols == 2 ? 4.0 * rows : mn;
    const double var0 = coupling * coupling * (vertical + horizontal);
    return {mn * kLn2 + beta * coupling * self_bonds, coupling * self_bonds + beta * var0};
  }
  // m = rows is the transfer direction (the formula was checked against enumeration on
  // non-square lattices with this orientation; for equal couplings Z is symmetric anyway).
  if (coupling > 0.0) return kaufman_core(rows, cols, coupling, coupling, beta);
  // Antiferromagnet (check_kaufman_arguments allows only these two cases). Both sides even:
  // flipping every other row and every other column maps J to -J exactly.
  if (rows % 2 == 0 && cols % 2 == 0) {
    return kaufman_core(rows, cols, -coupling, -coupling, beta);
  }
  // A single row or column: the closed-form ring, which stays accurate at low temperature.
  if (cols == 1) return ring_with_self_bonds(rows, coupling, beta);
  return ring_with_self_bonds(cols, coupling, beta);
}

}  // namespace

double ising_log_z_kaufman(int rows, int cols, double beta, double coupling) {
  check_kaufman_arguments("ising_log_z_kaufman", rows, cols, beta, coupling);
  return ising_kaufman(rows, cols, beta, coupling).log_z;
}

double ising_mean_energy_kaufman(int rows, int cols, double beta, double coupling) {
  check_kaufman_arguments("ising_mean_energy_kaufman", rows, cols, beta, coupling);
  return -ising_kaufman(rows, cols, beta, coupling).dlog_z;
}

}  // namespace logz::exact
