#include "logz/estimators/mbar.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/softmax_columns.hpp"
#include "logz/math/transpose_block.hpp"
#include "math/blas.hpp"

namespace logz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Samples per block: K x B doubles of weights, about 256 KB, stay in the cache between the
// softmax that writes them and the sums and the rank-B update that read them.
constexpr std::size_t kBlockEntries = std::size_t{1} << 15;

// Reduced energies u_k(x_n), a block of samples at a time: a K x N column-major matrix (column n
// = sample n), blocks that a reader fills (u stored state by state, in memory or in a file), or
// u_kn = levels_k * energies_n, never formed.
class Energies {
 public:
  Energies(const double* dense, std::size_t states, std::size_t samples)
      : dense_(dense), states_(states), samples_(samples) {}
  Energies(std::size_t states, std::size_t samples, const MbarBlockReader& read)
      : read_(&read), states_(states), samples_(samples) {}
  Energies(std::span<const double> levels, std::span<const double> energies)
      : levels_(levels), energies_(energies), states_(levels.size()), samples_(energies.size()) {}

  std::size_t states() const { return states_; }
  std::size_t samples() const { return samples_; }
  // u_k(x_n); from a reader, n must lie in the block of the last softmax (the callers' order).
  double operator()(std::size_t k, std::size_t n) const {
    if (dense_) return dense_[n * states_ + k];
    if (read_) return block_[(n - block_first_) * states_ + k];
    return levels_[k] * energies_[n];
  }
  // Softmax over states of bias - u for samples first .. first + count - 1 (softmax_columns.hpp).
  // Not thread-safe with a reader (its block): one solve uses one Energies.
  void softmax(std::span<const double> bias, std::size_t first, std::size_t count, double* p,
               double* log_norm) const {
    if (dense_) {
      softmax_columns(bias, dense_ + first * states_, states_, count, p, states_, log_norm);
    } else if (read_) {
      block_.resize(states_ * count);
      (*read_)(first, count, block_.data());
      block_first_ = first;
      softmax_columns(bias, block_.data(), states_, count, p, states_, log_norm);
    } else {
      softmax_columns_linear(bias, levels_, energies_.subspan(first, count), p, states_, log_norm);
    }
  }

 private:
  const double* dense_ = nullptr;
  const MbarBlockReader* read_ = nullptr;
  std::span<const double> levels_, energies_;
  std::size_t states_, samples_;
  mutable std::vector<double> block_;  // a reader's last block, K x count column-major
  mutable std::size_t block_first_ = 0;
};

std::size_t block_size(const Energies& u) {
  return std::clamp<std::size_t>(kBlockEntries / std::max<std::size_t>(u.states(), 1), 16,
                                 std::max<std::size_t>(u.samples(), 1));
}

// One pass over the samples at bias_k = log N_k + f_k: sum_n log D_n, the column sums of
// P = N W (the gradient) and, when asked, the Gram matrix P^T P (the Hessian), both summed a
// block at a time: nothing of size K x N is ever stored.
struct Pass {
  double sum_log_d = 0.0;
  Eigen::VectorXd colsum;
  Eigen::MatrixXd gram;  // empty unless asked for
};

Pass evaluate(const Energies& u, const Eigen::VectorXd& bias, bool with_gram) {
  const std::size_t k = u.states(), n = u.samples(), b = block_size(u);
  const auto kk = static_cast<Eigen::Index>(k);
  Pass pass;
  pass.colsum = Eigen::VectorXd::Zero(kk);
  if (with_gram) {
    blas::single_threaded();
    pass.gram = Eigen::MatrixXd::Zero(kk, kk);
  }
  Eigen::MatrixXd p(kk, static_cast<Eigen::Index>(b));
  Eigen::VectorXd log_norm(static_cast<Eigen::Index>(b));
  for (std::size_t first = 0; first < n; first += b) {
    const std::size_t count = std::min(b, n - first);
    const auto cols = static_cast<Eigen::Index>(count);
    u.softmax({bias.data(), k}, first, count, p.data(), log_norm.data());
    pass.sum_log_d += log_norm.head(cols).sum();
    pass.colsum += p.leftCols(cols).rowwise().sum();
    if (with_gram) {
      cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, static_cast<int>(k),
                  static_cast<int>(count), 1.0, p.data(), static_cast<int>(k), 1.0,
                  pass.gram.data(), static_cast<int>(k));
    }
  }
  if (with_gram) {
    Eigen::MatrixXd full =
        pass.gram.selfadjointView<Eigen::Upper>();  // syrk fills the upper triangle
    pass.gram = std::move(full);
  }
  return pass;
}

// log N_k + f_k; -inf for an unsampled state whatever its f (+inf where its Z is 0).
Eigen::VectorXd bias_of(const Eigen::VectorXd& log_n, const Eigen::VectorXd& f) {
  Eigen::VectorXd bias = log_n + f;
  for (Eigen::Index k = 0; k < bias.size(); ++k)
    if (log_n(k) == -kInf) bias(k) = -kInf;
  return bias;
}

double objective(const Pass& pass, const Eigen::VectorXd& counts, const Eigen::VectorXd& f) {
  double obj = pass.sum_log_d;
  for (Eigen::Index k = 0; k < f.size(); ++k)
    if (counts(k) > 0) obj -= counts(k) * f(k);
  return obj;
}

// log sum_n exp(c_i - u_{k_i}(x_n) - log D_n) for the given states k_i and offsets c_i, with
// log D_n from the softmax at bias: a running maximum per state over the blocks, so that a sum
// whose every term underflows still comes out right. For the few states that need it.
std::vector<double> log_sums(const Energies& u, const Eigen::VectorXd& bias,
                             const std::vector<Eigen::Index>& states,
                             const std::vector<double>& offsets) {
  const std::size_t k = u.states(), n = u.samples(), b = block_size(u);
  Eigen::MatrixXd p(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(b));
  Eigen::VectorXd log_norm(static_cast<Eigen::Index>(b));
  std::vector<double> top(states.size(), -kInf), sum(states.size(), 0.0);
  for (std::size_t first = 0; first < n; first += b) {
    const std::size_t count = std::min(b, n - first);
    u.softmax({bias.data(), k}, first, count, p.data(), log_norm.data());
    for (std::size_t i = 0; i < states.size(); ++i) {
      const auto s = static_cast<std::size_t>(states[i]);
      for (std::size_t j = 0; j < count; ++j) {
        const double y = offsets[i] - u(s, first + j) - log_norm(static_cast<Eigen::Index>(j));
        if (y == -kInf) continue;  // u = +inf: no weight (and exp(-inf - -inf) would be NaN)
        if (y > top[i]) {
          sum[i] = sum[i] * std::exp(top[i] - y) + 1.0;
          top[i] = y;
        } else {
          sum[i] += std::exp(y - top[i]);
        }
      }
    }
  }
  for (std::size_t i = 0; i < states.size(); ++i) top[i] += std::log(sum[i]);
  return top;
}

// One self-consistent iteration from a pass at f: f_k <- -log sum_n exp(-u_kn - log D_n)
// = f_k - log(sum_n N_k W_nk / N_k), with the reference state's f kept at its value; robust from
// any start (it fixes gross offsets in one pass), where Newton's method needs a start at which no
// state's weights underflow. States whose sum underflowed have it again in log space.
void self_consistent_step(const Energies& u, const Pass& pass, const Eigen::VectorXd& log_n,
                          const Eigen::VectorXd& counts, Eigen::Index reference,
                          Eigen::VectorXd& f) {
  Eigen::VectorXd log_colsum = pass.colsum.array().log();
  std::vector<Eigen::Index> underflow;
  std::vector<double> offsets;
  for (Eigen::Index k = 0; k < f.size(); ++k) {
    if (counts(k) > 0 && !(pass.colsum(k) > 1e-280)) {
      underflow.push_back(k);
      offsets.push_back(log_n(k) + f(k));
    }
  }
  if (!underflow.empty()) {
    const std::vector<double> exact = log_sums(u, log_n + f, underflow, offsets);
    for (std::size_t i = 0; i < underflow.size(); ++i) log_colsum(underflow[i]) = exact[i];
  }
  Eigen::VectorXd next = f;
  for (Eigen::Index k = 0; k < f.size(); ++k)
    if (counts(k) > 0) next(k) = f(k) - (log_colsum(k) - log_n(k));
  f = next.array() - (next(reference) - f(reference));
}

// W^T W over all states, W_nk = exp(f_k - u_kn - log D_n), a block at a time; the sampled
// states' columns are P's divided by N_k, the unsampled ones computed from their f.
Eigen::MatrixXd weights_gram(const Energies& u, const Eigen::VectorXd& bias,
                             const Eigen::VectorXd& counts, const Eigen::VectorXd& f) {
  blas::single_threaded();
  const std::size_t k = u.states(), n = u.samples(), b = block_size(u);
  const auto kk = static_cast<Eigen::Index>(k);
  Eigen::MatrixXd p(kk, static_cast<Eigen::Index>(b)), gram = Eigen::MatrixXd::Zero(kk, kk);
  Eigen::VectorXd log_norm(static_cast<Eigen::Index>(b));
  for (std::size_t first = 0; first < n; first += b) {
    const std::size_t count = std::min(b, n - first);
    u.softmax({bias.data(), k}, first, count, p.data(), log_norm.data());
    for (Eigen::Index s = 0; s < kk; ++s) {
      for (std::size_t j = 0; j < count; ++j) {
        const auto c = static_cast<Eigen::Index>(j);
        if (counts(s) > 0)
          p(s, c) /= counts(s);
        else  // f = +inf: every sample has u = +inf there, weight 0
          p(s, c) = f(s) == kInf
                        ? 0.0
                        : std::exp(f(s) - u(static_cast<std::size_t>(s), first + j) - log_norm(c));
      }
    }
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, static_cast<int>(k),
                static_cast<int>(count), 1.0, p.data(), static_cast<int>(k), 1.0, gram.data(),
                static_cast<int>(k));
  }
  Eigen::MatrixXd full = gram.selfadjointView<Eigen::Upper>();
  return full;
}

// Whether each state has a path of overlapping states to state 0. States k and l are linked when
// O_kl + O_lk >= kMinLink, O_kl = sum_n W_nk W_nl N_l the share of state k's reweighted samples
// that state l claims: samples that carry weight under both. For two states O_kl + O_lk is
// 1 - the second eigenvalue of O, the overlap the variance of their log Z ratio divides by. The
// covariance's pseudo-inverse discards singular values below 1e-10 of the largest (at most 1:
// those of I - O's spectrum), so a weaker link would be reported with an error that ignores it
// (0 +- 0 where the link is missing): such a state has no estimate.
constexpr double kMinLink = 1e-10;
// A link weaker than this is poor overlap (flag "poor_overlap"): Klimovich, Shirts & Mobley
// (2015) ask for O_kl >= 0.03 between neighbouring states, 0.06 for O_kl + O_lk.
constexpr double kGoodLink = 0.06;

std::vector<bool> linked_to_first(const Eigen::MatrixXd& overlap, double min_link = kMinLink) {
  const Eigen::Index k_states = overlap.rows();
  std::vector<bool> linked(static_cast<std::size_t>(k_states), false);
  std::vector<Eigen::Index> todo = {0};
  linked[0] = true;
  while (!todo.empty()) {
    const Eigen::Index k = todo.back();
    todo.pop_back();
    for (Eigen::Index l = 0; l < k_states; ++l) {
      if (!linked[static_cast<std::size_t>(l)] && overlap(k, l) + overlap(l, k) >= min_link) {
        linked[static_cast<std::size_t>(l)] = true;
        todo.push_back(l);
      }
    }
  }
  return linked;
}

MbarResult solve(const Energies& u, std::span<const double> num_samples, const MbarOptions& options,
                 const char* function) {
  const auto k_states = static_cast<Eigen::Index>(u.states());
  if (static_cast<Eigen::Index>(num_samples.size()) != k_states)
    fail_argument(function, "num_samples", "one count per state (rows of u)");
  double total = 0;
  for (double v : num_samples) {
    if (!(v >= 0)) fail_argument(function, "num_samples", "non-negative counts");
    total += v;
  }
  if (std::abs(total - static_cast<double>(u.samples())) > 0.5)
    fail_argument(function, "num_samples",
                  "counts that add up to the number of samples (columns of u)");
  Eigen::VectorXd counts(k_states), log_n(k_states);
  for (Eigen::Index k = 0; k < k_states; ++k) {
    counts(k) = num_samples[k];
    log_n(k) = num_samples[k] > 0 ? std::log(num_samples[k]) : -kInf;
  }
  std::vector<Eigen::Index> free,
      unsampled;  // free: sampled states except the reference (first sampled one)
  Eigen::Index reference = -1;
  for (Eigen::Index k = 0; k < k_states; ++k) {
    if (counts(k) <= 0)
      unsampled.push_back(k);
    else if (reference < 0)
      reference = k;  // its f stays fixed: the objective is invariant to a common shift
    else
      free.push_back(k);
  }
  if (reference < 0) fail_argument(function, "num_samples", "at least one sampled state");

  Eigen::VectorXd f = Eigen::VectorXd::Zero(k_states);
  if (!options.initial_log_z.empty()) {
    if (static_cast<Eigen::Index>(options.initial_log_z.size()) != k_states)
      fail_argument(function, "initial_log_z", "one value per state");
    for (Eigen::Index k = 0; k < k_states; ++k) {
      const double v = options.initial_log_z[static_cast<std::size_t>(k)];
      if (!std::isfinite(v))
        fail_argument(
            function, "initial_log_z",
            "finite values, got " + std::to_string(v) + " at [" + std::to_string(k) + "]");
    }
    for (Eigen::Index k = 0; k < k_states; ++k)
      f(k) = -(options.initial_log_z[k] - options.initial_log_z[reference]);
  }
  MbarResult result;
  if (options.initial_log_z.empty())
    for (int i = 0; i < 3; ++i)
      self_consistent_step(u, evaluate(u, bias_of(log_n, f), false), log_n, counts, reference, f);
  // Every Newton iterate is evaluated with the Gram matrix: the last one's gives the covariance.
  Pass pass = evaluate(u, bias_of(log_n, f), true);
  double obj = objective(pass, counts, f);
  const Eigen::Index m = static_cast<Eigen::Index>(free.size());
  for (int it = 0; it < options.max_iterations && m > 0; ++it) {
    options.stop.throw_if_requested();
    // Gradient and Hessian of the objective over the free states, from P = N W.
    Eigen::VectorXd grad(m);
    Eigen::MatrixXd hess(m, m);
    double max_rel = 0;
    for (Eigen::Index a = 0; a < m; ++a) {
      grad(a) = pass.colsum(free[a]) - counts(free[a]);
      max_rel = std::max(max_rel, std::abs(grad(a)) / counts(free[a]));
      for (Eigen::Index c = 0; c < m; ++c) hess(a, c) = -pass.gram(free[a], free[c]);
      hess(a, a) += pass.colsum(free[a]);
    }
    result.iterations = it;
    if (max_rel < options.tolerance) {
      result.converged = true;
      break;
    }
    const Eigen::VectorXd step = hess.ldlt().solve(-grad);
    if (!step.allFinite()) {
      // Some state's weights have all underflowed (a start far from the solution): the
      // Hessian is singular; a self-consistent step brings such states back in range.
      self_consistent_step(u, pass, log_n, counts, reference, f);
      pass = evaluate(u, bias_of(log_n, f), true);
      obj = objective(pass, counts, f);
      result.iterations = it + 1;
      continue;
    }
    // Backtracking line search on the convex objective. Near the solution the
    // objective's changes fall below its rounding error (a sum of N terms); there
    // the full Newton step is safe (quadratic convergence) and is taken. The full step's pass
    // carries the Gram matrix for the next iteration (it is nearly always accepted).
    double t = 1.0;
    for (int ls = 0; ls < 20; ++ls, t *= 0.5) {
      Eigen::VectorXd trial = f;
      for (Eigen::Index a = 0; a < m; ++a) trial(free[a]) += t * step(a);
      Pass trial_pass = evaluate(u, bias_of(log_n, trial), ls == 0);
      const double trial_obj = objective(trial_pass, counts, trial);
      const bool rounding = std::abs(trial_obj - obj) <= 1e-12 * std::abs(obj) + 1e-300;
      if (trial_obj <= obj + 1e-4 * t * grad.dot(step) || (rounding && t == 1.0) || ls == 19) {
        f = trial, obj = trial_obj;
        pass = ls == 0 ? std::move(trial_pass) : evaluate(u, bias_of(log_n, f), true);
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

  // W^T W over all states: from the last pass when every state is sampled (W = P / N_k),
  // otherwise after the unsampled states' f from the self-consistent equation.
  Eigen::MatrixXd gram;
  if (unsampled.empty()) {
    const Eigen::VectorXd inverse = counts.cwiseInverse();
    gram = inverse.asDiagonal() * pass.gram * inverse.asDiagonal();
  } else {
    // Their f from the self-consistent equation, f_k = -log sum_n exp(-u_kn - log D_n).
    const std::vector<double> sums =
        log_sums(u, bias_of(log_n, f), unsampled, std::vector<double>(unsampled.size(), 0.0));
    for (std::size_t i = 0; i < unsampled.size(); ++i) f(unsampled[i]) = -sums[i];
    gram = weights_gram(u, bias_of(log_n, f), counts, f);
  }
  // Asymptotic covariance of f (pymbar's svd-ew, Theta = V S (I - S V' diag(N) V S)^+ S V' for
  // W = U S V'): S and V from the eigendecomposition of the K x K matrix W^T W = V S^2 V',
  // never from W itself.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
  const Eigen::MatrixXd v = eig.eigenvectors();
  const Eigen::VectorXd s = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  // The overlap matrix W^T W diag(N).
  result.overlap = gram * counts.asDiagonal();
  Eigen::MatrixXd inner = Eigen::MatrixXd::Identity(k_states, k_states) -
                          s.asDiagonal() * v.transpose() * counts.asDiagonal() * v * s.asDiagonal();
  Eigen::JacobiSVD<Eigen::MatrixXd> inner_svd(inner, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd sv = inner_svd.singularValues();
  Eigen::VectorXd inv = Eigen::VectorXd::Zero(sv.size());
  for (Eigen::Index i = 0; i < sv.size(); ++i)
    if (sv(i) > 1e-10 * sv(0)) inv(i) = 1.0 / sv(i);
  const Eigen::MatrixXd pinv =
      inner_svd.matrixV() * inv.asDiagonal() * inner_svd.matrixU().transpose();
  result.covariance = v * s.asDiagonal() * pinv * s.asDiagonal() * v.transpose();
  result.log_z.resize(k_states);
  result.std_error.resize(k_states);
  for (Eigen::Index k = 0; k < k_states; ++k) {
    result.log_z[k] = f(0) - f(k);  // = -(f(k) - f(0)) exactly, +0 for the first state
    const double var =
        result.covariance(k, k) + result.covariance(0, 0) - 2 * result.covariance(0, k);
    result.std_error[k] = k == 0 ? 0.0 : std::sqrt(std::max(var, 0.0));
  }
  const std::vector<bool> linked = linked_to_first(result.overlap);
  const std::vector<bool> well_linked = linked_to_first(result.overlap, kGoodLink);
  for (Eigen::Index k = 0; k < k_states; ++k)
    if (linked[static_cast<std::size_t>(k)] && !well_linked[static_cast<std::size_t>(k)])
      result.poor_overlap = true;
  for (Eigen::Index k = 0; k < k_states; ++k) {
    if (linked[static_cast<std::size_t>(k)]) continue;
    result.disconnected.push_back(static_cast<std::size_t>(k));
    result.log_z[k] = result.std_error[k] = kNaN;
    result.covariance.row(k).setConstant(kNaN);
    result.covariance.col(k).setConstant(kNaN);
  }
  return result;
}

// Reduced energies are finite or +inf (a sample of probability 0 in that state: hard walls,
// restraints, bins); NaN and -inf are refused where they are. A state's N_k own samples must be
// finite in it, and every sample finite in some sampled state (else it came from none of them
// and its mixture density is 0). Read in storage order: `state_major` K x N rows, else
// column-major.
void check_energies(const double* u, std::size_t num_states, std::size_t num_samples,
                    bool state_major, std::span<const double> counts, const char* function,
                    const char* name) {
  std::vector<std::size_t> finite_in_row(num_states, 0);
  std::vector<char> reachable(num_samples, 0);
  const bool with_counts = counts.size() == num_states;
  const auto visit = [&](std::size_t k, std::size_t n, double v) {
    if (v < kInf) {
      if (!(v > -kInf))
        fail_argument(function, name,
                      fmt::format("reduced energies that are finite or +inf (probability 0), got "
                                  "{} at [{}, {}]",
                                  v, k, n));
      ++finite_in_row[k];
      if (with_counts && counts[k] > 0) reachable[n] = 1;
    } else if (std::isnan(v)) {
      fail_argument(
          function, name,
          fmt::format("reduced energies that are finite or +inf, got nan at [{}, {}]", k, n));
    }
  };
  if (state_major) {
    for (std::size_t k = 0; k < num_states; ++k)
      for (std::size_t n = 0; n < num_samples; ++n) visit(k, n, u[k * num_samples + n]);
  } else {
    for (std::size_t n = 0; n < num_samples; ++n)
      for (std::size_t k = 0; k < num_states; ++k) visit(k, n, u[n * num_states + k]);
  }
  if (!with_counts) return;  // solve() names the counts' fault
  for (std::size_t k = 0; k < num_states; ++k)
    if (static_cast<double>(finite_in_row[k]) < counts[k])
      fail_argument(function, name,
                    fmt::format("finite energies in state {} for its {} own samples, got {} "
                                "finite entries in row {}",
                                k, counts[k], finite_in_row[k], k));
  for (std::size_t n = 0; n < num_samples; ++n)
    if (!reachable[n])
      fail_argument(function, name,
                    fmt::format("every sample finite in some sampled state, got +inf in every "
                                "state with N_k > 0 at column {}",
                                n));
}

}  // namespace

MbarResult mbar(const Eigen::MatrixXd& u, std::span<const double> num_samples,
                const MbarOptions& options) {
  check_energies(u.data(), static_cast<std::size_t>(u.rows()), static_cast<std::size_t>(u.cols()),
                 false, num_samples, "logz::mbar", "u");
  return solve(
      Energies(u.data(), static_cast<std::size_t>(u.rows()), static_cast<std::size_t>(u.cols())),
      num_samples, options, "logz::mbar");
}

MbarResult mbar_state_major(std::span<const double> u_kn, std::size_t num_states,
                            std::span<const double> num_samples, const MbarOptions& options) {
  if (num_states == 0 || u_kn.size() % num_states != 0)
    fail_argument("logz::mbar_state_major", "u_kn",
                  "num_states rows of equal length (K x N values, K >= 1)");
  const std::size_t n = u_kn.size() / num_states;
  check_energies(u_kn.data(), num_states, n, true, num_samples, "logz::mbar_state_major", "u_kn");
  const MbarBlockReader rows = [&](std::size_t first, std::size_t count, double* block) {
    transpose_block(u_kn.data() + first, n, num_states, count, block);
  };
  return solve(Energies(num_states, n, rows), num_samples, options, "logz::mbar_state_major");
}

MbarResult mbar_streamed(std::size_t num_states, std::size_t num_samples_total,
                         const MbarBlockReader& read, std::span<const double> num_samples,
                         const MbarOptions& options) {
  if (num_states == 0 || num_samples_total == 0)
    fail_argument("logz::mbar_streamed", "num_states, num_samples_total",
                  "at least one state and one sample");
  return solve(Energies(num_states, num_samples_total, read), num_samples, options,
               "logz::mbar_streamed");
}

MbarResult mbar_linear_in_level(std::span<const double> levels, std::span<const double> energies,
                                std::span<const double> num_samples, const MbarOptions& options) {
  double top_level = 0.0, top_energy = 0.0;
  for (double t : levels) top_level = std::max(top_level, std::abs(t));
  for (double e : energies) top_energy = std::max(top_energy, std::abs(e));
  // NaN fails both comparisons; the largest product is the product of the largest factors.
  if (!(top_level < kInf) || !(top_energy < kInf) || !(top_level * top_energy < kInf))
    fail_argument("logz::mbar_linear_in_level", "levels, energies",
                  "finite reduced energies levels_k * energies_n");
  return solve(Energies(levels, energies), num_samples, options, "logz::mbar_linear_in_level");
}

LadderEstimates mbar_tempered(const TemperingStats& stats, std::span<const double> fractions,
                              const MbarOptions& options) {
  const std::size_t n = stats.sample_delta.size(), k_levels = stats.num_levels;
  if (n == 0)
    fail_argument("logz::mbar_tempered", "stats",
                  "recorded samples (TemperingOptions::record_samples = true)");
  std::vector<double> counts(k_levels, 0.0);
  for (std::size_t j = 0; j < n; ++j) counts[stats.sample_level[j]] += 1.0;
  const bool per_level = !stats.linear_in_t;
  MbarResult r;
  if (per_level) {
    if (stats.sample_energies.size() != n * k_levels)
      fail_argument("logz::mbar_tempered", "stats",
                    "every level's energy of every recorded sample");
    // sample_energies holds level after level for each sample: the K x N column-major matrix.
    for (double e : stats.sample_energies)
      if (!std::isfinite(e)) fail_argument("logz::mbar", "u", "finite reduced energies");
    r = solve(Energies(stats.sample_energies.data(), k_levels, n), counts, options, "logz::mbar");
  } else {
    // u_k(x_n) = -t_k Delta_n: linear in the level, no K x N matrix at all.
    if (fractions.size() < k_levels)
      fail_argument("logz::mbar_tempered", "fractions", "one per level");
    std::vector<double> levels(k_levels);
    for (std::size_t k = 0; k < k_levels; ++k) levels[k] = -fractions[k];
    r = mbar_linear_in_level(levels, stats.sample_delta, counts, options);
  }
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
  if (!r.disconnected.empty()) out.last.diagnostics.add_flag("disconnected");
  if (r.poor_overlap) out.last.diagnostics.add_flag("poor_overlap");
  return out;
}

}  // namespace logz
