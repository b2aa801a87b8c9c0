#include "method_styles.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace logz::plots {

namespace {

const std::vector<std::string>& known_methods() {
  static const std::vector<std::string> order = {
      "ais",      "raise",           "bar",      "lower_bound", "upper_bound",       "histogram",
      "cumulant", "cumulant_forward", "cumulant_reverse", "histogram_posterior", "crooks_crossing"};
  return order;
}

std::size_t method_rank(const std::string& m) {
  const auto& order = known_methods();
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), m) - order.begin());
}

}  // namespace

std::vector<std::string> ordered_methods(std::vector<std::string> methods) {
  std::stable_sort(methods.begin(), methods.end(), [](const std::string& a, const std::string& b) {
    return method_rank(a) != method_rank(b) ? method_rank(a) < method_rank(b) : a < b;
  });
  return methods;
}

std::string method_label(const std::string& m) {
  static const std::map<std::string, std::string> names = {{"ais", "AIS"},
                                                           {"raise", "RAISE"},
                                                           {"bar", "BAR"},
                                                           {"lower_bound", "lower bound"},
                                                           {"upper_bound", "upper bound"},
                                                           {"jarzynski", "Jarzynski"}};
  const auto it = names.find(m);
  if (it != names.end()) return it->second;
  std::string s = m;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

MethodStyle method_style(const std::string& method, std::size_t i) {
  // One style per known method (same order), then two for any others.
  static const MethodStyle styles[] = {
      {"#2ca02c", 2, 7},  {"#ff7f0e", 3, 5},  {"#9467bd", 4, 9},  {"#8c564b", 5, 11},
      {"#e377c2", 2, 13}, {"#d62728", 3, 15}, {"#1f77b4", 4, 3},  {"#17becf", 5, 1},
      {"#bcbd22", 2, 2},  {"#7f7f7f", 3, 6},  {"#393b79", 4, 8},  {"#ad494a", 5, 10},
      {"#637939", 2, 12}};
  const std::size_t rank = method_rank(method), num_known = known_methods().size();
  if (rank < num_known) return styles[rank];
  return styles[num_known + i % (std::size(styles) - num_known)];
}

}  // namespace logz::plots
