// A preconditioner for the moves of SMC, as a change of coordinates: x = m + L z, with m the
// particles' weighted mean and L a square root of their weighted covariance at the current
// temperature: its lower Cholesky factor (dense) or the standard deviations on the diagonal
// (diagonal). In z the particles have unit spread (and, dense, no correlation), so one step
// size suits every direction, and the kernels stay as they are: they move z on WhitenedTarget.
// `automatic` is dense where the particles' correlations are larger than their own sampling
// noise and diagonal where they are not (decided per chunk, in `without`): a dense factor made
// from N particles in d dimensions has a noise of its own (whitened variances spread over
// (1 +- sqrt(d / N))^2, Marchenko-Pastur) and costs two O(d^2) products per particle and
// gradient, where the diagonal costs O(d).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <span>

#include "logz/core/enum_names.hpp"

namespace logz {

LOGZ_NAMED_ENUM(SmcPreconditioner, dense, diagonal, none, automatic);

struct Whitening {
  Eigen::VectorXd mean;    // m
  Eigen::VectorXd scale;   // the diagonal of L (all of it when not dense)
  Eigen::MatrixXd factor;  // L, lower triangular, when dense; empty otherwise

  bool dense() const { return factor.size() > 0; }
  static Whitening identity(int dim);
  // From the columns of X with normalised weights (one per column). A diagonal coordinate
  // whose spread is 0 or not finite keeps `previous`'s scale; a dense covariance that is not
  // positive definite (fewer distinct particles than dimensions) falls back to the diagonal.
  static Whitening of_particles(const Eigen::MatrixXd& X, std::span<const double> weights,
                                SmcPreconditioner kind, const Whitening& previous);

  void to_whitened(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::MatrixXd& Z) const;
  void to_original(const Eigen::Ref<const Eigen::MatrixXd>& Z, Eigen::MatrixXd& X) const;
  // dU/dz = L^T dU/dx, in place.
  void gradient_to_whitened(Eigen::MatrixXd& G) const;
  // sum over the columns' weighted spread in z: tr(L^-1 Cov L^-T).
  double whitened_total_variance(const Eigen::MatrixXd& X, std::span<const double> weights) const;

  // The whitening of the particles without those in `excluded` (indices into X's columns): the
  // weighted mean and covariance of the others, from the sums of all (`of_particles`, which keeps
  // them) less the sums of the excluded. SMC moves a chunk of particles with the whitening of
  // the particles outside it and their copies: a kernel tuned on the particle it moves is not
  // invariant (it favours the particle's own direction, by about d / N of the variance there
  // with a dense covariance). Falls back to *this where the rest is not positive definite.
  // Made `automatic`: diagonal where the others' correlations are within their noise
  // (correlations_within_noise), dense otherwise.
  Whitening without(const Eigen::MatrixXd& X, std::span<const double> weights,
                    std::span<const std::size_t> excluded) const;

  // The weighted covariance (dense) or variances (diagonal) about `mean` of the particles it was
  // made from, for `without`.
  Eigen::MatrixXd covariance;
  Eigen::VectorXd variance;

  // Made by `automatic`: `without` may give the diagonal whitening of the particles it keeps.
  bool automatic = false;
  // The number of independent particles the covariance rests on (1 / sum of squared weights of
  // the groups of copies: resampling's copies count once), set by the caller for `automatic`;
  // 0: unknown, and `without` stays dense.
  double effective_count = 0.0;
};

// True when the correlations of the covariance `cov`, estimated from `effective_count`
// independent particles, are no larger than such an estimate's own noise where there are none:
// the sum of the squared correlations over the d (d - 1) / 2 pairs at most 1.2 times its
// expectation without correlation (pairs / n) plus 3 of its standard deviations (sqrt(2 pairs)
// / n), and no correlation above 0.3 in magnitude (one pair at 0.3 puts the condition number
// of the correlation matrix at 1.9, the noise of a dense factor at d / n = 0.03 at 2.0).
bool correlations_within_noise(const Eigen::MatrixXd& cov, double effective_count);

}  // namespace logz
