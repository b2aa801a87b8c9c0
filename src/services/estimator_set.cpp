#include "logz/services/estimator_set.hpp"

#include <functional>

#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/jarzynski.hpp"

namespace logz {

namespace {

enum class Needs { forward, reverse, both, either };

using Works = const std::vector<double>*;
using Runner = std::function<void(Works, Works, const EstimatorOptions&, std::vector<Estimate>&)>;

struct Entry {
  const char* name;
  Needs needs;
  Runner run;  // works of a direction it does not need may be null
};

HistogramOptions histogram_options(const EstimatorOptions& o) {
  HistogramOptions h;
  h.bins = o.histogram_bins;
  return h;
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"ais", Needs::forward,
       [](Works f, Works, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(ais(*f));
       }},
      {"raise", Needs::reverse,
       [](Works, Works r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(raise(*r));
       }},
      {"bounds", Needs::both,
       [](Works f, Works r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(lower_bound(*f));
         out.push_back(upper_bound(*r));
       }},
      {"bar", Needs::both,
       [](Works f, Works r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(bar(*f, *r));
       }},
      {"cumulant", Needs::either,
       [](Works f, Works r, const EstimatorOptions&, std::vector<Estimate>& out) {
         if (f) out.push_back(cumulant_forward(*f));
         if (r) out.push_back(cumulant_reverse(*r));
         if (f && r) out.push_back(cumulant(*f, *r));
       }},
      {"histogram", Needs::both,
       [](Works f, Works r, const EstimatorOptions& o, std::vector<Estimate>& out) {
         out.push_back(histogram(*f, *r, histogram_options(o)).estimate);
       }},
      {"histogram_posterior", Needs::both,
       [](Works f, Works r, const EstimatorOptions& o, std::vector<Estimate>& out) {
         HistogramPosteriorOptions p;
         p.histogram = histogram_options(o);
         p.num_draws = o.posterior_draws;
         p.burn_in = o.posterior_burn_in;
         p.seed = o.seed;
         out.push_back(histogram_posterior(*f, *r, p).estimate);
       }},
      {"crossing", Needs::both,
       [](Works f, Works r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(crooks_crossing(*f, *r));
       }},
  };
  return entries;
}

const Entry& entry(const std::string& name) {
  for (const auto& e : table())
    if (name == e.name) return e;
  std::string names;
  for (const auto& e : table()) names += std::string(names.empty() ? "" : ", ") + e.name;
  fail_argument("logz::run_estimators", "methods",
                "names from " + names + "; got \"" + name + "\"");
}

}  // namespace

const std::vector<std::string>& estimator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& e : table()) n.emplace_back(e.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& default_estimator_names() {
  static const std::vector<std::string> names = {"ais", "raise", "bounds", "bar"};
  return names;
}

std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse) {
  for (const auto& m : methods) {
    const Needs n = entry(m).needs;
    const bool ok = n == Needs::forward   ? has_forward
                    : n == Needs::reverse ? has_reverse
                    : n == Needs::both    ? has_forward && has_reverse
                                          : has_forward || has_reverse;
    if (!ok) {
      const char* what = n == Needs::both      ? "forward and reverse works"
                         : n == Needs::forward ? "forward works"
                         : n == Needs::reverse ? "reverse works"
                                               : "forward or reverse works";
      return "method \"" + m + "\" needs " + what;
    }
  }
  return {};
}

std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     const std::vector<double>* forward_works,
                                     const std::vector<double>* reverse_works,
                                     const EstimatorOptions& options) {
  const std::string missing =
      estimator_requirements(methods, forward_works != nullptr, reverse_works != nullptr);
  if (!missing.empty()) fail_argument("logz::run_estimators", "methods", missing);
  std::vector<Estimate> out;
  for (const auto& m : methods) entry(m).run(forward_works, reverse_works, options, out);
  return out;
}

}  // namespace logz
