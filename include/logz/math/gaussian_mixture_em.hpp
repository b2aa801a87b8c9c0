// A Gaussian mixture fitted to weighted points by expectation-maximisation, its number of
// components chosen by the Bayesian information criterion among those the points can carry:
// the shape of a posterior that one Gaussian fits badly (a curved ridge, a ring) as an SMC run's
// particles hold it, so that the evidence's refining run can start from a base close to it
// (smc/fitted_base.hpp). Close means few temperatures and a small error bar: on a 2-d banana
// the whole run's SE^2 x evaluations fell from 308 to 78, on the 2-d shells from 721 to 181
// (docs/evidence.md, "A mixture for the shape").
//
// The fit works in the points' whitened coordinates (their weighted mean and covariance), so
// that its start (a farthest-first choice of centres, then Lloyd's iterations) and its floor on
// the components' variances do not depend on the units of the coordinates. Deterministic.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace logz {

struct GaussianMixtureEmOptions {
  int max_components = 16;
  // Each component's free parameters (d + d (d + 1) / 2, and one mass) times this many points
  // at least, counted as `effective_points` (below): fewer components where the points are few.
  double points_per_parameter = 5.0;
  int max_iterations = 100;
  // EM stops once the weighted mean log density rises by less than this.
  double tolerance = 1e-4;
  // Every component's variances at least this, in whitened units (the points' own spread is 1).
  double variance_floor = 1e-4;
};

struct GaussianMixtureFit {
  std::vector<double> weights;               // k, summing to 1
  std::vector<Eigen::VectorXd> means;        // k of d
  std::vector<Eigen::MatrixXd> covariances;  // k of d x d, positive definite
  double mean_log_density = 0.0;             // sum_i w_i log q(x_i), w normalised
  int size() const { return static_cast<int>(weights.size()); }
};

// A mixture of exactly k components (fewer where a component's weight vanishes during the
// iterations) fitted to the columns of X (d x n) with weights w (n, >= 0, not all 0).
GaussianMixtureFit fit_gaussian_mixture_em(const Eigen::MatrixXd& X, const Eigen::VectorXd& w,
                                           int k, const GaussianMixtureEmOptions& options = {});

// The fit of 1, 2, ... components (up to options.max_components and the points' carrying
// capacity, and until two sizes in a row fit no better) with the least BIC = -2 n L + p log n, L
// the mean log density, p the free parameters and n = effective_points (an SMC run's resampled
// particles repeat: fewer than the columns). One component is the weighted mean and covariance.
GaussianMixtureFit fit_gaussian_mixture_bic(const Eigen::MatrixXd& X, const Eigen::VectorXd& w,
                                            double effective_points,
                                            const GaussianMixtureEmOptions& options = {});

}  // namespace logz
