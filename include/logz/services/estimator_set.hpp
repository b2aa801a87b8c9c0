// The estimators a user can name (in [estimators] methods or --methods) and the dispatch from
// those names to the pure estimator functions: one table of (name, directions needed, function).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

// Settings of the estimators that have any; defaults are those of `logz estimate` and [estimators].
struct EstimatorOptions {
  std::uint64_t seed = 1;               // histogram_posterior's Philox key ([run] seed, --seed)
  std::size_t posterior_draws = 2000;   // kept Gibbs sweeps of histogram_posterior, >= 2
  std::size_t posterior_burn_in = 200;  // discarded sweeps before them
  std::size_t histogram_bins = 0;       // 0: one support point per distinct work (= BAR)
};

// Every name: "ais", "raise", "bounds" (lower and upper), "bar", "cumulant" (cumulant_forward,
// cumulant_reverse and the two-sided cumulant, as the directions allow), "histogram",
// "histogram_posterior", "crossing" (method "crooks_crossing").
const std::vector<std::string>& estimator_names();

// The names run when none are given (those the directions allow): "ais", "raise", "bounds",
// "bar". The others are asked for by name: histogram_posterior costs (N_f + N_r) x sweeps
// Gamma draws, and the cumulant and crossing estimates are approximations.
const std::vector<std::string>& default_estimator_names();

// What each method needs: forward works, reverse works, both, or either. Returns an empty string
// when the methods can run on what is given, else why not. Throws InvalidArgument on an unknown
// name.
std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse);

// Runs the methods in the order given (bounds gives two estimates, cumulant up to three).
std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     const std::vector<double>* forward_works,
                                     const std::vector<double>* reverse_works,
                                     const EstimatorOptions& options = {});

}  // namespace logz
