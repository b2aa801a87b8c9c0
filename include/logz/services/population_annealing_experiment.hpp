// `logz run` with [run] method = "population_annealing": population annealing
// (smc/population_annealing.hpp) along a lattice model's path with the configured kernel, its
// settings read from [population_annealing] (seed and threads from [run]), the estimate, its
// temperatures and families recorded in the result.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "logz/config/config.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/method_setup.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"
#include "logz/services/run_budget.hpp"
#include "logz/smc/population_annealing.hpp"

namespace logz {

// The [population_annealing] keys; their defaults are PopulationAnnealingOptions' own.
const KeyGroup& population_annealing_keys();

// [population_annealing] and [run] seed and threads. chunk_multiple: replicas per chunk must be a
// multiple of it (64 for the multi-spin kernels); bytes_per_replica: the memory check.
PopulationAnnealingOptions read_population_annealing_options(Config& config,
                                                             std::size_t chunk_multiple,
                                                             double bytes_per_replica);

// The estimate (evidence log Z_1 / Z_0), the population's temperatures and families
// (result.kernel's "population_annealing") and the kernel's updates spent (result.budget, in
// `update_unit`: "site update" for the lattice kernels, "Gibbs sweep" for an RBM's).
void record_population_annealing_result(const PopulationAnnealingResult& r,
                                        const PopulationAnnealingOptions& options,
                                        RunResult& result, const char* update_unit = "site update");

// A replica's sites (lattice models) or units (the pairwise MRF; an RBM's visible and hidden
// units): what the memory check counts.
template <class Path>
double replica_sites(const Path& path) {
  if constexpr (requires { path.num_sites(); }) {
    return static_cast<double>(path.num_sites());
  } else if constexpr (requires { path.make_batch(1).num_units(); }) {
    return static_cast<double>(path.make_batch(1).num_units());
  } else {
    const auto b = path.make_batch(1);
    return static_cast<double>(b.visible().rows() + b.hidden().rows());
  }
}

// Population annealing on `path` with `kernel` and [population_annealing] from config, the
// context's progress (path fraction reached, in thousandths) and stop request; the answer into
// result.
template <class Path, class Kernel>
void population_anneal_and_estimate(const Path& path, const Kernel& kernel, Config& config,
                                    const RunContext& context, RunResult& result,
                                    std::size_t chunk_multiple = 1) {
  PopulationAnnealingOptions options =
      read_population_annealing_options(config, chunk_multiple, 16.0 * replica_sites(path));
  options.journal = context.smc_journal;
  options.ranks = context.ranks;
  context.announce({.factors = {{options.num_replicas, "replicas"}},
                    .unit = "replicas",
                    .note = "moved at adaptive temperatures"});
  options.stop = context.stop;
  if (context.progress)
    options.progress = [&context](const PopulationAnnealingStage& stage) {
      context.progress("population annealing [per mille of the path]",
                       static_cast<std::size_t>(std::floor(stage.temperature * 1000.0)), 1000);
    };
  constexpr bool rbm = requires { path.make_batch(1).visible(); };
  record_population_annealing_result(population_annealing(path, kernel, options), options, result,
                                     rbm ? "Gibbs sweep" : "site update");
}

// A path whose replicas are sites or units (lattice models, the pairwise MRF, an RBM's layers)
// that resampling can copy: the discrete models population annealing is for.
template <class Path>
concept DiscreteReplicas = ResamplableBatch<typename Path::Batch> &&(
    requires(const Path& path) { path.num_sites(); } ||
    requires(const Path& path) { path.make_batch(1).num_units(); } ||
    requires(const Path& path) { path.make_batch(1).visible(); });

// [run] method = "population_annealing" (services/method_list.hpp): on a setup with kernels whose
// path is discrete.
struct PopulationAnnealingMethod {
  static constexpr RunMethod kId = RunMethod::population_annealing;
  static constexpr const char* kSummary =
      "population annealing: replicas resampled at adaptive temperatures (lattice models, "
      "pairwise MRFs, RBMs; [population_annealing])";
  static constexpr const char* kDocs = "docs/population_annealing.md";
  static constexpr bool kCheckpoints = true;
  static const KeyGroup* keys() { return &population_annealing_keys(); }

  template <class Setup>
  static constexpr bool runs_on =
      PathKernelSetup<Setup> || (KernelSetup<Setup> && requires(const Setup& s) {
        requires DiscreteReplicas<std::remove_cvref_t<decltype(s.path())>>;
      });
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    if constexpr (PathKernelSetup<Setup>) {
      // The RBM's paths (the setup refuses the ones it cannot run: marginal_h).
      s.with_path_and_kernel(
          kId, config, context, result, [&](const auto& path, const auto& kernel) {
            if constexpr (DiscreteReplicas<std::remove_cvref_t<decltype(path)>>)
              population_anneal_and_estimate(path, kernel, config, context, result);
            else
              throw std::logic_error("logz::PopulationAnnealingMethod: a path without replicas");
          });
    } else {
      s.with_kernel(kId, config, result, [&](const auto& kernel) {
        population_anneal_and_estimate(s.path(), kernel, config, context, result);
      });
    }
  }
};

}  // namespace logz
