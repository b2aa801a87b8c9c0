// A Gaussian fitted to a finished SMC run's particles at t = 1: the start of a second run that
// is close to the target (SMC on a target known only by its energy, [smc] pilot_base; the
// evidence's refining run). The base is fixed before the second run, whose estimate therefore
// keeps its unbiasedness and its error bar; the first run's estimate is a second, independent
// one, and run_disagrees_with_pilot says when the two differ by more than their errors allow.
#pragma once

#include <optional>

#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/models/truncated_gaussian_base.hpp"
#include "logz/smc/smc_options.hpp"

namespace logz {

// The particles' weighted mean and covariance (1 / (1 - sum W^2) normalisation, every variance
// at least 1e-12 of the mean one), the standard deviations times `widening` (>= 1); the
// diagonal alone where the covariance is not positive definite.
GaussianBase fit_gaussian_base(const SmcResult& run, double widening);

// Where the particles form well separated clusters (math/separated_clusters.hpp: the modes of
// a multimodal target), a mixture with one Gaussian per cluster: its mean the cluster's
// weighted mean, one covariance for all (the particles' weighted covariance about their own
// cluster's mean, floored and widened as above), its mass the cluster's weight, at least
// `min_mass` (then normalised: Z = 1). One Gaussian over modes far apart reaches a small mode
// only in its tail: on a three-mode 100-d mixture (masses 0.8, 0.15, 0.05, sd 0.1, 5 apart) the
// run from it missed most of the 0.15 mode's mass once in 8 seeds, 4.4 SEs low, unflagged.
// nullopt where the particles form one cluster.
std::optional<GaussianMixture> fit_gaussian_mixture_base(const SmcResult& run, double widening,
                                                         double min_mass = 0.02);

// Whether a shape mixture carries the one Gaussian of fit_gaussian_base as a component of
// mass 0.2 too (defensive importance sampling): for a target with tails (no box). On a Student
// t posterior at d = 3 the run from the fitted components alone read its error bar 20% low
// (RMS z 1.21, coverage 0.90, 40 seeds); with the defensive component 0.99 and 0.95. Inside a
// box there are no tails to defend, and on the shells at d = 2 the component cost 1.6 times the
// evaluations for the same SE.
enum class ShapeTails { defended, bounded };

// Where one Gaussian fits the particles' shape badly (a curved ridge, a ring) and they are
// enough to say so, a mixture of Gaussians fitted to them by EM (math/gaussian_mixture_em.hpp:
// the number of components by BIC, counting the weights' effective sample size times the
// fraction of distinct particles as the points; at most 16, each component's parameters 5
// times over), each covariance widened as above, each mass at least `min_mass` (then
// normalised: Z = 1), and the defensive component where `tails` asks. Only at d <= 3: at d = 5
// the components were fitted loosely enough that on a Student t posterior the run from them
// read its error bar about 20% low (RMS z 1.2, coverage 0.90, 30 seeds). nullopt where one
// Gaussian is the fit, or d > 3.
std::optional<GaussianMixture> fit_shape_mixture_base(const SmcResult& run, double widening,
                                                      ShapeTails tails, double min_mass = 0.02);

// The same moments, each coordinate on its own (a diagonal covariance), the normals truncated
// to the box [low, high] (ends may be infinite; as a Prior's lower_bounds and upper_bounds):
// the evidence's refining run where the prior has a box.
TruncatedGaussianBase fit_truncated_gaussian_base(const SmcResult& run, double widening,
                                                  const Eigen::VectorXd& low,
                                                  const Eigen::VectorXd& high);

// Whether the run from a base fitted to a pilot's particles and the pilot's own estimate differ
// by more than their errors allow, with m = 4 sqrt(se_pilot^2 + se_run^2) + 0.05 (two unbiased
// estimates with right error bars differ by more than 4 combined SEs in 6 of 10^5 pairs; the
// 0.05 allows for the log's bias, -SE^2 / 2 in each): the run below the pilot by more than m
// (mass the pilot saw and the run lost), or above it by more than 2 m, or either not finite.
// A pilot of a few hundred particles from an arbitrary base reads low by more than its SE shows:
// on issue 45's d = 50 regression as a logz.Target (400 particles from N(0, I)), 12 seeds read
// 0.47 low on average with a spread of 0.65 against SEs of 0.21 - 0.51, while the runs from its
// fitted bases were within 0.09 of the exact value; at m on both sides 2 of the 12 were flagged.
bool run_disagrees_with_pilot(double pilot, double se_pilot, double run, double se_run);

}  // namespace logz
