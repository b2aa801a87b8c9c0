// MBAR (Shirts & Chodera 2008): the maximum-likelihood free energies of K
// states from samples pooled over them. With reduced energies u_k(x_n) and N_k
// samples from state k, f_k = -log Z_k solves
//   f_k = -log sum_n exp(-u_k(x_n)) / sum_l N_l exp(f_l - u_l(x_n)),
// found by Newton's method on the convex objective
//   F(f) = sum_n log sum_l N_l exp(f_l - u_l(x_n)) - sum_k N_k f_k
// with a backtracking line search, all sums in log space; warm-startable. Its
// asymptotic covariance is pymbar's "svd-ew" formula
//   Theta = V S (I - S V' diag(N) V S)^+ S V',   W = U S V' the weights (N x K),
// with S and V from the K x K matrix W'W = V S^2 V'. Every sum over samples (objective,
// gradient, Hessian, W'W) is taken a block of samples at a time with one vectorised exp per
// u_k(x_n) (softmax_columns.hpp): memory beyond u is O(K^2 + K * block), never K x N.
// Results are log(Z_k / Z_1) (relative to the first state) and their standard errors. A state
// with no path of overlapping states to the first one (linked_to_first in mbar.cpp: no samples
// that carry weight under both states of a link) has no estimate: its log Z and error are NaN
// and it is listed in MbarResult::disconnected. Reduced energies may be +inf (probability 0 in
// that state: hard walls, restraints, bins), as long as each state's own samples are finite in it;
// a state where every sample is +inf has Z = 0 and no estimate (disconnected).
#pragma once

#include <Eigen/Core>
#include <functional>
#include <span>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/estimators/rts.hpp"

namespace logz {

struct MbarOptions {
  double tolerance = 1e-10;  // on max_k |sum_n W_nk - 1| (relative gradient)
  int max_iterations = 50;
  std::vector<double> initial_log_z;  // warm start: log(Z_k / Z_1), finite, or empty
  StopToken stop;  // the run's stop request: Stopped within an iteration once requested
};

struct MbarResult {
  std::vector<double> log_z;      // log(Z_k / Z_1); NaN for a disconnected state
  std::vector<double> std_error;  // of log(Z_k / Z_1); NaN for a disconnected state
  Eigen::MatrixXd
      covariance;           // of f = -log Z (K x K); NaN in a disconnected state's row and column
  Eigen::MatrixXd overlap;  // O = W^T W diag(N_k) (K x K), as pymbar's computeOverlap
  std::vector<std::size_t>
      disconnected;  // states with no overlap path to state 0 (flag "disconnected")
  // Some connected state is linked to state 0 only through pairs with O_kl + O_lk < 0.06
  // (flag "poor_overlap"): its error is estimated but the asymptotic formula may not hold yet.
  bool poor_overlap = false;
  int iterations = 0;
  bool converged = false;
};

// u: K x N reduced energies (u(k, n) = u_k(x_n)); num_samples: N_k per state (sum = N).
MbarResult mbar(const Eigen::MatrixXd& u, std::span<const double> num_samples,
                const MbarOptions& options = {});

// The same on u stored state by state: u_kn holds num_states rows of N values (row-major K x N,
// pymbar's u_kn as a C-order numpy array), read in place a block of samples at a time, so that
// nothing of size K x N is copied. Equal to mbar() on the same matrix, to the bit.
MbarResult mbar_state_major(std::span<const double> u_kn, std::size_t num_states,
                            std::span<const double> num_samples, const MbarOptions& options = {});

// Fills `block` (num_states x count, column-major: sample by sample) with u_k(x_n) for samples
// first .. first + count - 1. Called with consecutive blocks, pass after pass over the samples.
using MbarBlockReader = std::function<void(std::size_t first, std::size_t count, double* block)>;

// MBAR on energies that `read` supplies a block at a time (io::NpyColumnReader: u_kn from a
// file larger than memory): nothing of size K x N is held. The reader checks its values; equal
// to mbar() on the same matrix, to the bit.
MbarResult mbar_streamed(std::size_t num_states, std::size_t num_samples_total,
                         const MbarBlockReader& read, std::span<const double> num_samples,
                         const MbarOptions& options = {});

// MBAR for reduced energies linear in the level, u_k(x_n) = levels[k] * energies[n] (simulated
// tempering's -t_k Delta_n; harmonic states' c_k x_n^2 / 2): what mbar() gives on that K x N
// matrix, computed without ever forming it, in O(N + K^2) memory (the energies themselves and
// K x K matrices). num_samples and options as mbar().
MbarResult mbar_linear_in_level(std::span<const double> levels, std::span<const double> energies,
                                std::span<const double> num_samples,
                                const MbarOptions& options = {});

// MBAR on recorded tempered samples: u_k(x_n) = -t_k Delta_n, N_k = visits of
// level k (TemperingOptions::record_samples must have been on): mbar_linear_in_level, no K x N
// matrix; with per-level energies (sample_energies), mbar() on them in place, without a copy.
LadderEstimates mbar_tempered(const TemperingStats& stats, std::span<const double> fractions,
                              const MbarOptions& options = {});

}  // namespace logz
