// How estimators (and the two directions) are presented in every plot: a fixed order, a readable
// label and a style that a known estimator keeps across plots (AIS is always green).
#pragma once

#include <string>
#include <vector>

namespace logz::plots {

// The two directions of annealing, in every plot.
inline constexpr const char* kForwardColor = "#1f77b4";
inline constexpr const char* kReverseColor = "#d62728";

// The known estimators in their order of presentation, then any others by name.
std::vector<std::string> ordered_methods(std::vector<std::string> methods);

// "ais" -> "AIS", "lower_bound" -> "lower bound"; another name with its _ as spaces.
std::string method_label(const std::string& method);

struct MethodStyle {
  const char* color;
  int dash;   // gnuplot dashtype
  int point;  // gnuplot pointtype
};

// A known method's own style; another takes one of the rest by its place `i` among the methods
// shown.
MethodStyle method_style(const std::string& method, std::size_t i);

}  // namespace logz::plots
