// A Gaussian fitted to a finished SMC run's particles at t = 1: the start of a second run that
// is close to the target (SMC on a target known only by its energy, [smc] pilot_base; the
// evidence's refining run). The base is fixed before the second run, whose estimate therefore
// keeps its unbiasedness and its error bar; the first run's estimate is a second, independent
// one, and two_estimates_disagree says when the two differ by more than their errors allow.
#pragma once

#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/truncated_gaussian_base.hpp"
#include "logz/smc/smc_options.hpp"

namespace logz {

// The particles' weighted mean and covariance (1 / (1 - sum W^2) normalisation, every variance
// at least 1e-12 of the mean one), the standard deviations times `widening` (>= 1); the
// diagonal alone where the covariance is not positive definite.
GaussianBase fit_gaussian_base(const SmcResult& run, double widening);

// The same moments, each coordinate on its own (a diagonal covariance), the normals truncated
// to the box [low, high] (ends may be infinite; as a Prior's lower_bounds and upper_bounds):
// the evidence's refining run where the prior has a box.
TruncatedGaussianBase fit_truncated_gaussian_base(const SmcResult& run, double widening,
                                                  const Eigen::VectorXd& low,
                                                  const Eigen::VectorXd& high);

// |a - b| > 4 sqrt(se_a^2 + se_b^2) + 0.05, or either is not finite: two unbiased estimates with
// right error bars differ by more than 4 combined SEs in 6 of 10^5 pairs; the 0.05 allows for
// the log's bias, -SE^2 / 2 in each.
bool two_estimates_disagree(double a, double se_a, double b, double se_b);

}  // namespace logz
