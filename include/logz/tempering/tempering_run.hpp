// A whole simulated tempering run on a driver (simulated_tempering.hpp): the initialization
// (the initial iterations of Carlson et al. 2016, section 2.3, or Wang-Landau, or none), then the
// final run, handed to a journal between initial iterations and between pieces of the final run
// (tempering_journal.hpp) and resumed from it: tempering's checkpoint and rank logic, as
// anneal/annealer.hpp holds annealing's. Split over ranks (the driver's, TemperingOptions::ranks),
// every rank journals alike: rank 0 decides when to record, and records hold every rank's chains
// and statistics (gathered), so any number of ranks resumes them.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

#include "logz/core/batch_state.hpp"
#include "logz/core/error.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/simulated_tempering.hpp"
#include "logz/tempering/tempering_journal.hpp"

namespace logz {

struct TemperingRunPlan {
  std::string initialization = "iterations";          // "iterations", "wang_landau" or "none"
  InitialUpdate initial_update = InitialUpdate::rts;  // the initial iterations' update
  int max_initial_iterations = 50;
  std::size_t sweeps_per_iteration = 50;
  double tolerance = 0.0;         // of the initial iterations; 0: the paper's 0.1 / K
  std::size_t num_sweeps = 1000;  // of the final run
  bool integrands = true;         // whether the final run records the TI integrands
};

// Runs the plan on `st` with `journal` (nullptr: none) and returns where the run ends: stage
// complete, its initialization's result (initial) and the final run, this rank's part, for
// st.finish_run. progress(done, total) follows the final run's chunks. A journal needs a batch
// that can be saved (core/batch_state.hpp).
template <class Path>
TemperingRecord run_tempering(detail::TemperingDriver<Path>& st, const TemperingRunPlan& plan,
                              TemperingJournal* journal, const ChunkProgress& progress = {}) {
  using Clock = std::chrono::steady_clock;
  constexpr bool checkpointable = CheckpointableBatch<typename Path::Batch>;
  if (!checkpointable && journal)
    fail_argument("logz::run_tempering", "journal",
                  "a batch with for_each_state_array (core/batch_state.hpp)");
  const std::size_t num_levels = st.ladder().size();
  const TemperingShape shape{st.options().num_chains, st.options().chunk_size, num_levels,
                             plan.num_sweeps, plan.initialization};
  const WangLandauOptions wang_landau_options;
  TemperingRecord at;  // where the run stands
  const TemperingRecord* saved = journal ? journal->begin_tempering(shape) : nullptr;
  Ranks& ranks = st.ranks();
  if (saved) {
    at = *saved;
    if constexpr (checkpointable)  // every rank throws where one's chains do not fit
      if (!true_on_every_rank(ranks, at.stage == TemperingStage::complete || st.restore(at.chains)))
        throw InputError(
            "--resume: the checkpoint's tempered chains do not fit the run its config gives");
    if (at.stage != TemperingStage::initialization)
      at.final_run = st.own_part(std::move(at.final_run));
    if (at.stage != TemperingStage::initialization && plan.integrands && !at.final_run.integrands)
      throw InputError(
          "--resume: the checkpoint's run records no TI integrands and [estimators] methods now "
          "ask for "
          "thermodynamic integration (resume with the methods it was started with)");
  } else {
    at.shape = shape;
    at.initial.log_z_hat.assign(num_levels, 0.0);
    at.wang_landau = WangLandauState(at.initial.log_z_hat, wang_landau_options);
  }
  auto hand_over = [&](bool always) {
    if constexpr (checkpointable) {
      if (!journal || !decided_by_rank0(ranks, always || journal->wants_record())) return;
      at.chains = at.stage == TemperingStage::complete ? TemperingChains{} : st.chains();
      if (ranks.size() == 1 || at.stage == TemperingStage::initialization)
        return journal->record(at);
      TemperingRecord whole = at;
      whole.final_run = st.whole_run(at.final_run);
      journal->record(std::move(whole));
    }
  };
  if (!saved) hand_over(true);  // a stop before the first sweep leaves a run that resumes
  const double tolerance =
      plan.tolerance > 0 ? plan.tolerance : 0.1 / static_cast<double>(num_levels);
  if (at.stage == TemperingStage::initialization) {
    if (plan.initialization == "iterations") {
      while (initial_iteration(st, at.initial, plan.sweeps_per_iteration,
                               plan.max_initial_iterations, tolerance, plan.initial_update))
        hand_over(false);
    } else if (plan.initialization == "wang_landau") {
      while (!at.wang_landau.done(wang_landau_options)) {
        wang_landau_sweep(st, at.wang_landau, wang_landau_options);
        hand_over(false);
      }
      at.initial = wang_landau_result(at.wang_landau, wang_landau_options);
    }
    at.stage = TemperingStage::final_run;
    at.final_run = st.begin_run(plan.num_sweeps, plan.integrands);
    hand_over(false);
  }
  if (at.stage == TemperingStage::final_run) {
    // Without a journal, one piece; with one, pieces that double while they take under 0.1 s,
    // so that records come often without costing the run.
    std::size_t piece = journal ? 1 : plan.num_sweeps;
    while (at.final_run.sweeps_done < at.final_run.sweeps) {
      const auto start = Clock::now();
      st.continue_run(at.final_run, piece, at.initial.log_z_hat, progress);
      const bool quick = std::chrono::duration<double>(Clock::now() - start).count() < 0.1;
      if (journal && decided_by_rank0(ranks, quick)) piece *= 2;
      hand_over(false);
    }
    at.stage = TemperingStage::complete;
    hand_over(true);
  }
  return at;
}

}  // namespace logz
