// The parts of an annealing experiment that every model shares: reading [run], [schedule] and
// [estimators], running forward and reverse annealing (with the model's own reverse start or
// forward end points resampled by weight), and handing the works to the estimators.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "logz/anneal/adaptive_schedule.hpp"
#include "logz/anneal/annealer.hpp"
#include "logz/anneal/resample.hpp"
#include "logz/config/config.hpp"
#include "logz/core/error.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/services/annealing_flags.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/run_budget.hpp"

namespace logz {

// The [run], [schedule] and [estimators] keys (the works estimators'; tempering reads its own).
const KeyGroup& run_keys();
const KeyGroup& schedule_keys();
const KeyGroup& estimator_keys();

// What reaches the annealer defaults to AnnealOptions' defaults (annealer.hpp), as the [run]
// keys do.
struct RunSettings {
  std::size_t num_paths = AnnealOptions{}.num_paths;
  bool forward = true, reverse = true;
  std::uint64_t seed = AnnealOptions{}.seed;
  int threads = AnnealOptions{}.threads;
  std::size_t chunk_size = AnnealOptions{}.chunk_size;
  std::string reverse_start;  // "resampled" or a model-specific start
  std::size_t equilibration_sweeps = 0;
  std::vector<std::string> methods;
  EstimatorOptions estimators;  // its seed is [run] seed

  AnnealOptions anneal_options() const {
    AnnealOptions o;
    o.num_paths = num_paths;
    o.seed = seed;
    o.threads = threads;
    o.chunk_size = chunk_size;
    return o;
  }
};

// What a model changes in the shared [run] defaults.
struct RunDefaults {
  std::int64_t equilibration_sweeps = 1000;  // sweeps of the reverse start at the target
  std::int64_t chunk_size = static_cast<std::int64_t>(AnnealOptions{}.chunk_size);
  // chunk_size must be a multiple of this (a kernel that moves this many paths at once).
  std::int64_t chunk_multiple = 1;
};

// [run] method, one of `supported` (the model's methods); the error for another names the
// models that have it.
RunMethod read_run_method(Config& config, const std::vector<RunMethod>& supported);

// [run] seed and threads, for the methods that read no other [run] key.
struct SeedAndThreads {
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;
};
SeedAndThreads read_seed_and_threads(Config& config);

// [run] and [estimators]; model_starts are the model's own reverse starts (the first is the
// default); "resampled" is always allowed.
RunSettings read_run_settings(Config& config, const std::vector<std::string>& model_starts,
                              const RunDefaults& defaults = {});

// [schedule] type = "linear" | "geometric" | "sigmoid" | "salakhutdinov" | "file" | "adaptive",
// num_steps, ...; type defaults to `default_type`, num_steps to `default_steps`.
Schedule read_schedule(Config& config,
                       std::int64_t default_steps = static_cast<std::int64_t>(kDefaultNumSteps),
                       const std::string& default_type = "linear");
// The continuous models' annealing runs place their temperatures adaptively unless told
// otherwise (issue 45: a linear schedule left a 50-d regression 7 nats off).
inline Schedule read_continuous_schedule(Config& config) {
  return read_schedule(config, static_cast<std::int64_t>(kDefaultNumSteps), "adaptive");
}

// The schedule a run anneals on: `schedule` itself, or for an adaptive one the schedule its
// pilot places (anneal/adaptive_schedule.hpp), the pilot described in result.pilot; the pilot
// stops once `stop` is requested.
template <class Path, class Kernel, class ModelStart>
Schedule resolve_schedule(const Path& path, const Kernel& kernel, const Schedule& schedule,
                          const RunSettings& run, const ModelStart& model_start,
                          const ProgressFn& progress, StopToken stop, RunResult& result) {
  if (!schedule.adaptive()) return schedule;
  const AdaptivePlan& plan = *schedule.adaptive();
  ChunkProgress pilot_progress;
  if (progress) pilot_progress = [&](std::size_t d, std::size_t n) { progress("pilot", d, n); };
  PilotRun pilot = run_schedule_pilot(path, kernel, plan, run.seed, run.threads, run.chunk_size,
                                      pilot_progress, stop);
  std::size_t reverse_paths = 0;
  if (plan.reverse_pilot && run.reverse && run.reverse_start != "resampled") {
    pilot = combine_pilots(
        pilot, run_reverse_schedule_pilot(path, kernel, plan, run.seed, run.threads, run.chunk_size,
                                          model_start, pilot_progress, stop));
    reverse_paths = plan.pilot_paths;
  }
  result.pilot = PilotSummary{plan, pilot.kernel_updates, thermodynamic_length(pilot.increment_sd),
                              reverse_paths};
  return constant_length_schedule(pilot.fractions, pilot.increment_sd, plan.num_steps);
}

// What an annealing run on `schedule` is about to do, said before it starts (run_budget.hpp):
// directions x paths x intermediate temperatures, times the kernel's steps per temperature
// where it has them.
PlannedBudget planned_annealing_budget(const RunSettings& run, const Schedule& schedule,
                                       std::uint64_t kernel_steps);

// The budget of an annealing run in `unit`s, each attempted kernel update costing
// units_per_update of them: the adaptive schedule's pilot, forward and reverse runs. Services
// add what else their runs spend (reverse starts, step-size pilots).
inline Budget annealing_budget(const RunResult& r, std::string unit,
                               std::uint64_t units_per_update = 1) {
  Budget b{.unit = std::move(unit), .parts = {}};
  if (r.pilot) b.parts.emplace_back("pilot", r.pilot->kernel_updates * units_per_update);
  if (r.forward) b.parts.emplace_back("forward", r.forward->kernel_updates * units_per_update);
  if (r.reverse) b.parts.emplace_back("reverse", r.reverse->kernel_updates * units_per_update);
  return b;
}

// Runs the directions asked for and the estimators on their works, with the context's progress,
// budget listener, journal, ranks and stop request. model_start(batch, streams) gives the model's
// own reverse start.
template <class Path, class Kernel, class ModelStart>
void anneal_and_estimate(const Path& path, const Kernel& kernel, const Schedule& given_schedule,
                         const RunSettings& run, const ModelStart& model_start,
                         const RunContext& context, RunResult& result) {
  const ProgressFn& progress = context.progress;
  std::uint64_t kernel_steps = 0;  // a kernel's steps_per_temperature, where it says
  if constexpr (requires { kernel.steps(); })
    kernel_steps = static_cast<std::uint64_t>(kernel.steps());
  context.announce(planned_annealing_budget(run, given_schedule, kernel_steps));
  const Schedule schedule = resolve_schedule(path, kernel, given_schedule, run, model_start,
                                             progress, context.stop, result);
  // Per-temperature truths a service computed on the pilot's schedule do not fit this one.
  if (result.equilibrium_energy.size() != schedule.size()) result.equilibrium_energy.clear();
  AnnealOptions options = run.anneal_options();
  options.journal = context.anneal_journal;
  options.ranks = context.ranks;
  options.stop = context.stop;
  const bool resampled = run.reverse_start == "resampled";
  std::vector<typename Path::Batch> finals;
  if (run.forward || (run.reverse && resampled)) {
    if (progress)
      options.progress = [&](std::size_t d, std::size_t n) { progress("forward", d, n); };
    result.forward = anneal_forward(path, kernel, schedule, options, resampled ? &finals : nullptr);
  }
  if (run.reverse) {
    if (progress)
      options.progress = [&](std::size_t d, std::size_t n) { progress("reverse", d, n); };
    if (resampled) {
      // Forward end points drawn by importance weight exp(-W_f): approximate target samples.
      std::vector<double> log_w(result.forward->works.size());
      for (std::size_t i = 0; i < log_w.size(); ++i) log_w[i] = -result.forward->works[i];
      RandomStream rng(run.seed, 0, Purpose::resample, 0);
      const auto idx = systematic_resample(log_w, run.num_paths, rng);
      auto start = [&](typename Path::Batch& batch, const ChunkStreams& streams) {
        const ChunkRange& c = streams.range();
        for (std::size_t i = 0; i < c.size(); ++i) {
          const std::size_t src = idx[c.begin + i];
          batch.copy_particle(finals[src / run.chunk_size], src % run.chunk_size, i);
        }
      };
      result.reverse = anneal_reverse(path, kernel, schedule, start, options);
    } else {
      result.reverse = anneal_reverse(path, kernel, schedule, model_start, options);
    }
  }
  // A forward run made only for the reverse starts is not reported, but its sampler is checked.
  std::optional<Works> starts_run;
  if (!run.forward) std::swap(starts_run, result.forward);
  EstimatorOptions estimators = run.estimators;
  estimators.stop = context.stop;
  result.estimates = run_estimators(run.methods, result.forward ? &result.forward->works : nullptr,
                                    result.reverse ? &result.reverse->works : nullptr, estimators);
  const Works* forward_run = result.forward ? &*result.forward
                             : starts_run   ? &*starts_run
                                            : nullptr;
  flag_annealing_estimates(result.estimates, forward_run,
                           result.reverse ? &*result.reverse : nullptr,
                           acceptance_tracks_step_size<Kernel>, run.reverse && resampled);
}

// [run] method = "annealing" (services/method_list.hpp): the family's own annealing, which knows
// its reverse starts. Its keys ([run], [schedule], [estimators]) every model reads.
struct AnnealingMethod {
  static constexpr RunMethod kId = RunMethod::annealing;
  static constexpr const char* kSummary =
      "annealed importance sampling forward (and reverse) along a schedule";
  static constexpr const char* kDocs = "docs/config.md";
  static constexpr bool kCheckpoints = true;
  static const KeyGroup* keys() { return nullptr; }

  template <class Setup>
  static constexpr bool runs_on = requires(const Setup& s, Config& config,
                                           const RunContext& context, RunResult& result) {
    s.anneal(config, context, result);
  };
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    s.anneal(config, context, result);
  }
};

}  // namespace logz
