// `logz run` with [run] method = "tempering": simulated tempering on the same model-paths and
// kernels as annealing, with the initial iterations of Carlson et al. (2016) (or Wang-Landau),
// a final run, and the tempered-sample estimators of the estimator registry (RTS, TS, TI
// variants, MBAR) for the target and for every level.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "logz/config/config.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/method_setup.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/simulated_tempering.hpp"
#include "logz/tempering/tempering_journal.hpp"
#include "logz/tempering/tempering_run.hpp"

namespace logz {

// The [tempering] keys.
const KeyGroup& tempering_keys();

// The numbers of the run default to those of TemperingOptions and TemperingRunPlan
// (simulated_tempering.hpp, tempering_run.hpp), as the [tempering] keys do.
struct TemperingSettings {
  TemperingOptions options;
  std::string prior = "uniform";
  double prior_slope = 2.0;
  std::string initialization = "iterations";  // "iterations", "wang_landau", "none"
  InitialUpdate initial_update = InitialUpdate::rts;
  int max_initial_iterations = TemperingRunPlan{}.max_initial_iterations;
  std::size_t sweeps_per_iteration = TemperingRunPlan{}.sweeps_per_iteration;
  double tolerance = TemperingRunPlan{}.tolerance;  // 0: the paper's 0.1 / K
  std::size_t num_sweeps = TemperingRunPlan{}.num_sweeps;
  std::vector<std::string> methods;
  bool integrands =
      true;  // whether a method integrates (TI): the final run then records the integrands
  TemperingLadder ladder{linear_schedule(1)};
};

// What a model changes in the [tempering] defaults.
struct TemperingDefaults {
  // chains per chunk (an RBM's chunk is one GEMM: 50)
  std::int64_t chunk_size = static_cast<std::int64_t>(TemperingOptions{}.chunk_size);
};

// Reads [tempering], [schedule] (the ladder; num_steps defaults to num_temperatures - 1) and
// [estimators] (seed and threads from [run]). `geometric`: whether the path is linear in beta
// (ti_corrected needs that).
TemperingSettings read_tempering_settings(Config& config, bool geometric,
                                          const TemperingDefaults& defaults = {});

// The estimates of every requested method from one final run, and the ladder's summary.
void tempering_estimates(const TemperingStats& stats, const TemperingSettings& s,
                         std::span<const double> log_z_hat, const ProgressFn& progress,
                         RunResult& result);

// What the final run is about to do, said before the run starts (run_budget.hpp): chains x
// sweeps, the initialization's sweeps in a note.
PlannedBudget planned_tempering_budget(const TemperingSettings& s);

// The summary of the initialization and final run a record describes.
TemperingSummary tempering_summary(const TemperingRecord& at, const TemperingSettings& s);

// The journal a tempering (simulated or parallel) of this batch type reports to: the run's, if
// the batch can be saved; a checkpointed run of one that cannot is refused.
template <class Batch, class Journal>
Journal* tempering_journal_for(Journal* journal) {
  if constexpr (!CheckpointableBatch<Batch>) {
    if (journal)
      throw InputError(
          "--checkpoint: this model's tempered chains cannot be saved (run it without "
          "--checkpoint)");
    return nullptr;
  } else {
    return journal;
  }
}

namespace detail {

// temper_and_estimate with the kernel's moves type-erased: compiled once per path.
template <class Path>
void temper_and_estimate(const Path& path, ChainMoves<Path> moves, Config& config,
                         const RunContext& context, RunResult& result,
                         const TemperingDefaults& defaults) {
  const TemperingSettings s = read_tempering_settings(config, is_geometric_path<Path>, defaults);
  context.announce(planned_tempering_budget(s));
  TemperingOptions options = s.options;
  options.ranks = context.ranks;
  options.stop = context.stop;
  TemperingDriver<Path> st(path, std::move(moves), s.ladder, options);
  const TemperingRunPlan plan{.initialization = s.initialization,
                              .initial_update = s.initial_update,
                              .max_initial_iterations = s.max_initial_iterations,
                              .sweeps_per_iteration = s.sweeps_per_iteration,
                              .tolerance = s.tolerance,
                              .num_sweeps = s.num_sweeps,
                              .integrands = s.integrands};
  TemperingJournal* journal =
      tempering_journal_for<typename Path::Batch>(context.tempering_journal);
  TemperingRecord at = run_tempering(st, plan, journal, [&](std::size_t d, std::size_t n) {
    if (context.progress) context.progress("tempering", d, n);
  });
  result.tempering = tempering_summary(at, s);
  // The journal holds its own copy: the run's samples move into the statistics, not copied again.
  tempering_estimates(st.finish_run(std::move(at.final_run)), s, at.initial.log_z_hat,
                      context.progress, result);
  if (!result.tempering->converged.value_or(true))
    for (auto& e : result.estimates) e.diagnostics.add_flag("initialization_not_converged");
}

}  // namespace detail

// Simulated tempering of the path with the kernel, its [tempering] and [estimators] read from
// config: initial iterations (or Wang-Landau), the final run (checkpointed where the context
// has a journal, split over its ranks) and the RTS / TS / TI / MBAR estimates into result.
template <class Path, class Kernel>
void temper_and_estimate(const Path& path, const Kernel& kernel, Config& config,
                         const RunContext& context, RunResult& result,
                         const TemperingDefaults& defaults = {}) {
  detail::temper_and_estimate(path, detail::chain_moves(path, kernel), config, context, result,
                              defaults);
}

// [run] method = "tempering" (services/method_list.hpp): on any setup with a path and kernels, or
// one that tempers its own way (s.temper(config, context, result): the RBM's Rao-Blackwellized
// levels).
struct TemperingMethod {
  static constexpr RunMethod kId = RunMethod::tempering;
  static constexpr const char* kSummary =
      "simulated tempering on a ladder of temperatures (RTS, TI, MBAR)";
  static constexpr const char* kDocs = "docs/tempering.md";
  static constexpr bool kCheckpoints = true;
  static const KeyGroup* keys() { return &tempering_keys(); }

  template <class Setup>
  static constexpr bool tempers_itself = requires(const Setup& s, Config& config,
                                                  const RunContext& context, RunResult& result) {
    s.temper(config, context, result);
  };
  template <class Setup>
  static constexpr bool runs_on = tempers_itself<Setup> || KernelSetup<Setup>;
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    if constexpr (tempers_itself<Setup>)
      s.temper(config, context, result);
    else
      s.with_kernel(kId, config, result, [&](const auto& kernel) {
        temper_and_estimate(s.path(), kernel, config, context, result);
      });
  }
};

}  // namespace logz
