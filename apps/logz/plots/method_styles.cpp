#include "method_styles.hpp"

#include <algorithm>
#include <iterator>

#include "logz/services/registry.hpp"

namespace logz::plots {

namespace {

// The estimator registry's estimates, in its order of presentation.
std::size_t method_rank(const std::string& m) {
  const auto& outputs = estimate_outputs();
  return static_cast<std::size_t>(
      std::find_if(outputs.begin(), outputs.end(),
                   [&](const EstimateOutput& o) { return o.method == m; }) -
      outputs.begin());
}

}  // namespace

std::vector<std::string> ordered_methods(std::vector<std::string> methods) {
  std::stable_sort(methods.begin(), methods.end(), [](const std::string& a, const std::string& b) {
    return method_rank(a) != method_rank(b) ? method_rank(a) < method_rank(b) : a < b;
  });
  return methods;
}

std::string method_label(const std::string& m) {
  const std::size_t rank = method_rank(m);
  if (rank < estimate_outputs().size()) return estimate_outputs()[rank].label;
  std::string s = m;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

MethodStyle method_style(const std::string& method, std::size_t i) {
  const std::size_t rank = method_rank(method);
  if (rank < estimate_outputs().size()) {
    const EstimateOutput& o = estimate_outputs()[rank];
    return {o.color.c_str(), o.dash, o.point};
  }
  // A method the registry does not know (an older result file): styles of its own by its place.
  static const MethodStyle others[] = {{"#000000", 1, 7}, {"#555555", 2, 5}};
  return others[i % std::size(others)];
}

}  // namespace logz::plots
