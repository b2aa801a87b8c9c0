#include "logz/services/tempering_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "logz/services/annealing_experiment.hpp"
#include "logz/services/registry.hpp"

namespace logz {

namespace {

// The defaults of the keys that fill TemperingOptions and TemperingRunPlan are theirs
// (tempering/simulated_tempering.hpp, tempering/tempering_run.hpp); chunk_size's, which a model
// changes, TemperingDefaults'; prior_slope's TemperingSettings'.
const Key kNumTemperatures =
    Key::integer("num_temperatures", 100, 2, 1000000, "K: levels of the ladder");
const Key kNumChains =
    Key::integer("num_chains", static_cast<std::int64_t>(TemperingOptions{}.num_chains), 1, 1 << 24,
                 "independent tempered chains");
const Key kPrior =
    Key::choice("prior", std::string("uniform"), {"uniform", "exponential"},
                "the prior over levels r_k (exponential: r_k ~ exp(prior_slope t_k))");
const Key kPriorSlope = Key::number("prior_slope", TemperingSettings{}.prior_slope, -1e3, 1e3,
                                    "the exponential prior's slope");
const Key kInitialization =
    Key::choice("initialization", std::string("iterations"), {"iterations", "wang_landau", "none"},
                "how log Zhat_k are set before the final run (Carlson et al. 2016, section 2.4)");
const Key kInitialUpdate =
    Key::enumeration("initial_update", InitialUpdate::rts, "the update of the initial iterations");
// Sweeps of 100 chains at 1000 updates each: 10^8 final sweeps take about a day on one core,
// 50 initial iterations of 10^6 half a day, and so do 10^6 iterations of the default 50.
const Key kMaxInitialIterations =
    Key::integer("max_initial_iterations", TemperingRunPlan{}.max_initial_iterations, 1, 1000000,
                 "at most this many initial iterations");
const Key kSweepsPerIteration = Key::integer(
    "sweeps_per_iteration", static_cast<std::int64_t>(TemperingRunPlan{}.sweeps_per_iteration), 1,
    1000000, "sweeps of each initial iteration");
const Key kTolerance =
    Key::number("tolerance", TemperingRunPlan{}.tolerance, 0.0, 1.0,
                "the stopping rule max_k |r_k - c_k| < tolerance; 0: the paper's 0.1 / K");
const Key kNumSweeps =
    Key::integer("num_sweeps", static_cast<std::int64_t>(TemperingRunPlan{}.num_sweeps), 1,
                 100000000, "sweeps of the final run");
const Key kChunkSize = Key::integer("chunk_size", TemperingDefaults{}.chunk_size, 1, 1 << 20,
                                    "chains per chunk (4; rbm: 50, one GEMM)");
const KeyGroup kTemperingKeys{
    "tempering",
    "tempering",
    {&kNumTemperatures, &kNumChains, &kPrior, &kPriorSlope, &kInitialization, &kInitialUpdate,
     &kMaxInitialIterations, &kSweepsPerIteration, &kTolerance, &kNumSweeps, &kChunkSize}};

}  // namespace

const KeyGroup& tempering_keys() { return kTemperingKeys; }

TemperingSettings read_tempering_settings(Config& config, bool geometric,
                                          const TemperingDefaults& defaults) {
  TemperingSettings s;
  auto t = config.section("tempering");
  t.check_known({&kTemperingKeys});
  const auto k = t.get_int(kNumTemperatures);
  s.options.num_chains = static_cast<std::size_t>(t.get_int(kNumChains));
  s.options.chunk_size = static_cast<std::size_t>(t.get_int(kChunkSize, defaults.chunk_size));
  s.prior = t.get_string(kPrior);
  s.prior_slope = t.get_double(kPriorSlope);
  s.initialization = t.get_string(kInitialization);
  s.initial_update = t.get_enum<InitialUpdate>(kInitialUpdate);
  s.max_initial_iterations = static_cast<int>(t.get_int(kMaxInitialIterations));
  s.sweeps_per_iteration = static_cast<std::size_t>(t.get_int(kSweepsPerIteration));
  s.tolerance = t.get_double(kTolerance);
  s.num_sweeps = static_cast<std::size_t>(t.get_int(kNumSweeps));

  const SeedAndThreads st = read_seed_and_threads(config);
  s.options.seed = st.seed;
  s.options.threads = st.threads;

  auto est = config.section("estimators");
  const Key& methods = *estimator_keys().keys.front();
  s.methods = est.get_string_list(methods.with_choices(estimator_names("tempered")),
                                  default_estimator_names("tempered"));
  if (!geometric &&
      std::find(s.methods.begin(), s.methods.end(), "ti_corrected") != s.methods.end())
    est.fail(methods,
             "no \"ti_corrected\" on a path not linear in beta (it needs a geometric path)");
  // What the final run records: only what some named estimator reads (the registry says which).
  const auto any_needs = [&](bool EstimatorEntry::*need) {
    return std::any_of(s.methods.begin(), s.methods.end(),
                       [&](const std::string& m) { return find_estimator(m).*need; });
  };
  s.options.record_samples = any_needs(&EstimatorEntry::needs_samples);
  s.integrands = any_needs(&EstimatorEntry::needs_integrands);

  const Schedule betas = read_schedule(config, k - 1);
  if (betas.adaptive())
    config.section("schedule")
        .fail(*schedule_keys().keys.front(),
              "a fixed ladder with [run] method = \"tempering\" (\"adaptive\" places annealing "
              "schedules)");
  s.ladder = s.prior == "uniform" ? TemperingLadder(betas)
                                  : exponential_prior_ladder(betas, s.prior_slope);
  return s;
}

TemperingSummary tempering_summary(const TemperingRecord& at, const TemperingSettings& s) {
  TemperingSummary summary;
  summary.initialization = s.initialization;
  if (s.initialization == "iterations") {
    summary.iterations = at.initial.iterations;
    summary.converged = at.initial.converged;
    summary.tolerance = s.tolerance > 0 ? s.tolerance : 0.1 / static_cast<double>(s.ladder.size());
    summary.iteration_deviations = at.initial.deviations;
  } else if (s.initialization == "wang_landau") {
    summary.stages = at.initial.iterations;
    summary.converged = at.initial.converged;
  }
  summary.log_z_hat_initial = at.initial.log_z_hat;
  summary.num_chains = s.options.num_chains;
  summary.num_sweeps = s.num_sweeps;
  return summary;
}

void tempering_estimates(const TemperingStats& stats, const TemperingSettings& s,
                         std::span<const double> log_z_hat, const ProgressFn& progress,
                         RunResult& result) {
  TemperingSummary& t = *result.tempering;
  // RTS is cheap from the statistics; it is also MBAR's warm start.
  const LadderEstimates rts = rts_ladder(stats, log_z_hat, s.ladder.log_prior());
  for (std::size_t i = 0; i < s.methods.size(); ++i) {
    const std::string& m = s.methods[i];
    report_estimator_progress(progress, s.methods, i);
    const LadderEstimates e = run_tempered_estimator(m, stats, s.ladder, log_z_hat, rts,
                                                     s.options.threads, s.options.stop);
    result.estimates.push_back(e.last);
    t.levels.push_back({m, e.log_z, e.std_error, e.bias});
  }
  report_estimator_progress(progress, s.methods, s.methods.size());
  t.ladder.assign(s.ladder.fractions().begin(), s.ladder.fractions().end());
  t.log_c = stats.log_c();
  t.counts = stats.counts();
  t.max_level_deviation = max_level_deviation(t.log_c, s.ladder.log_prior());
  if (stats.kernel_attempted > 0) {
    t.kernel_acceptance = stats.kernel_acceptance();
    t.level_acceptance = stats.kernel_level_acceptance();
  }
  t.mean_energy = stats.mean_energy();
}

PlannedBudget planned_tempering_budget(const TemperingSettings& s) {
  PlannedBudget b{.factors = {{s.options.num_chains, "chains"}, {s.num_sweeps, "sweeps"}},
                  .unit = "chain-sweeps",
                  .note = ""};
  if (s.initialization == "iterations")
    b.note = fmt::format("after initial iterations of up to {} x {} sweeps",
                         s.max_initial_iterations, s.sweeps_per_iteration);
  else if (s.initialization == "wang_landau")
    b.note = "after the Wang-Landau sweeps";
  return b;
}

}  // namespace logz
