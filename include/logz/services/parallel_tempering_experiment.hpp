// `logz run` with [run] method = "parallel_tempering": parallel tempering
// (tempering/parallel_tempering.hpp) on a model's tempering path with the configured kernel, its
// settings read from [pt] (seed and threads from [run]); the tempered estimators of the last
// round (stepping stone, TI, MBAR) into result.estimates, the ladder into result.tempering and the
// swaps' diagnostics into result.details "pt".
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "logz/config/config.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/method_setup.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "logz/tempering/parallel_tempering.hpp"

namespace logz {

// The [pt] keys; their defaults are ParallelTemperingOptions' own.
const KeyGroup& parallel_tempering_keys();

struct ParallelTemperingSettings {
  ParallelTemperingOptions options;
  std::vector<std::string> estimators;  // tempered estimators of the last round
};

// [pt] and [run] seed and threads; bytes_per_replica and level_energies (a path whose samples
// carry every level's energy): the memory check.
ParallelTemperingSettings read_parallel_tempering_settings(Config& config, double bytes_per_replica,
                                                           bool level_energies);

// The estimates, the ladder (result.tempering), the diagnostics (result.details "pt") and the
// updates spent (result.budget, in `unit`). check_acceptance (a kernel whose acceptance tracks
// its step size, services/annealing_flags.hpp): a replica whose kernel accepted below
// kFrozenAcceptance flags every estimate frozen_sampler. `progress` hears of each estimator as it
// starts (MBAR over a long run's samples may take minutes).
void record_parallel_tempering_result(const ParallelTemperingResult& r,
                                      const ParallelTemperingSettings& s, const std::string& unit,
                                      bool check_acceptance, const ProgressFn& progress,
                                      RunResult& result);

// A replica's size for the memory check: sites or units, else one.
template <class Path>
double pt_replica_bytes(const Path& path) {
  if constexpr (requires { path.num_sites(); })
    return 8.0 * static_cast<double>(path.num_sites());
  else if constexpr (requires { path.dim(); })
    return 8.0 * static_cast<double>(path.dim());
  else
    return 64.0;
}

namespace detail {

template <class Path>
void parallel_temper_and_estimate(const Path& path, const PtLevelMove<Path>& move,
                                  bool check_acceptance, Config& config, const RunContext& context,
                                  RunResult& result) {
  ParallelTemperingSettings s =
      read_parallel_tempering_settings(config, pt_replica_bytes(path), uses_level_energies<Path>);
  const std::size_t scans = (std::size_t{2} << s.options.rounds) - 2;
  context.announce({.factors = {{s.options.num_chains, "chains"}, {scans, "scans"}},
                    .unit = "chain-scans",
                    .note = "of every replica, over rounds of doubling length"});
  s.options.stop = context.stop;
  s.options.ranks = context.ranks;
  s.options.journal = tempering_journal_for<typename Path::Batch>(context.pt_journal);
  if (context.progress)
    s.options.progress = [&context, &s](std::size_t round, std::size_t rounds) {
      // Scans done: round r ends after 2^(r+1) - 2 of them.
      context.progress("parallel tempering [scans]", (std::size_t{2} << round) - 2,
                       (std::size_t{2} << rounds) - 2);
    };
  const char* unit = requires { path.num_sites(); }
  ? "site update" : "move";
  record_parallel_tempering_result(parallel_tempering(path, move, s.options), s, unit,
                                   check_acceptance, context.progress, result);
}

}  // namespace detail

// Parallel tempering of the path with the kernel, [pt] read from config, its estimates into result.
template <class Path, class Kernel>
void parallel_temper_and_estimate(const Path& path, const Kernel& kernel, Config& config,
                                  const RunContext& context, RunResult& result) {
  detail::parallel_temper_and_estimate(path, pt_level_move(path, kernel),
                                       acceptance_tracks_step_size<Kernel>, config, context,
                                       result);
}

// [run] method = "parallel_tempering" (services/method_list.hpp): on a setup with kernels whose
// path tempers (every lattice model, the pairwise MRF, the continuous models, a Python
// logz.Target), or whose config chooses among paths (the RBM's full and marginal_v paths).
struct ParallelTemperingMethod {
  static constexpr RunMethod kId = RunMethod::parallel_tempering;
  static constexpr const char* kSummary =
      "parallel tempering: non-reversible swaps, an adaptive ladder, stepping stone / TI / MBAR "
      "([pt])";
  static constexpr const char* kDocs = "docs/parallel_tempering.md";
  static constexpr bool kCheckpoints = true;
  static const KeyGroup* keys() { return &parallel_tempering_keys(); }

  template <class Setup>
  static constexpr bool runs_on =
      PathKernelSetup<Setup> || (KernelSetup<Setup> && requires(const Setup& s) {
        requires is_geometric_path<std::remove_cvref_t<decltype(s.path())>>;
      });
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    if constexpr (PathKernelSetup<Setup>) {
      // The setup refuses the paths tempering cannot run on (it names them).
      s.with_path_and_kernel(
          kId, config, context, result, [&](const auto& path, const auto& kernel) {
            if constexpr (TemperingPath<std::remove_cvref_t<decltype(path)>>)
              parallel_temper_and_estimate(path, kernel, config, context, result);
            else
              throw std::logic_error("logz::ParallelTemperingMethod: a path it cannot temper");
          });
    } else if constexpr (requires {
                           s.with_ladder_kernel(kId, config, result, [](const auto&) {});
                         }) {
      // A kernel whose step size follows the path (the continuous models).
      s.with_ladder_kernel(kId, config, result, [&](const auto& kernel) {
        parallel_temper_and_estimate(s.path(), kernel, config, context, result);
      });
    } else {
      s.with_kernel(kId, config, result, [&](const auto& kernel) {
        parallel_temper_and_estimate(s.path(), kernel, config, context, result);
      });
    }
  }
};

}  // namespace logz
