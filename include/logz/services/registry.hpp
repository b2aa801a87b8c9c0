// The registries: every model, kernel, estimator and schedule a config can name, each stated
// once with everything the front ends need to know about it: its config keys, what it
// supports, and how to run it. `logz run/loglik/sample/list`, the error messages that list
// names, the plots' legends, the JSON report and the docs check all read these tables; nothing
// keeps a list of its own.
//
// Adding a model: one file under src/services/models/ defining `ModelEntry NAME_model_entry()`
// and one line LOGZ_MODEL(NAME) in src/services/models/models.def. A model states its kernels
// (a family shared by several models, or its own); a continuous kernel is its header plus one
// line of kernels/continuous_kernels.hpp; an estimator is one entry in estimator_registry.cpp,
// a schedule one in schedule_registry.cpp, a method one in method_registry.cpp (methods.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "logz/anneal/anneal_journal.hpp"
#include "logz/config/config.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/services/methods.hpp"
#include "logz/services/results.hpp"
#include "logz/services/run_budget.hpp"

namespace logz {

class TemperingJournal;  // tempering/tempering_journal.hpp
class PtJournal;         // tempering/pt_journal.hpp
class SmcJournal;        // smc/smc_journal.hpp

// Called from worker threads with (stage, chunks done, chunks in all); a stage that counts
// something else names it in brackets at its end ("parallel tempering [scans]").
using ProgressFn = std::function<void(const std::string&, std::size_t, std::size_t)>;

// A run's estimators, one after another (MBAR over a long run's samples may take minutes):
// "estimates, now mbar: 1/2 estimators" as methods[done] starts, "estimates: 2/2" at the end.
void report_estimator_progress(const ProgressFn& progress, const std::vector<std::string>& methods,
                               std::size_t done);

// What a run gets from its front end besides the config, passed down explicitly to the drivers
// (AnnealOptions, TemperingOptions, ...): nothing reaches them through a thread's state or a
// global, not even the stop request, which the front end owns.
struct RunContext {
  ProgressFn progress;
  BudgetListener budget;  // told the run's budget before it starts (run_budget.hpp)
  // A checkpointed run's journals (anneal/anneal_journal.hpp, tempering/tempering_journal.hpp,
  // tempering/pt_journal.hpp, smc/smc_journal.hpp); nullptr: not checkpointed.
  AnnealJournal* anneal_journal = nullptr;
  TemperingJournal* tempering_journal = nullptr;
  PtJournal* pt_journal = nullptr;
  SmcJournal* smc_journal = nullptr;
  Ranks* ranks = nullptr;  // the ranks the run is split over (parallel/ranks.hpp); nullptr: one
  // The front end's stop request (core/stop_request.hpp; Ctrl-C): the run throws Stopped within
  // a step once it is requested. Default: never stops.
  StopToken stop;

  // Tells the listener, if any.
  void announce(const PlannedBudget& planned) const {
    if (budget) budget(planned);
  }
};

struct KernelEntry {
  std::string family;   // the models that use it: "lattice", "rbm", "continuous", "gaussian_toy"
  std::string name;     // [kernel] type
  std::string summary;  // one line
  const KeyGroup* keys = nullptr;  // the [kernel] keys it reads
  bool uses_gradient =
      false;  // moves along the energy's gradient (a Python Target then needs grad)
};

struct ModelEntry {
  std::string name;                         // [model] type
  std::string summary;                      // one line
  std::string docs;                         // the page that documents it (docs/...)
  std::vector<RunMethod> methods;           // [run] method values it supports
  std::vector<KernelEntry> kernels;         // [kernel] type values
  std::vector<std::string> reverse_starts;  // [run] reverse_start values besides "resampled"
  std::string reference;                    // how its exact log Z is known ("" if never)
  std::vector<const KeyGroup*>
      keys;  // every section run and loglik read: its own keys and shared ones
  std::vector<const KeyGroup*> sample_keys;                        // what `logz sample` reads
  std::function<RunResult(Config&, const RunContext&)> run;        // `logz run` (empty: none)
  std::function<LoglikResult(Config&, const RunContext&)> loglik;  // `logz loglik` (empty: none)
  std::function<SampleResult(Config&, const RunContext&)> sample;  // `logz sample` (empty: none)
  // The exact log Z of the model [model] describes (reads that section alone), nullopt where
  // none is known for these parameters (empty: never). The Python models' exact_log_z().
  std::function<std::optional<Reference>(Config&)> exact;

  // The sections a config of this model may have for `command` ("run", "loglik" or "sample").
  std::vector<std::string> sections(const std::string& command) const;
};

// Which works an estimator needs.
enum class WorksNeeded { forward, reverse, both, either };

// One estimate an estimator yields, and how reports and plots show it.
struct EstimateOutput {
  std::string method;       // Estimate::method
  std::string label;        // "AIS", "lower bound": legends
  std::string color;        // "#2ca02c": the same in every plot
  int dash = 1, point = 7;  // gnuplot dashtype and pointtype
  int preference =
      0;  // > 0: a log Z that later steps may use (1 first), as an RBM's test likelihood does
  // Reads forward works only (ais, lower_bound, cumulant_forward): resampled reverse starts do
  // not touch it (services/annealing_flags.hpp).
  bool forward_only = false;
};

// An estimator of works (annealing) or of tempered samples (simulated tempering). The order of
// the table is the order of presentation in tables and plots.
struct EstimatorEntry {
  std::string name;                       // the name in [estimators] methods / --methods
  std::string family;                     // "works" or "tempered"
  std::string summary;                    // one line
  std::vector<EstimateOutput> outputs;    // the estimates it can yield
  WorksNeeded needs = WorksNeeded::both;  // works family only
  int default_rank = 0;  // > 0: run by default, in this order, when methods is not given
  // Tempered family only: what the final run must record for it.
  bool needs_integrands = false;    // the TI integrands (SimulatedTempering::begin_run)
  bool needs_samples = false;       // every tempered sample (TemperingOptions::record_samples)
  std::vector<const Key*> options;  // the [estimators] keys of the options it reads
};

struct ScheduleEntry {
  std::string name;  // [schedule] type
  std::string summary;
};

// The tables, in the order `logz list` shows them.
const std::vector<ModelEntry>& model_registry();
const std::vector<KernelEntry>& kernel_registry();
const std::vector<EstimatorEntry>& estimator_registry();
const std::vector<ScheduleEntry>& schedule_registry();

// Lookups; an InputError naming `where` and listing the names when there is no such entry.
const ModelEntry& find_model(const std::string& name);
const KernelEntry& find_kernel(const std::string& family, const std::string& name);
const EstimatorEntry& find_estimator(const std::string& name);

// Names: every model that has `what` ("run", "loglik", "sample" or a [run] method such as
// "tempering"); every estimator of a family; every output method in presentation order (the
// order the report and the plots' legends use).
std::vector<std::string> model_names(const std::string& what = "run");
std::vector<std::string> estimator_names(const std::string& family);
// The estimators run when none are named: those of `family` with a default_rank, in its order.
std::vector<std::string> default_estimator_names(const std::string& family);
// Every estimate an estimator can yield, in the order of presentation.
const std::vector<EstimateOutput>& estimate_outputs();
// The finite estimate of highest preference among `estimates` (null if none).
const Estimate* preferred_estimate(const std::vector<Estimate>& estimates);
// "\"a\", \"b\" and \"c\"": for error messages.
std::string quoted_names(const std::vector<std::string>& names);

// The [model] type key (required, one of the models that have `what`), and a group of it alone.
Key model_type_key(const std::string& what = "run");
const KeyGroup& model_type_keys();

}  // namespace logz
