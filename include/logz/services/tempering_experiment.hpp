// `logz run` with [run] method = "tempering": simulated tempering on the same model-paths and
// kernels as annealing, with the initial iterations of Carlson et al. (2016) (or Wang-Landau),
// a final run, and the tempered-sample estimators of the estimator registry (RTS, TS, TI
// variants, MBAR) for the target and for every level.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "logz/services/config.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/simulated_tempering.hpp"
#include "logz/tempering/tempering_journal.hpp"

namespace logz {

// The [tempering] keys.
const KeyGroup& tempering_keys();

struct TemperingSettings {
  TemperingOptions options;
  std::string prior = "uniform";
  double prior_slope = 2.0;
  std::string initialization = "iterations";  // "iterations", "wang_landau", "none"
  std::string initial_update = "rts";         // "rts" or "tan"
  int max_initial_iterations = 50;
  std::size_t sweeps_per_iteration = 50;
  double tolerance = 0.0;                     // 0: the paper's 0.1 / K
  std::size_t num_sweeps = 1000;
  std::vector<std::string> methods;
  bool integrands = true;  // whether a method integrates (TI): the final run then records the integrands
  TemperingLadder ladder{linear_schedule(1)};
};

// What a model changes in the [tempering] defaults.
struct TemperingDefaults {
  std::int64_t chunk_size = 4;  // chains per chunk (an RBM's chunk is one GEMM: 50)
};

// Reads [tempering], [schedule] (the ladder; num_steps defaults to num_temperatures - 1) and
// [estimators] (seed and threads from [run]). `geometric`: whether the path is linear in beta
// (ti_corrected needs that).
TemperingSettings read_tempering_settings(Config& config, bool geometric, const TemperingDefaults& defaults = {});

// The estimates of every requested method from one final run, and the ladder's summary.
void tempering_estimates(const TemperingStats& stats, const TemperingSettings& s,
                         std::span<const double> log_z_hat, RunResult& result);

// What the final run is about to do, said before the run starts (run_budget.hpp): chains x
// sweeps, the initialization's sweeps in a note.
PlannedBudget planned_tempering_budget(const TemperingSettings& s);

// The summary of the initialization and final run a record describes.
TemperingSummary tempering_summary(const TemperingRecord& at, const TemperingSettings& s);

// The journal a tempering of this batch type reports to: the thread's, if the batch can be
// saved; a checkpointed run of one that cannot is refused.
template <class Batch>
TemperingJournal* tempering_journal_for() {
  TemperingJournal* journal = current_tempering_journal();
  if constexpr (!CheckpointableBatch<Batch>) {
    if (journal) throw InputError("--checkpoint: this model's tempered chains cannot be saved (run it without --checkpoint)");
    return nullptr;
  } else {
    return journal;
  }
}

namespace detail {

// temper_and_estimate with the kernel's moves type-erased: compiled once per path.
template <class Path>
void temper_and_estimate(const Path& path, ChainMoves<Path> moves, Config& config, const ProgressFn& progress,
                         RunResult& result, const TemperingDefaults& defaults) {
  using Clock = std::chrono::steady_clock;
  const TemperingSettings s = read_tempering_settings(config, is_geometric_path<Path>, defaults);
  announce_budget(planned_tempering_budget(s));
  TemperingDriver<Path> st(path, std::move(moves), s.ladder, s.options);
  TemperingJournal* journal = tempering_journal_for<typename Path::Batch>();
  const TemperingShape shape{s.options.num_chains, s.options.chunk_size, s.ladder.size(), s.num_sweeps,
                             s.initialization};
  const WangLandauOptions wang_landau_options;
  TemperingRecord at;  // where the run stands
  const TemperingRecord* saved = journal ? journal->begin_tempering(shape) : nullptr;
  // Split over ranks, every rank journals alike: rank 0 decides when to record, and records
  // hold every rank's chains and statistics (gathered), so any number of ranks resumes them.
  Ranks& ranks = current_ranks();
  if (saved) {
    at = *saved;
    if constexpr (CheckpointableBatch<typename Path::Batch>)
      if (at.stage != TemperingStage::complete && !st.restore(at.chains))
        throw InputError("--resume: the checkpoint's tempered chains do not fit the run its config gives");
    if (at.stage != TemperingStage::initialization) at.final_run = st.own_part(std::move(at.final_run));
    if (at.stage != TemperingStage::initialization && s.integrands && !at.final_run.integrands)
      throw InputError("--resume: the checkpoint's run records no TI integrands and [estimators] methods now ask for "
                       "thermodynamic integration (resume with the methods it was started with)");
  } else {
    at.shape = shape;
    at.initial.log_z_hat.assign(s.ladder.size(), 0.0);
    at.wang_landau = WangLandauState(at.initial.log_z_hat, wang_landau_options);
  }
  auto hand_over = [&](bool always) {
    if constexpr (CheckpointableBatch<typename Path::Batch>) {
      if (!journal || !decided_by_rank0(ranks, always || journal->wants_record())) return;
      at.chains = at.stage == TemperingStage::complete ? TemperingChains{} : st.chains();
      if (ranks.size() == 1 || at.stage == TemperingStage::initialization) return journal->record(at);
      TemperingRecord whole = at;
      whole.final_run = st.whole_run(at.final_run);
      journal->record(whole);
    }
  };
  if (!saved) hand_over(true);  // a stop before the first sweep leaves a run that resumes
  const double tolerance = s.tolerance > 0 ? s.tolerance : 0.1 / static_cast<double>(s.ladder.size());
  if (at.stage == TemperingStage::initialization) {
    if (s.initialization == "iterations") {
      while (initial_iteration(st, at.initial, s.sweeps_per_iteration, s.max_initial_iterations, tolerance,
                               s.initial_update))
        hand_over(false);
    } else if (s.initialization == "wang_landau") {
      while (!at.wang_landau.done(wang_landau_options)) {
        wang_landau_sweep(st, at.wang_landau, wang_landau_options);
        hand_over(false);
      }
      at.initial = wang_landau_result(at.wang_landau, wang_landau_options);
    }
    at.stage = TemperingStage::final_run;
    at.final_run = st.begin_run(s.num_sweeps, s.integrands);
    hand_over(false);
  }
  if (at.stage == TemperingStage::final_run) {
    // Without a journal, one piece; with one, pieces that double while they take under 0.1 s,
    // so that records come often without costing the run.
    std::size_t piece = journal ? 1 : s.num_sweeps;
    while (at.final_run.sweeps_done < at.final_run.sweeps) {
      const auto start = Clock::now();
      st.continue_run(at.final_run, piece, at.initial.log_z_hat, [&](std::size_t d, std::size_t n) {
        if (progress) progress("tempering", d, n);
      });
      const bool quick = std::chrono::duration<double>(Clock::now() - start).count() < 0.1;
      if (journal && decided_by_rank0(ranks, quick)) piece *= 2;
      hand_over(false);
    }
    at.stage = TemperingStage::complete;
    hand_over(true);
  }
  result.tempering = tempering_summary(at, s);
  // The journal holds its own copy: the run's samples move into the statistics, not copied again.
  tempering_estimates(st.finish_run(std::move(at.final_run)), s, at.initial.log_z_hat, result);
  if (!result.tempering->converged.value_or(true))
    for (auto& e : result.estimates) e.diagnostics.add_flag("initialization_not_converged");
}

}  // namespace detail

// Simulated tempering of the path with the kernel, its [tempering] and [estimators] read from
// config: initial iterations (or Wang-Landau), the final run (checkpointed where a journal is
// set) and the RTS / TS / TI / MBAR estimates into result.
template <class Path, class Kernel>
void temper_and_estimate(const Path& path, const Kernel& kernel, Config& config, const ProgressFn& progress,
                         RunResult& result, const TemperingDefaults& defaults = {}) {
  detail::temper_and_estimate(path, detail::chain_moves(path, kernel), config, progress, result, defaults);
}

}  // namespace logz
