// The Crooks crossing (Habeck 2017, eq. 8; Crooks 1999): the density of the forward works p_f(w)
// and the density of the reverse works with the forward sign, w = -W_r, satisfy
// p_f(w) / p_r(-w) = exp(w + log Z), so they cross exactly at w = -log Z (units of kT, conventions
// of jarzynski.hpp). Both densities are Gaussian kernel density estimates with one common
// bandwidth, and log Z = -w_cross is reported beside the other estimators as a diagnostic.
#pragma once

#include <span>

#include "logz/core/estimate.hpp"

namespace logz {

struct CrooksCrossingOptions {
  // Kernel bandwidth; 0 (default): the smaller of Silverman's rule 0.9 min(sd, IQR / 1.34) n^-1/5
  // for the two samples. A common bandwidth leaves the crossing of two equal-shape densities
  // (Gaussian works obeying Crooks) where it is: smoothing widens both alike.
  double bandwidth = 0.0;
  int grid_points = 400;  // scan for sign changes of log p_f - log p_r, >= 8
};

// Method "crooks_crossing": log_z = -w_cross where d(w) = log p_f(w) - log p_r(-w) changes sign;
// the scan covers the overlap of the two samples' ranges (+- 3 bandwidths) and, if d changes sign
// more than once, takes the change where the smaller density is largest; bisection refines it.
// std_error ("kde_delta"): delta method, sqrt(Var log p_f + Var log p_r) / |d'(w_cross)| with the
// kernel estimator's Var log p(w) ~ 1 / (2 sqrt(pi) n h p(w)); it ignores smoothing bias.
// diagnostics: values "w_cross", "bandwidth", "slope" (d'(w_cross), 1 by Crooks' relation),
// "forward_near" / "reverse_near" (works within 2 bandwidths of w_cross); flags "poor_overlap"
// (fewer than 10 near on a side), "no_overlap" (no crossing in the overlap: log_z and std_error
// NaN), "zero_variance" (a sample without spread: NaN). Throws InvalidArgument on empty or
// non-finite works or bad options.
Estimate crooks_crossing(std::span<const double> forward_works,
                         std::span<const double> reverse_works,
                         const CrooksCrossingOptions& options = {});

}  // namespace logz
