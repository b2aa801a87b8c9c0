// The estimators a user can name (in [estimators] methods or --methods) and
// the dispatch from those names to the pure estimator functions.
#pragma once

#include <string>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

// "ais", "raise", "bounds" (lower and upper), "bar".
const std::vector<std::string>& estimator_names();

// What each method needs: forward works, reverse works or both. Returns an
// empty string when the methods can run on what is given, else why not.
std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse);

// Runs the methods in the order given (bounds gives two estimates).
std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     const std::vector<double>* forward_works,
                                     const std::vector<double>* reverse_works);

}  // namespace logz
