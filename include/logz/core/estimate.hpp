// The result of every estimator: log Z with a standard error, how that error
// was obtained, and the diagnostics that tell whether to trust it.
//
// Sign convention (stated once, used everywhere): energy U = -log of the
// unnormalised density; estimators return the evidence log(Z_1 / Z_0) of the
// target relative to the base. Front ends add the base's exact log Z_0 to
// report the target's absolute log Z.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace logz {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Diagnostics {
  double ess = kNaN;               // Kish effective sample size of the importance weights
  double overlap = kNaN;           // forward/reverse overlap in [0, 1] (1 = identical)
  int iterations = 0;              // iterations of an iterative solver (0 if none)
  bool converged = true;           // false when an iterative solver did not converge
  std::vector<std::string> flags;  // e.g. "low_ess", "poor_overlap"
  std::vector<std::pair<std::string, double>> values;  // further named numbers

  bool has_flag(const std::string& flag) const;
  void add_flag(std::string flag);
};

struct Estimate {
  std::string method;       // "ais", "raise", "lower_bound", "upper_bound", "bar", ...
  double log_z = kNaN;      // log(Z_1 / Z_0)
  double std_error = kNaN;  // NaN (with a flag) when it cannot be estimated, never 0
  std::string se_method;    // "delta", "bar_asymptotic", "bootstrap", "sample_mean", ...
  Diagnostics diagnostics;
};

}  // namespace logz
