#include "logz/exact/gaussian_toy_marginals.hpp"

#include <cmath>
#include <limits>

#include "logz/core/error.hpp"

namespace logz::exact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The path at one t_k: p_k = N(mu, 1 / precision), the kernel's AR coefficient rho = tau^steps.
struct Point {
  double mu, precision, rho;
};

// U_to(x) - U_from(x) = value + slope (x - m) + curvature (x - m)^2 about a point m.
struct Quadratic {
  double value, slope, curvature;
};

Quadratic increment_about(const Point& from, const Point& to, double m) {
  const double d_from = m - from.mu, d_to = m - to.mu;
  return {0.5 * (to.precision * d_to * d_to - from.precision * d_from * d_from),
          to.precision * d_to - from.precision * d_from, 0.5 * (to.precision - from.precision)};
}

void check(const GaussianToySpec& s, std::span<const double> fractions, const char* function) {
  auto finite = [&](double v, const char* name) {
    if (!std::isfinite(v)) fail_argument(function, name, "a finite number");
  };
  auto positive = [&](double v, const char* name) {
    if (!(v > 0.0) || !std::isfinite(v) || !std::isfinite(1.0 / (v * v)))
      fail_argument(function, name, "a finite number > 0 whose 1/sigma^2 is finite");
  };
  auto unit = [&](double v, const char* name) {
    if (!(v >= 0.0 && v <= 1.0)) fail_argument(function, name, "a number in [0, 1]");
  };
  finite(s.mu_start, "spec.mu_start");
  positive(s.sigma_start, "spec.sigma_start");
  finite(s.mu_end, "spec.mu_end");
  positive(s.sigma_end, "spec.sigma_end");
  unit(s.tau_start, "spec.tau_start");
  unit(s.tau_end, "spec.tau_end");
  if (s.steps_per_temperature < 1)
    fail_argument(function, "spec.steps_per_temperature", "an integer >= 1");
  if (fractions.size() < 2 || fractions.front() != 0.0 || fractions.back() != 1.0)
    fail_argument(function, "fractions", "at least 2 values from 0 to 1");
  for (std::size_t k = 1; k < fractions.size(); ++k)
    if (!(fractions[k] > fractions[k - 1]))
      fail_argument(function, "fractions", "strictly increasing values");
}

std::vector<Point> points_of(const GaussianToySpec& s, std::span<const double> fractions) {
  const double p0 = 1.0 / (s.sigma_start * s.sigma_start), p1 = 1.0 / (s.sigma_end * s.sigma_end);
  std::vector<Point> pts;
  for (double t : fractions) {
    // Geometric bridge: precision and precision-weighted mean linear in t.
    const double precision = t == 0.0 ? p0 : t == 1.0 ? p1 : (1.0 - t) * p0 + t * p1;
    const double mu = t == 0.0   ? s.mu_start
                      : t == 1.0 ? s.mu_end
                                 : ((1.0 - t) * p0 * s.mu_start + t * p1 * s.mu_end) / precision;
    const double tau = (1.0 - t) * s.tau_start + t * s.tau_end;
    pts.push_back({mu, precision, std::pow(tau, static_cast<double>(s.steps_per_temperature))});
  }
  return pts;
}

// One move of the process: the work increment from point `from` to point `to` at the
// current state, then (if kernel >= 0) the kernel of point `kernel`.
struct Move {
  std::size_t from, to;
  long kernel;
};

std::vector<Move> moves_of(std::size_t num_k, Direction d) {
  const std::size_t K = num_k - 1;
  std::vector<Move> moves;
  if (d == Direction::forward) {
    for (std::size_t k = 1; k <= K; ++k)
      moves.push_back({k - 1, k, k < K ? static_cast<long>(k) : -1});
  } else {
    for (std::size_t k = K; k >= 1; --k)
      moves.push_back({k, k - 1, k > 1 ? static_cast<long>(k - 1) : -1});
  }
  return moves;
}

NormalMoments start_of(const std::vector<Point>& pts, Direction d) {
  const Point& p = d == Direction::forward ? pts.front() : pts.back();
  return {p.mu, 1.0 / p.precision};
}

// x' = rho x + (1 - rho) mu + noise: mean and variance of the next state.
NormalMoments apply_kernel(const Point& p, NormalMoments s) {
  const double r = p.rho;
  return {p.mu + r * (s.mean - p.mu), r * r * s.variance + (1.0 - r) * (1.0 + r) / p.precision};
}

double log_moment(const std::vector<Point>& pts, Direction d, double lambda) {
  NormalMoments s = start_of(pts, d);
  double log_m = 0.0;
  for (const Move& mv : moves_of(pts.size(), d)) {
    // E[exp(-lambda (f0 + g y + a y^2))], y ~ N(0, v): the Gaussian integral, and the
    // exp(-lambda f)-tilted state N(m - lambda g v', v') that the next steps see.
    const Quadratic q = increment_about(pts[mv.from], pts[mv.to], s.mean);
    const double scale = 1.0 + 2.0 * lambda * q.curvature * s.variance;
    if (!(scale > 0.0)) return kInf;
    const double v_new = s.variance / scale;
    log_m += -lambda * q.value - 0.5 * std::log(scale) +
             0.5 * lambda * lambda * q.slope * q.slope * v_new;
    s = {s.mean - lambda * q.slope * v_new, v_new};
    if (mv.kernel >= 0) s = apply_kernel(pts[static_cast<std::size_t>(mv.kernel)], s);
  }
  return log_m;
}

// Mean and variance of W = sum_i f_i(s_i) over the Markov chain of states s_i. With
// C_ij = V_i prod rho (i < j) and Isserlis' theorem,
//   Cov(f_i(s_i), f_j(s_j)) = 2 a_i a_j C_ij^2 + g_i g_j C_ij,   g = f'(mean), a = f''/2,
// and the sums over i < j run as recursions A <- (A + a V^2) rho^2, G <- (G + g V) rho.
struct Propagation {
  std::vector<NormalMoments> states;  // the state each move's increment is taken at
  double mean = 0.0, variance = 0.0;
};

Propagation propagate(const std::vector<Point>& pts, Direction d) {
  Propagation out;
  NormalMoments s = start_of(pts, d);
  double a_sum = 0.0, g_sum = 0.0;
  for (const Move& mv : moves_of(pts.size(), d)) {
    out.states.push_back(s);
    const Quadratic q = increment_about(pts[mv.from], pts[mv.to], s.mean);
    const double a = q.curvature, g = q.slope, v = s.variance;
    out.mean += q.value + a * v;
    out.variance += 2.0 * a * a * v * v + g * g * v + 2.0 * (2.0 * a * a_sum + g * g_sum);
    if (mv.kernel >= 0) {
      const double r = pts[static_cast<std::size_t>(mv.kernel)].rho;
      a_sum = (a_sum + a * v * v) * r * r;
      g_sum = (g_sum + g * v) * r;
      s = apply_kernel(pts[static_cast<std::size_t>(mv.kernel)], s);
    }
  }
  return out;
}

WorkSummary summarise(const std::vector<Point>& pts, Direction d, const Propagation& p) {
  WorkSummary w;
  w.mean = p.mean;
  w.variance = p.variance;
  w.log_mean_exp = log_moment(pts, d, 1.0);
  const double second = log_moment(pts, d, 2.0);
  w.weight_relative_variance =
      std::isinf(second) ? kInf : std::expm1(second - 2.0 * w.log_mean_exp);
  return w;
}

}  // namespace

GaussianToyMarginals gaussian_toy_marginals(const GaussianToySpec& spec,
                                            std::span<const double> fractions) {
  check(spec, fractions, "logz::exact::gaussian_toy_marginals");
  const auto pts = points_of(spec, fractions);
  const std::size_t num_k = pts.size(), K = num_k - 1;
  GaussianToyMarginals r;
  r.fractions.assign(fractions.begin(), fractions.end());
  for (const Point& p : pts) r.stationary.push_back({p.mu, 1.0 / p.precision});

  const Propagation fwd = propagate(pts, Direction::forward);
  const Propagation rev = propagate(pts, Direction::reverse);
  // fwd.states[k] is x_k (k = 0..K-1); rev.states[K - k] is y_k (k = K..1).
  r.forward.assign(fwd.states.begin(), fwd.states.end());
  r.forward.push_back({});
  r.reverse.assign(num_k, {});
  for (std::size_t k = 1; k <= K; ++k) r.reverse[k] = rev.states[K - k];

  // D(x) = U_K(x) - U_0(x); E_N(m, v)[D] = D(m) + (P_K - P_0) v / 2.
  const Point &first = pts.front(), &last = pts.back();
  auto mean_d = [&](const NormalMoments& s) {
    if (std::isnan(s.mean)) return kNaN;
    return increment_about(first, last, s.mean).value +
           0.5 * (last.precision - first.precision) * s.variance;
  };
  for (std::size_t k = 0; k < num_k; ++k) {
    r.equilibrium_energy.push_back(mean_d(r.stationary[k]));
    r.forward_energy.push_back(mean_d(r.forward[k]));
    r.reverse_energy.push_back(mean_d(r.reverse[k]));
  }
  r.log_z = std::log(spec.sigma_end) - std::log(spec.sigma_start);
  r.forward_work = summarise(pts, Direction::forward, fwd);
  r.reverse_work = summarise(pts, Direction::reverse, rev);
  r.lower_bound = -r.forward_work.mean;
  r.upper_bound = r.reverse_work.mean;
  return r;
}

double gaussian_toy_log_work_moment(const GaussianToySpec& spec, std::span<const double> fractions,
                                    Direction direction, double lambda) {
  check(spec, fractions, "logz::exact::gaussian_toy_log_work_moment");
  if (!(lambda > 0.0) || !std::isfinite(lambda))
    fail_argument("logz::exact::gaussian_toy_log_work_moment", "lambda", "a finite number > 0");
  return log_moment(points_of(spec, fractions), direction, lambda);
}

}  // namespace logz::exact
