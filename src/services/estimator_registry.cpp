// The estimator registry: every estimator a config or `logz estimate` can name, with what it
// needs, what it yields and how reports show it, and the dispatch from its name to the pure
// estimator functions of include/logz/estimators/. A new estimator is one function there plus
// one entry here; an option of it is a field of EstimatorOptions and one Option here, which the
// entry names: [estimators], `logz estimate`'s flags and logz.estimate read the options from
// the entries.
#include <algorithm>
#include <cmath>
#include <functional>

#include "logz/config/memory_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/chain_jackknife.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/estimators/stepping_stone.hpp"
#include "logz/estimators/thermodynamic_integration.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"

namespace logz {

namespace {

// Groups of chains MBAR's jackknife leaves out in turn: each costs one more solve.
constexpr std::size_t kChainJackknifeGroups = 20;

// The works of one direction, or nullptr when that direction was not run.
using WorksPtr = const std::span<const double>*;
using WorksFn =
    std::function<void(WorksPtr, WorksPtr, const EstimatorOptions&, std::vector<Estimate>&)>;
// (statistics, ladder, log Zhat, the RTS answer of the same run, worker threads, the run's stop
// request: MBAR's solves stop within an iteration once it is requested)
using TemperedFn =
    std::function<LadderEstimates(const TemperingStats&, const TemperingLadder&,
                                  std::span<const double>, const LadderEstimates&, int, StopToken)>;

// An option of the estimators, stated once: its [estimators] key, whose default is that of
// EstimatorOptions, the field it fills, and the memory a value makes its estimator keep (checked
// before anything runs).
struct Option {
  Key key;
  std::size_t EstimatorOptions::*field;
  double bytes_each = 0.0;  // per unit of the value; 0: nothing worth checking
  std::string what;         // "the histograms"
};

Option count_option(std::string name, std::size_t EstimatorOptions::*field, std::int64_t min,
                    std::int64_t max, std::string doc, double bytes_each = 0.0,
                    std::string what = "") {
  const auto fallback = static_cast<std::int64_t>(EstimatorOptions{}.*field);
  return {Key::integer(std::move(name), fallback, min, max, std::move(doc)), field, bytes_each,
          std::move(what)};
}

// Function-local statics: the front ends' own static tables read them during initialization.
const Option* histogram_bins() {
  static const Option o =
      count_option("histogram_bins", &EstimatorOptions::histogram_bins, 0, 1LL << 30,
                   "histogram estimators: bins; 0: one support point per distinct work",
                   kBytesPerHistogramBin, "the histograms");
  return &o;
}

const Option* posterior_draws() {
  static const Option o = count_option("posterior_draws", &EstimatorOptions::posterior_draws, 2,
                                       1LL << 30, "histogram_posterior: kept Gibbs sweeps",
                                       kBytesPerPosteriorDraw, "the posterior draws");
  return &o;
}

const Option* posterior_burn_in() {
  static const Option o =
      count_option("posterior_burn_in", &EstimatorOptions::posterior_burn_in, 0, 1LL << 30,
                   "histogram_posterior: discarded sweeps before them");
  return &o;
}

struct Estimator {
  EstimatorEntry entry;
  WorksFn works;                       // works family
  TemperedFn tempered;                 // tempered family
  std::vector<const Option*> options;  // the options it reads
};

HistogramOptions histogram_options(const EstimatorOptions& o) {
  HistogramOptions h;
  h.bins = o.histogram_bins;
  return h;
}

// A thermodynamic-integration rule of thermodynamic_integration.hpp as a tempered estimator.
Estimator ti(const std::string& rule, const std::string& what, EstimateOutput output,
             int default_rank) {
  return {{rule,
           "tempered",
           "thermodynamic integration, " + what,
           {std::move(output)},
           WorksNeeded::both,
           default_rank,
           true},
          {},
          [rule](const TemperingStats& s, const TemperingLadder& l, std::span<const double>,
                 const LadderEstimates&, int,
                 StopToken) { return thermodynamic_integration(s, l.fractions(), rule); }};
}

const std::vector<Estimator>& estimators() {
  static const std::vector<Estimator> table = {
      {{"ais",
        "works",
        "annealed importance sampling: -log mean exp(-W_f) (Jarzynski)",
        {{"ais", "AIS", "#2ca02c", 2, 7, 2, true}},
        WorksNeeded::forward,
        1},
       [](WorksPtr f, WorksPtr, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(ais(*f));
       }},
      {{"raise",
        "works",
        "reverse AIS: log mean exp(-W_r) (RAISE)",
        {{"raise", "RAISE", "#ff7f0e", 3, 5, 3}},
        WorksNeeded::reverse,
        2},
       [](WorksPtr, WorksPtr r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(raise(*r));
       }},
      {{"bar",
        "works",
        "Bennett's acceptance ratio on forward and reverse works",
        {{"bar", "BAR", "#9467bd", 4, 9, 1}},
        WorksNeeded::both,
        4},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(bar(*f, *r));
       }},
      {{"bounds",
        "works",
        "the sandwich -mean W_f <= log Z1/Z0 <= mean W_r",
        {{"lower_bound", "lower bound", "#8c564b", 5, 11, 0, true},
         {"upper_bound", "upper bound", "#e377c2", 2, 13}},
        WorksNeeded::both,
        3},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(lower_bound(*f));
         out.push_back(upper_bound(*r));
       }},
      {{"histogram",
        "works",
        "the histogram (unbinned: BAR-like) estimator of Habeck (2017)",
        {{"histogram", "histogram", "#d62728", 3, 15}},
        WorksNeeded::both,
        0},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions& o, std::vector<Estimate>& out) {
         out.push_back(histogram(*f, *r, histogram_options(o)).estimate);
       },
       {},
       {histogram_bins()}},
      {{"cumulant",
        "works",
        "second-order cumulant estimates (forward, reverse, two-sided, as the works allow)",
        {{"cumulant", "cumulant", "#1f77b4", 4, 3},
         {"cumulant_forward", "cumulant forward", "#17becf", 5, 1, 0, true},
         {"cumulant_reverse", "cumulant reverse", "#bcbd22", 2, 2}},
        WorksNeeded::either,
        0},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions&, std::vector<Estimate>& out) {
         if (f) out.push_back(cumulant_forward(*f));
         if (r) out.push_back(cumulant_reverse(*r));
         if (f && r) out.push_back(cumulant(*f, *r));
       }},
      {{"histogram_posterior",
        "works",
        "the posterior mean of the histogram model by Gibbs sampling",
        {{"histogram_posterior", "histogram posterior", "#7f7f7f", 3, 6}},
        WorksNeeded::both,
        0},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions& o, std::vector<Estimate>& out) {
         HistogramPosteriorOptions p;
         p.histogram = histogram_options(o);
         p.num_draws = o.posterior_draws;
         p.burn_in = o.posterior_burn_in;
         p.seed = o.seed;
         p.stop = o.stop;
         out.push_back(histogram_posterior(*f, *r, p).estimate);
       },
       {},
       {posterior_draws(), posterior_burn_in(), histogram_bins()}},
      {{"crossing",
        "works",
        "where the forward and reverse work densities cross (Crooks)",
        {{"crooks_crossing", "crooks crossing", "#393b79", 4, 8}},
        WorksNeeded::both,
        0},
       [](WorksPtr f, WorksPtr r, const EstimatorOptions&, std::vector<Estimate>& out) {
         out.push_back(crooks_crossing(*f, *r));
       }},
      {{"rts",
        "tempered",
        "Rao-Blackwellized tempered sampling (Carlson et al. 2016, eq. 9)",
        {{"rts", "RTS", "#ad494a", 5, 10, 4}},
        WorksNeeded::both,
        1},
       {},
       [](const TemperingStats&, const TemperingLadder&, std::span<const double>,
          const LadderEstimates& rts, int, StopToken) { return rts; }},
      {{"ts",
        "tempered",
        "tempered sampling from visit counts",
        {{"ts", "TS", "#637939", 2, 12}},
        WorksNeeded::both,
        2},
       {},
       [](const TemperingStats& s, const TemperingLadder& l, std::span<const double> z,
          const LadderEstimates&, int, StopToken) { return ts_ladder(s, z, l.log_prior()); }},
      ti("ti_riemann", "right Riemann sum", {"ti_riemann", "TI Riemann", "#8c6d31", 3, 4}, 0),
      ti("ti_trapezoid", "trapezoid rule", {"ti_trapezoid", "TI trapezoid", "#843c39", 4, 14, 7},
         3),
      ti("ti_corrected", "trapezoid minus Friel et al.'s variance correction (geometric paths)",
         {"ti_corrected", "TI corrected", "#7b4173", 5, 16}, 0),
      ti("ti_rb", "on Rao-Blackwellized means (eq. 21)", {"ti_rb", "TI-RB", "#3182bd", 2, 17, 6},
         4),
      {{"mbar",
        "tempered",
        "MBAR on every recorded tempered sample",
        {{"mbar", "MBAR", "#e6550d", 3, 18, 5}},
        WorksNeeded::both,
        0,
        false,
        true},
       {},
       [](const TemperingStats& s, const TemperingLadder& l, std::span<const double>,
          const LadderEstimates& rts, int threads, StopToken stop) {
         // RTS as the warm start: fewer Newton steps than from log Z = 0 on ladders that span
         // hundreds of nats.
         MbarOptions o;
         o.stop = stop;
         o.initial_log_z = rts.log_z;
         for (double& x : o.initial_log_z)
           if (!std::isfinite(x)) x = 0.0;
         LadderEstimates full = mbar_tempered(s, l.fractions(), o);
         if (!full.last.diagnostics.converged) return full;
         // The asymptotic error treats correlated samples as independent: the error bar is a
         // jackknife over groups of chains instead, each solve warm-started at the full one.
         o.initial_log_z = full.log_z;
         for (double& x :
              o.initial_log_z)  // NaN for a level cut off from the first ("disconnected")
           if (!std::isfinite(x)) x = 0.0;
         const double asymptotic = full.last.std_error;
         full.std_error = chain_jackknife_std_error(
             s, kChainJackknifeGroups, threads,
             [&](const TemperingStats& part) {
               return mbar_tempered(part, l.fractions(), o).log_z;
             },
             stop);
         const Diagnostics diagnostics = full.last.diagnostics;
         full.summarise_last("chain_jackknife");
         full.last.diagnostics = diagnostics;
         full.last.diagnostics.values.emplace_back("asymptotic_std_error", asymptotic);
         if (!std::isfinite(full.last.std_error))
           full.last.diagnostics.add_flag("no_error_estimate");
         return full;
       }},
      {{"stepping_stone",
        "tempered",
        "stepping stone: each rung's ratio averaged over the samples of the level below (Xie et "
        "al. 2011)",
        {{"stepping_stone", "stepping stone", "#31a354", 4, 19}},
        WorksNeeded::both,
        0,
        false,
        true},
       {},
       [](const TemperingStats& s, const TemperingLadder& l, std::span<const double>,
          const LadderEstimates&, int threads, StopToken stop) {
         return stepping_stone(s, l.fractions(), kChainJackknifeGroups, threads, stop);
       }},
  };
  return table;
}

const Estimator& estimator(const std::string& name) {
  for (const auto& e : estimators())
    if (e.entry.name == name) return e;
  fail_argument("logz::run_estimators", "methods",
                "names from " + quoted_names(estimator_names("works")) + " or " +
                    quoted_names(estimator_names("tempered")) + "; got \"" + name + "\"");
}

const Estimator& works_estimator(const std::string& name) {
  const Estimator& e = estimator(name);
  if (e.entry.family != "works")
    fail_argument(
        "logz::run_estimators", "methods",
        "names from " + quoted_names(estimator_names("works")) + "; got \"" + name + "\"");
  return e;
}

}  // namespace

const std::vector<EstimatorEntry>& estimator_registry() {
  static const std::vector<EstimatorEntry> entries = [] {
    std::vector<EstimatorEntry> v;
    for (const auto& e : estimators()) {
      v.push_back(e.entry);
      for (const Option* o : e.options) v.back().options.push_back(&o->key);
    }
    return v;
  }();
  return entries;
}

namespace {

// Every option some entry reads, each once, in the order of the registry.
const std::vector<const Option*>& all_options() {
  static const std::vector<const Option*> options = [] {
    std::vector<const Option*> v;
    for (const auto& e : estimators())
      for (const Option* o : e.options)
        if (std::find(v.begin(), v.end(), o) == v.end()) v.push_back(o);
    return v;
  }();
  return options;
}

}  // namespace

const std::vector<const Key*>& estimator_option_keys() {
  static const std::vector<const Key*> keys = [] {
    std::vector<const Key*> v;
    for (const Option* o : all_options()) v.push_back(&o->key);
    return v;
  }();
  return keys;
}

EstimatorOptions read_estimator_options(const EstimatorOptionSource& source, std::uint64_t seed) {
  EstimatorOptions options;
  options.seed = seed;
  for (const Option* o : all_options()) {
    const std::int64_t value = source.value(o->key);
    if (value < o->key.min_integer() || value > o->key.max_integer())  // the front end checks first
      fail_argument("logz::read_estimator_options", o->key.name(), o->key.expectation());
    options.*(o->field) = static_cast<std::size_t>(value);
    if (o->bytes_each > 0.0 && source.check_memory)
      source.check_memory(o->key, o->bytes_each * static_cast<double>(value), o->what);
  }
  return options;
}

const EstimatorEntry& find_estimator(const std::string& name) { return estimator(name).entry; }

std::vector<std::string> estimator_names(const std::string& family) {
  std::vector<std::string> names;
  for (const auto& e : estimator_registry())
    if (e.family == family) names.push_back(e.name);
  return names;
}

std::vector<std::string> default_estimator_names(const std::string& family) {
  std::vector<const EstimatorEntry*> d;
  for (const auto& e : estimator_registry())
    if (e.family == family && e.default_rank > 0) d.push_back(&e);
  std::stable_sort(d.begin(), d.end(),
                   [](auto* a, auto* b) { return a->default_rank < b->default_rank; });
  std::vector<std::string> names;
  for (const auto* e : d) names.push_back(e->name);
  return names;
}

const std::vector<EstimateOutput>& estimate_outputs() {
  static const std::vector<EstimateOutput> outputs = [] {
    std::vector<EstimateOutput> v;
    for (const auto& e : estimator_registry())
      v.insert(v.end(), e.outputs.begin(), e.outputs.end());
    return v;
  }();
  return outputs;
}

const Estimate* preferred_estimate(const std::vector<Estimate>& estimates) {
  const Estimate* best = nullptr;
  int best_rank = 0;
  for (const auto& out : estimate_outputs()) {
    if (out.preference <= 0 || (best && out.preference >= best_rank)) continue;
    for (const auto& e : estimates)
      if (e.method == out.method && std::isfinite(e.log_z)) {
        best = &e;
        best_rank = out.preference;
        break;
      }
  }
  return best;
}

std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse) {
  for (const auto& m : methods) {
    const WorksNeeded n = works_estimator(m).entry.needs;
    const bool ok = n == WorksNeeded::forward   ? has_forward
                    : n == WorksNeeded::reverse ? has_reverse
                    : n == WorksNeeded::both    ? has_forward && has_reverse
                                                : has_forward || has_reverse;
    if (!ok) {
      const char* what = n == WorksNeeded::both      ? "forward and reverse works"
                         : n == WorksNeeded::forward ? "forward works"
                         : n == WorksNeeded::reverse ? "reverse works"
                                                     : "forward or reverse works";
      return "method \"" + m + "\" needs " + what;
    }
  }
  return {};
}

std::vector<std::string> default_works_estimators(bool has_forward, bool has_reverse) {
  std::vector<std::string> out;
  for (const auto& m : default_estimator_names("works"))
    if (estimator_requirements({m}, has_forward, has_reverse).empty()) out.push_back(m);
  return out;
}

std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     OptionalWorks forward_works, OptionalWorks reverse_works,
                                     const EstimatorOptions& options) {
  const std::string missing =
      estimator_requirements(methods, forward_works.has_value(), reverse_works.has_value());
  if (!missing.empty()) fail_argument("logz::run_estimators", "methods", missing);
  std::vector<Estimate> out;
  const WorksPtr f = forward_works ? &*forward_works : nullptr,
                 r = reverse_works ? &*reverse_works : nullptr;
  for (const auto& m : methods) works_estimator(m).works(f, r, options, out);
  return out;
}

LadderEstimates run_tempered_estimator(const std::string& method, const TemperingStats& stats,
                                       const TemperingLadder& ladder,
                                       std::span<const double> log_z_hat,
                                       const LadderEstimates& rts, int threads, StopToken stop) {
  const Estimator& e = estimator(method);
  if (e.entry.family != "tempered")
    fail_argument(
        "logz::run_tempered_estimator", "method",
        "names from " + quoted_names(estimator_names("tempered")) + "; got \"" + method + "\"");
  return e.tempered(stats, ladder, log_z_hat, rts, threads, stop);
}

}  // namespace logz
