#include "logz/services/estimator_set.hpp"

#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"

namespace logz {

namespace {

struct Needs {
  bool forward, reverse;
};

Needs needs_of(const std::string& m) {
  if (m == "ais") return {true, false};
  if (m == "raise") return {false, true};
  if (m == "bounds" || m == "bar") return {true, true};
  fail_argument("logz::run_estimators", "methods", "names from ais, raise, bounds, bar; got \"" + m + "\"");
}

}  // namespace

const std::vector<std::string>& estimator_names() {
  static const std::vector<std::string> names = {"ais", "raise", "bounds", "bar"};
  return names;
}

std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse) {
  for (const auto& m : methods) {
    const Needs n = needs_of(m);
    if ((n.forward && !has_forward) || (n.reverse && !has_reverse)) {
      const char* what = n.forward && n.reverse ? "forward and reverse works"
                         : n.forward            ? "forward works"
                                                : "reverse works";
      return "method \"" + m + "\" needs " + what;
    }
  }
  return {};
}

std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     const std::vector<double>* forward_works,
                                     const std::vector<double>* reverse_works) {
  const std::string missing = estimator_requirements(methods, forward_works, reverse_works);
  if (!missing.empty()) fail_argument("logz::run_estimators", "methods", missing);
  std::vector<Estimate> out;
  for (const auto& m : methods) {
    if (m == "ais") {
      out.push_back(ais(*forward_works));
    } else if (m == "raise") {
      out.push_back(raise(*reverse_works));
    } else if (m == "bounds") {
      // Only the bounds that the given directions allow.
      out.push_back(lower_bound(*forward_works));
      out.push_back(upper_bound(*reverse_works));
    } else if (m == "bar") {
      out.push_back(bar(*forward_works, *reverse_works));
    }
  }
  return out;
}

}  // namespace logz
