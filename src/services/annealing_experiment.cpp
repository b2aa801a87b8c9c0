#include "logz/services/annealing_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "logz/config/memory_guard.hpp"

namespace logz {

namespace {

const Key kMethod =
    Key::enumeration("method", RunMethod::annealing,
                     "annealing (forward/reverse works), tempering (simulated tempering), "
                     "ground_state_integration (thermodynamic integration from the ground state) "
                     "or smc (adaptive tempered SMC)");
// The defaults of the keys that fill AnnealOptions are its own (anneal/annealer.hpp); those a
// model changes are RunDefaults'.
const Key kNumPaths =
    Key::integer("num_paths", static_cast<std::int64_t>(AnnealOptions{}.num_paths), 1, 1LL << 31,
                 "M: paths in each direction");
const Key kDirections =
    Key::string_list("directions", std::vector<std::string>{"forward", "reverse"},
                     {"forward", "reverse"}, "which annealing directions to run");
const Key kSeed = Key::integer("seed", static_cast<std::int64_t>(kDefaultSeed), 0, INT64_MAX,
                               "the Philox key of every random number of the run");
const Key kThreads = Key::integer("threads", AnnealOptions{}.threads, 0, 4096,
                                  "worker threads; 0: all hardware threads");
const Key kChunkSize = Key::integer(
    "chunk_size", RunDefaults{}.chunk_size, 1, 1 << 20,
    "particles per chunk (fixes the reduction order; results do not depend on threads)");
const Key kReverseStart =
    Key::choice("reverse_start", Computed{"the model's own start, else \"resampled\""}, {},
                "where reverse paths start: the model's exact or equilibrated start, or "
                "\"resampled\" (forward end points drawn by weight)");
// 10^7 sweeps of each of 100 reverse starts: hours on a 32 x 32 lattice, a day for an MNIST RBM.
const Key kEquilibrationSweeps =
    Key::integer("equilibration_sweeps", RunDefaults{}.equilibration_sweeps, 0, 10000000,
                 "sweeps at the target before reverse paths start (lattices; 100 for rbm)");
const Key kRepetitions =
    Key::integer("repetitions", 1, 1, 10000000,
                 "run the experiment this many times with seeds seed, seed + 1, ...");
const KeyGroup kRunKeys{"run",
                        "run",
                        {&kMethod, &kNumPaths, &kDirections, &kSeed, &kThreads, &kChunkSize,
                         &kReverseStart, &kEquilibrationSweeps, &kRepetitions}};

const Key kMethods = Key::string_list("methods",
                                      Computed{"ais, raise, bounds, bar (as the directions allow); "
                                               "tempering: rts, ts, ti_trapezoid, ti_rb"},
                                      {}, "the estimators to run (logz list shows them)");

// "tempering is for ising, potts, ...; ground_state_integration for ising and potts".
std::string methods_elsewhere(const std::vector<RunMethod>& supported) {
  std::string s;
  for (const MethodEntry& entry : method_registry()) {
    if (std::find(supported.begin(), supported.end(), entry.method) != supported.end()) continue;
    const std::string m = to_string(entry.method);
    std::string models;
    const auto names = model_names(m);
    for (std::size_t i = 0; i < names.size(); ++i)
      models += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    s += (s.empty() ? m + " is for " : "; " + m + " for ") + models;
  }
  return s;
}

}  // namespace

const KeyGroup& run_keys() { return kRunKeys; }
// methods, then the options the estimator registry's entries read (estimators.hpp).
const KeyGroup& estimator_keys() {
  static const KeyGroup keys = [] {
    KeyGroup g{"estimators", "estimators", {&kMethods}};
    g.keys.insert(g.keys.end(), estimator_option_keys().begin(), estimator_option_keys().end());
    return g;
  }();
  return keys;
}

RunMethod read_run_method(Config& config, const std::vector<RunMethod>& supported) {
  auto run = config.section("run");
  run.check_known({&kRunKeys});
  const RunMethod method = run.get_enum<RunMethod>(kMethod);
  if (std::find(supported.begin(), supported.end(), method) == supported.end()) {
    std::string allowed;
    for (std::size_t i = 0; i < supported.size(); ++i)
      allowed += (i == 0                      ? "\""
                  : i + 1 == supported.size() ? " or \""
                                              : ", \"") +
                 to_string(supported[i]) + "\"";
    run.fail(kMethod, allowed + " for this model (" + methods_elsewhere(supported) + ")");
  }
  return method;
}

SeedAndThreads read_seed_and_threads(Config& config) {
  auto run = config.section("run");
  return {static_cast<std::uint64_t>(run.get_int(kSeed)), static_cast<int>(run.get_int(kThreads))};
}

RunSettings read_run_settings(Config& config, const std::vector<std::string>& model_starts,
                              const RunDefaults& defaults) {
  RunSettings r;
  read_run_method(config,
                  {RunMethod::annealing});  // callers with other methods have dispatched on it
  auto run = config.section("run");
  r.num_paths = static_cast<std::size_t>(run.get_int(kNumPaths));
  const auto dirs = run.get_string_list(kDirections);
  r.forward = std::find(dirs.begin(), dirs.end(), "forward") != dirs.end();
  r.reverse = std::find(dirs.begin(), dirs.end(), "reverse") != dirs.end();
  // Each path's work, its copies in the estimators and its line of JSON: about 64 bytes.
  check_fits_in_memory(run, kNumPaths,
                       64.0 * static_cast<double>(r.num_paths) * static_cast<double>(dirs.size()),
                       "the works of the paths");
  r.seed = static_cast<std::uint64_t>(run.get_int(kSeed));
  r.threads = static_cast<int>(run.get_int(kThreads));
  const std::int64_t chunk_size = run.get_int(kChunkSize, defaults.chunk_size);
  if (chunk_size % defaults.chunk_multiple != 0)
    run.fail(kChunkSize, "a multiple of " + std::to_string(defaults.chunk_multiple) +
                             " with this kernel (it moves " +
                             std::to_string(defaults.chunk_multiple) + " paths at once)");
  r.chunk_size = static_cast<std::size_t>(chunk_size);
  std::vector<std::string> starts = model_starts;
  starts.push_back("resampled");
  r.reverse_start = run.get_string(kReverseStart.with_choices(starts), starts.front());
  r.equilibration_sweeps =
      static_cast<std::size_t>(run.get_int(kEquilibrationSweeps, defaults.equilibration_sweeps));

  auto est = config.section("estimators");
  est.check_known({&estimator_keys()});
  r.methods = est.get_string_list(kMethods.with_choices(estimator_names("works")),
                                  default_works_estimators(r.forward, r.reverse));
  const std::string missing = estimator_requirements(r.methods, r.forward, r.reverse);
  if (!missing.empty()) est.fail(kMethods, "methods that [run] directions allow: " + missing);
  const auto check_memory = [&](const Key& key, double bytes, const std::string& what) {
    check_fits_in_memory(est, key, bytes, what);
  };
  r.estimators = read_estimator_options(
      {[&](const Key& key) { return est.get_int(key); }, check_memory}, r.seed);
  return r;
}

PlannedBudget planned_annealing_budget(const RunSettings& run, const Schedule& schedule,
                                       std::uint64_t kernel_steps) {
  const bool forward = run.forward || (run.reverse && run.reverse_start == "resampled");
  const AdaptivePlan* plan = schedule.adaptive() ? &*schedule.adaptive() : nullptr;
  // The kernel runs at the K - 1 intermediate temperatures, as the report's budget counts.
  const std::size_t steps = plan ? plan->num_steps : schedule.num_steps();
  PlannedBudget b{.factors = {{std::uint64_t{forward} + std::uint64_t{run.reverse}, "directions"},
                              {run.num_paths, "paths"},
                              {steps - 1, "temperatures"}},
                  .unit = "path-temperatures",
                  .note = ""};
  if (kernel_steps > 0) {
    b.factors.push_back({kernel_steps, "kernel steps"});
    b.unit = "kernel steps";
  }
  if (plan)
    b.note =
        fmt::format("and a pilot of {} paths x {} steps", plan->pilot_paths, plan->pilot_steps);
  return b;
}

}  // namespace logz
