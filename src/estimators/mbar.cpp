#include "logz/estimators/mbar.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <cmath>
#include <limits>

#include "logz/core/error.hpp"

namespace logz {

namespace {

// log D_n = log sum_l N_l exp(f_l - u_ln) for every sample.
Eigen::VectorXd log_denominators(const Eigen::MatrixXd& u, const Eigen::VectorXd& log_n, const Eigen::VectorXd& f) {
  const Eigen::Index k = u.rows(), n = u.cols();
  Eigen::VectorXd out(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index l = 0; l < k; ++l)
      if (std::isfinite(log_n(l))) m = std::max(m, log_n(l) + f(l) - u(l, j));
    double s = 0;
    for (Eigen::Index l = 0; l < k; ++l)
      if (std::isfinite(log_n(l))) s += std::exp(log_n(l) + f(l) - u(l, j) - m);
    out(j) = m + std::log(s);
  }
  return out;
}

// One self-consistent iteration, f_k = -log sum_n exp(-u_kn - log D_n), in log space with
// the reference state's f kept at its value; robust from any start (it fixes gross offsets
// in one pass), where Newton's method needs a start at which no state's weights underflow.
void self_consistent_step(const Eigen::MatrixXd& u, const Eigen::VectorXd& log_n, Eigen::Index reference,
                          Eigen::VectorXd& f, Eigen::VectorXd& log_d) {
  const Eigen::Index k = u.rows(), n = u.cols();
  Eigen::VectorXd next(k);
  for (Eigen::Index l = 0; l < k; ++l) {
    double mx = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < n; ++j) mx = std::max(mx, -u(l, j) - log_d(j));
    double sum = 0;
    for (Eigen::Index j = 0; j < n; ++j) sum += std::exp(-u(l, j) - log_d(j) - mx);
    next(l) = -(mx + std::log(sum));
  }
  f = next.array() - (next(reference) - f(reference));
  log_d = log_denominators(u, log_n, f);
}

double objective(const Eigen::VectorXd& log_d, const Eigen::VectorXd& n, const Eigen::VectorXd& f) {
  double obj = log_d.sum();
  for (Eigen::Index k = 0; k < f.size(); ++k)
    if (n(k) > 0) obj -= n(k) * f(k);
  return obj;
}

}  // namespace

MbarResult mbar(const Eigen::MatrixXd& u, std::span<const double> num_samples, const MbarOptions& options) {
  const Eigen::Index k_states = u.rows(), n = u.cols();
  if (static_cast<Eigen::Index>(num_samples.size()) != k_states)
    fail_argument("logz::mbar", "num_samples", "one count per state (rows of u)");
  double total = 0;
  for (double v : num_samples) {
    if (!(v >= 0)) fail_argument("logz::mbar", "num_samples", "non-negative counts");
    total += v;
  }
  if (std::abs(total - static_cast<double>(n)) > 0.5)
    fail_argument("logz::mbar", "num_samples", "counts that add up to the number of samples (columns of u)");
  if (!u.allFinite()) fail_argument("logz::mbar", "u", "finite reduced energies");
  Eigen::VectorXd counts(k_states), log_n(k_states);
  for (Eigen::Index k = 0; k < k_states; ++k) {
    counts(k) = num_samples[k];
    log_n(k) = num_samples[k] > 0 ? std::log(num_samples[k]) : -std::numeric_limits<double>::infinity();
  }
  std::vector<Eigen::Index> free;  // sampled states except the reference (first sampled one)
  Eigen::Index reference = -1;
  for (Eigen::Index k = 0; k < k_states; ++k) {
    if (counts(k) <= 0) continue;
    if (reference < 0)
      reference = k;  // its f stays fixed: the objective is invariant to a common shift
    else
      free.push_back(k);
  }
  if (reference < 0) fail_argument("logz::mbar", "num_samples", "at least one sampled state");

  Eigen::VectorXd f = Eigen::VectorXd::Zero(k_states);
  if (!options.initial_log_z.empty()) {
    if (static_cast<Eigen::Index>(options.initial_log_z.size()) != k_states)
      fail_argument("logz::mbar", "initial_log_z", "one value per state");
    for (Eigen::Index k = 0; k < k_states; ++k) f(k) = -(options.initial_log_z[k] - options.initial_log_z[reference]);
  }
  MbarResult result;
  Eigen::VectorXd log_d = log_denominators(u, log_n, f);
  if (options.initial_log_z.empty())
    for (int i = 0; i < 3; ++i) self_consistent_step(u, log_n, reference, f, log_d);
  double obj = objective(log_d, counts, f);
  const Eigen::Index m = static_cast<Eigen::Index>(free.size());
  for (int it = 0; it < options.max_iterations && m > 0; ++it) {
    // W_nk N_k for the free states; gradient and Hessian of the objective.
    Eigen::MatrixXd nw(n, m);
    for (Eigen::Index a = 0; a < m; ++a)
      for (Eigen::Index j = 0; j < n; ++j)
        nw(j, a) = std::exp(log_n(free[a]) + f(free[a]) - u(free[a], j) - log_d(j));
    Eigen::VectorXd colsum = nw.colwise().sum().transpose();
    Eigen::VectorXd grad(m);
    double max_rel = 0;
    for (Eigen::Index a = 0; a < m; ++a) {
      grad(a) = colsum(a) - counts(free[a]);
      max_rel = std::max(max_rel, std::abs(grad(a)) / counts(free[a]));
    }
    result.iterations = it;
    if (max_rel < options.tolerance) {
      result.converged = true;
      break;
    }
    Eigen::MatrixXd hess = -(nw.transpose() * nw);
    hess.diagonal() += colsum;
    const Eigen::VectorXd step = hess.ldlt().solve(-grad);
    if (!step.allFinite()) {
      // Some state's weights have all underflowed (a start far from the solution): the
      // Hessian is singular; a self-consistent step brings such states back in range.
      self_consistent_step(u, log_n, reference, f, log_d);
      obj = objective(log_d, counts, f);
      result.iterations = it + 1;
      continue;
    }
    // Backtracking line search on the convex objective. Near the solution the
    // objective's changes fall below its rounding error (a sum of N terms); there
    // the full Newton step is safe (quadratic convergence) and is taken.
    double t = 1.0;
    for (int ls = 0; ls < 20; ++ls, t *= 0.5) {
      Eigen::VectorXd trial = f;
      for (Eigen::Index a = 0; a < m; ++a) trial(free[a]) += t * step(a);
      const Eigen::VectorXd trial_d = log_denominators(u, log_n, trial);
      const double trial_obj = objective(trial_d, counts, trial);
      const bool rounding = std::abs(trial_obj - obj) <= 1e-12 * std::abs(obj) + 1e-300;
      if (trial_obj <= obj + 1e-4 * t * grad.dot(step) || (rounding && t == 1.0) || ls == 19) {
        f = trial, log_d = trial_d, obj = trial_obj;
        break;
      }
    }
    if (t * step.lpNorm<Eigen::Infinity>() < 1e-13) {  // no further progress possible
      result.iterations = it + 1;
      result.converged = max_rel < 1e-6;
      break;
    }
    result.iterations = it + 1;
  }
  if (m == 0) result.converged = true;
  // Unsampled states from the self-consistent equation.
  for (Eigen::Index k = 0; k < k_states; ++k) {
    if (counts(k) > 0) continue;
    double mx = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < n; ++j) mx = std::max(mx, -u(k, j) - log_d(j));
    double s = 0;
    for (Eigen::Index j = 0; j < n; ++j) s += std::exp(-u(k, j) - log_d(j) - mx);
    f(k) = -(mx + std::log(s));
  }
  // Asymptotic covariance of f (pymbar's svd-ew), with W over all states.
  Eigen::MatrixXd w(n, k_states);
  for (Eigen::Index k = 0; k < k_states; ++k)
    for (Eigen::Index j = 0; j < n; ++j) w(j, k) = std::exp(f(k) - u(k, j) - log_d(j));
  Eigen::BDCSVD<Eigen::MatrixXd> svd(w, Eigen::ComputeThinV);
  const Eigen::MatrixXd v = svd.matrixV();
  const Eigen::VectorXd s = svd.singularValues();
  // The overlap matrix W^T W diag(N) from the same decomposition: W^T W = V S^2 V^T.
  result.overlap = v * s.array().square().matrix().asDiagonal() * v.transpose() * counts.asDiagonal();
  Eigen::MatrixXd inner = Eigen::MatrixXd::Identity(k_states, k_states) -
                          s.asDiagonal() * v.transpose() * counts.asDiagonal() * v * s.asDiagonal();
  Eigen::JacobiSVD<Eigen::MatrixXd> inner_svd(inner, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd sv = inner_svd.singularValues();
  Eigen::VectorXd inv = Eigen::VectorXd::Zero(sv.size());
  for (Eigen::Index i = 0; i < sv.size(); ++i)
    if (sv(i) > 1e-10 * sv(0)) inv(i) = 1.0 / sv(i);
  const Eigen::MatrixXd pinv = inner_svd.matrixV() * inv.asDiagonal() * inner_svd.matrixU().transpose();
  result.covariance = v * s.asDiagonal() * pinv * s.asDiagonal() * v.transpose();
  result.log_z.resize(k_states);
  result.std_error.resize(k_states);
  for (Eigen::Index k = 0; k < k_states; ++k) {
    result.log_z[k] = -(f(k) - f(0));
    const double var = result.covariance(k, k) + result.covariance(0, 0) - 2 * result.covariance(0, k);
    result.std_error[k] = k == 0 ? 0.0 : std::sqrt(std::max(var, 0.0));
  }
  return result;
}

LadderEstimates mbar_tempered(const TemperingStats& stats, std::span<const double> fractions, const MbarOptions& options) {
  const std::size_t n = stats.sample_delta.size(), k_levels = stats.num_levels;
  if (n == 0)
    fail_argument("logz::mbar_tempered", "stats", "recorded samples (TemperingOptions::record_samples = true)");
  Eigen::MatrixXd u(k_levels, n);
  std::vector<double> counts(k_levels, 0.0);
  const bool per_level = !stats.linear_in_t;
  if (per_level && stats.sample_energies.size() != n * k_levels)
    fail_argument("logz::mbar_tempered", "stats", "every level's energy of every recorded sample");
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < k_levels; ++k)
      u(k, j) = per_level ? stats.sample_energies[j * k_levels + k] : -fractions[k] * stats.sample_delta[j];
    counts[stats.sample_level[j]] += 1.0;
  }
  const MbarResult r = mbar(u, counts, options);
  LadderEstimates out;
  out.method = "mbar";
  out.log_z = r.log_z;
  out.std_error = r.std_error;
  // An unconverged solution has no meaningful asymptotic error.
  if (!r.converged) out.std_error.assign(k_levels, kNaN);
  out.bias.assign(k_levels, kNaN);
  out.summarise_last("mbar_asymptotic");
  out.last.diagnostics.iterations = r.iterations;
  out.last.diagnostics.converged = r.converged;
  if (!r.converged) out.last.diagnostics.add_flag("not_converged");
  return out;
}

}  // namespace logz
