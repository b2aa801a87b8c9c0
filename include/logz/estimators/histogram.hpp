// The histogram (density-of-states, WHAM) estimator of Habeck (2017), section 5.3, and its
// Bayesian version, a Gibbs sampler for the posterior of log Z. Works in units of kT with the
// conventions of jarzynski.hpp. Reverse works are expressed as forward works w = -W_r; by Crooks'
// relation they have density p_f(w) exp(-w) / Z, so forward and reverse runs are two "ensembles"
// (inverse temperatures 0 and 1) of one unknown density p_f. A non-parametric p_f = sum_b pi_b
// [w in bin b] (piecewise constant, or one point per distinct work value) is fitted to both by
// maximum likelihood, and log Z = log sum_b pi_b c_b with c_b the bin average of exp(-w)
// (Jarzynski's equality under the fitted p_f). Derivation: docs/estimators.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/random/default_seed.hpp"

namespace logz {

struct HistogramOptions {
  // 0 (default): one support point per distinct work value, as the author's `paths` package;
  // the estimate is then BAR's (the same equation, solved by the same steps). N > 0: N
  // equal-width bins over the pooled range of W_f and -W_r, with p_f constant inside a bin.
  std::size_t bins = 0;
  double tolerance = 1e-12;  // absolute tolerance on log Z (nats), > 0
  int max_iterations = 200;  // safeguarded Newton steps, >= 1
  // Unbinned: also fit and return the work distribution (and report "num_support"). Its points
  // are the distinct works, so this sorts them all; the estimate itself needs only the works'
  // extremes and is the same either way. Binned, the distribution is always returned (the
  // estimate is made from it).
  bool distribution = false;
};

// The fitted forward work distribution, for plots: occupied support points in ascending order.
// Empty for an unbinned estimate unless HistogramOptions::distribution.
struct WorkDistribution {
  std::vector<double> support;      // distinct works, or centres of occupied bins (forward sign)
  std::vector<double> log_weights;  // log pi_b, normalised (log-sum-exp 0): p_f on the support
  std::vector<double> log_c;        // log of the bin average of exp(-w) (-w when unbinned)
  std::vector<std::size_t> forward_counts, reverse_counts;  // W_f and -W_r in each point
  double bin_width = 0.0;                                   // 0 when unbinned
};

struct HistogramResult {
  Estimate estimate;
  WorkDistribution distribution;
};

// Method "histogram". Solves the self-consistent (WHAM) equations
//   pi_b = n_b / (N_f + N_r c_b / Z),  Z = sum_b pi_b c_b
// (n_b = forward + reverse counts of point b), which reduce to one increasing equation in log Z,
// sum_b n_b / (N_f + N_r c_b / Z) = 1: Bennett's equation for the works -log c_b weighted by the
// points' counts, solved by bar()'s safeguarded Newton steps (detail::solve_bennett). Unbinned,
// the points are sorted by a radix sort in linear time. std_error ("bar_asymptotic"): BAR's
// asymptotic formula (bar.hpp) for works replaced by their points' -log c_b, i.e. exactly BAR's
// error when unbinned. diagnostics: iterations,
// converged, overlap (as bar), values "num_support" (when the distribution is fitted) and
// "delta_f"; flags "not_converged",
// "poor_overlap" (overlap < 0.03), "too_few_samples" (N_f or N_r < 2), "zero_variance" (one
// support point). Throws InvalidArgument on empty or non-finite works or bad options.
HistogramResult histogram(std::span<const double> forward_works,
                          std::span<const double> reverse_works,
                          const HistogramOptions& options = {});

struct HistogramPosteriorOptions {
  HistogramOptions histogram;    // the support (binning) of p_f; the distribution is always fitted
  std::size_t num_draws = 2000;  // kept Gibbs sweeps, >= 2
  std::size_t burn_in = 200;     // discarded sweeps before them
  std::uint64_t seed = kDefaultSeed;  // Philox key; streams (seed, 0, Purpose::posterior, sweep)
  double prior_count = 0.0;           // Dirichlet(prior_count) on the occupied points, >= 0
  StopToken stop;  // the caller's stop request (core/stop_request.hpp): Stopped within a sweep
};

struct HistogramPosteriorResult {
  Estimate estimate;
  std::vector<double> draws;      // log Z of each kept sweep, in order
  WorkDistribution distribution;  // log_weights: log of the posterior mean of pi_b
};

// Method "histogram_posterior": the posterior of log Z under the histogram model with a
// Dirichlet prior on pi, sampled by a two-block Gibbs sampler with unnormalised weights g_b
// (pi = g / sum g) and one latent rate lambda for the reverse normaliser:
//   g_b | lambda ~ Gamma(n_b + prior_count, rate N_f + lambda c_b),
//   lambda | g   ~ Gamma(N_r, rate sum_b g_b c_b),     log Z = log sum g c - log sum g,
// whose pi-marginal is exactly the posterior (docs/estimators.md). log_z is the posterior mean,
// std_error the posterior sd (se_method "posterior_sd"); values "ci95_low"/"ci95_high" (2.5%/97.5%
// quantiles), "posterior_ess" (Geyer's initial monotone sequence), "num_draws", "burn_in";
// iterations = sweeps; flag "low_posterior_ess" when ESS < 100, plus the flags of histogram().
// Same seed, same draws. Throws InvalidArgument on bad works or options.
HistogramPosteriorResult histogram_posterior(std::span<const double> forward_works,
                                             std::span<const double> reverse_works,
                                             const HistogramPosteriorOptions& options = {});

}  // namespace logz
