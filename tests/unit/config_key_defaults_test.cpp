// Every default has one home: a config key that fills a field of a library struct (AnnealOptions,
// TemperingOptions, HistogramPosteriorOptions, ...) shows that struct's default, and a config
// that leaves the key out runs with it. The keys are found by name, as `logz list` shows them,
// so a key that restates a number the struct has, and one day differs from it, fails here.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>

#include "logz/anneal/annealer.hpp"
#include "logz/config/config.hpp"
#include "logz/equilibrium/ground_state_integration.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/samplers/hmc_sampler.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/ground_state_experiment.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/smc_experiment.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "logz/smc/smc_options.hpp"
#include "logz/tempering/simulated_tempering.hpp"
#include "logz/tempering/tempering_run.hpp"
#include "logz/training/rbm_log_z_tracker.hpp"
#include "logz/training/rbm_trainer.hpp"
#include "logz/training_app/rbm_evaluation.hpp"
#include "logz/training_app/rbm_tracking.hpp"
#include "logz/training_app/rbm_training.hpp"

namespace {

const logz::Key& key_named(const logz::KeyGroup& group, const std::string& name) {
  for (const logz::Key* k : group.keys)
    if (k->name() == name) return *k;
  throw std::runtime_error("no key " + name + " in [" + group.section + "] of " + group.owner);
}

std::int64_t int_default(const logz::KeyGroup& group, const std::string& name) {
  return std::get<std::int64_t>(key_named(group, name).fallback());
}

double number_default(const logz::KeyGroup& group, const std::string& name) {
  return std::get<double>(key_named(group, name).fallback());
}

// The first group of [section] that some registered model reads (section "kernel": a kernel's).
const logz::KeyGroup& registered_group(const std::string& section, const std::string& owner) {
  for (const auto& m : logz::model_registry()) {
    for (const auto* g : m.keys)
      if (g->section == section && g->owner == owner) return *g;
    for (const auto* g : m.sample_keys)
      if (g->section == section && g->owner == owner) return *g;
    for (const auto& k : m.kernels)
      if (k.keys && k.keys->section == section && k.keys->owner == owner) return *k.keys;
  }
  throw std::runtime_error("no registered group [" + section + "] of " + owner);
}

const logz::KeyGroup& training_group(const std::string& section) {
  for (const auto* g : logz::rbm_training_keys())
    if (g->section == section) return *g;
  throw std::runtime_error("no [" + section + "] in train rbm's keys");
}

logz::Config empty_config() { return logz::Config::from_toml("", "empty.toml"); }

template <class T>
std::int64_t as_int(T value) {
  return static_cast<std::int64_t>(value);
}

TEST(ConfigKeyDefaults, RunKeysAreTheAnnealersDefaults) {
  const logz::AnnealOptions anneal;
  const auto& run = logz::run_keys();
  EXPECT_EQ(int_default(run, "num_paths"), as_int(anneal.num_paths));
  EXPECT_EQ(int_default(run, "chunk_size"), as_int(anneal.chunk_size));
  EXPECT_EQ(int_default(run, "threads"), as_int(anneal.threads));
  EXPECT_EQ(int_default(run, "seed"), as_int(anneal.seed));
  EXPECT_EQ(int_default(run, "seed"), as_int(logz::kDefaultSeed));
  EXPECT_EQ(int_default(run, "equilibration_sweeps"), logz::RunDefaults{}.equilibration_sweeps);

  // A config that says nothing anneals with AnnealOptions' defaults.
  auto config = empty_config();
  const logz::RunSettings read = logz::read_run_settings(config, {"exact"});
  const logz::AnnealOptions o = read.anneal_options();
  EXPECT_EQ(o.num_paths, anneal.num_paths);
  EXPECT_EQ(o.chunk_size, anneal.chunk_size);
  EXPECT_EQ(o.threads, anneal.threads);
  EXPECT_EQ(o.seed, anneal.seed);
  const logz::RunSettings unread;
  EXPECT_EQ(unread.anneal_options().num_paths, anneal.num_paths);
  EXPECT_EQ(unread.anneal_options().chunk_size, anneal.chunk_size);
  EXPECT_EQ(unread.seed, anneal.seed);
  EXPECT_EQ(logz::SeedAndThreads{}.seed, logz::kDefaultSeed);
}

TEST(ConfigKeyDefaults, EstimatorKeysAreTheEstimatorsDefaults) {
  const logz::HistogramPosteriorOptions posterior;
  const auto& est = logz::estimator_keys();
  EXPECT_EQ(int_default(est, "posterior_draws"), as_int(posterior.num_draws));
  EXPECT_EQ(int_default(est, "posterior_burn_in"), as_int(posterior.burn_in));
  EXPECT_EQ(int_default(est, "histogram_bins"), as_int(logz::HistogramOptions{}.bins));
  EXPECT_EQ(posterior.seed, logz::kDefaultSeed);

  auto config = empty_config();
  const logz::EstimatorOptions read = logz::read_run_settings(config, {"exact"}).estimators;
  EXPECT_EQ(read.posterior_draws, posterior.num_draws);
  EXPECT_EQ(read.posterior_burn_in, posterior.burn_in);
  EXPECT_EQ(read.seed, posterior.seed);
}

TEST(ConfigKeyDefaults, ScheduleKeysAreTheSchedulesDefaults) {
  const auto& schedule = logz::schedule_keys();
  const logz::AdaptivePlan plan;
  EXPECT_EQ(int_default(schedule, "num_steps"), as_int(logz::kDefaultNumSteps));
  EXPECT_EQ(plan.num_steps, logz::kDefaultNumSteps);
  EXPECT_EQ(int_default(schedule, "pilot_paths"), as_int(plan.pilot_paths));
  EXPECT_EQ(int_default(schedule, "pilot_steps"), as_int(plan.pilot_steps));
  EXPECT_EQ(std::get<bool>(key_named(schedule, "pilot_reverse").fallback()), plan.reverse_pilot);
  EXPECT_EQ(number_default(schedule, "beta_min"), logz::kDefaultGeometricTMin);
  EXPECT_EQ(number_default(schedule, "steepness"), logz::kDefaultSigmoidSteepness);

  // read_schedule's K where [schedule] gives none is the key's.
  auto config = empty_config();
  EXPECT_EQ(logz::read_schedule(config).num_steps(), logz::kDefaultNumSteps);
  // The default arguments are the keys': the same fractions as the schedules a config names.
  const auto geometric = logz::geometric_schedule(10);
  const auto geometric_given = logz::geometric_schedule(10, number_default(schedule, "beta_min"));
  EXPECT_EQ(geometric[1], geometric_given[1]);
  const auto sigmoid = logz::sigmoid_schedule(10);
  const auto sigmoid_given = logz::sigmoid_schedule(10, number_default(schedule, "steepness"));
  EXPECT_EQ(sigmoid[1], sigmoid_given[1]);
}

TEST(ConfigKeyDefaults, TemperingKeysAreTheTemperingDriversDefaults) {
  const logz::TemperingOptions options;
  const logz::TemperingRunPlan plan;
  const auto& t = logz::tempering_keys();
  EXPECT_EQ(int_default(t, "num_chains"), as_int(options.num_chains));
  EXPECT_EQ(int_default(t, "chunk_size"), as_int(options.chunk_size));
  EXPECT_EQ(int_default(t, "max_initial_iterations"), as_int(plan.max_initial_iterations));
  EXPECT_EQ(int_default(t, "sweeps_per_iteration"), as_int(plan.sweeps_per_iteration));
  EXPECT_EQ(int_default(t, "num_sweeps"), as_int(plan.num_sweeps));
  EXPECT_EQ(number_default(t, "tolerance"), plan.tolerance);
  EXPECT_EQ(options.seed, logz::kDefaultSeed);

  auto config = empty_config();
  const logz::TemperingSettings read = logz::read_tempering_settings(config, true);
  EXPECT_EQ(read.options.num_chains, options.num_chains);
  EXPECT_EQ(read.options.chunk_size, options.chunk_size);
  EXPECT_EQ(read.options.seed, options.seed);
  EXPECT_EQ(read.max_initial_iterations, plan.max_initial_iterations);
  EXPECT_EQ(read.sweeps_per_iteration, plan.sweeps_per_iteration);
  EXPECT_EQ(read.num_sweeps, plan.num_sweeps);
  EXPECT_EQ(read.tolerance, plan.tolerance);
  const logz::TemperingSettings unread;
  EXPECT_EQ(unread.max_initial_iterations, plan.max_initial_iterations);
  EXPECT_EQ(unread.sweeps_per_iteration, plan.sweeps_per_iteration);
  EXPECT_EQ(unread.num_sweeps, plan.num_sweeps);
  EXPECT_EQ(number_default(t, "prior_slope"), unread.prior_slope);
}

TEST(ConfigKeyDefaults, SmcKeysAreSmcOptionsDefaults) {
  const logz::SmcOptions options;
  const auto& s = logz::smc_keys();
  auto string_default = [&](const std::string& name) {
    return std::get<std::string>(key_named(s, name).fallback());
  };
  EXPECT_EQ(int_default(s, "num_particles"), as_int(options.num_particles));
  EXPECT_EQ(number_default(s, "cess_target"), options.cess_target);
  EXPECT_EQ(number_default(s, "resample_threshold"), options.resample_threshold);
  EXPECT_EQ(string_default("resampling"), logz::to_string(options.resampling));
  EXPECT_EQ(string_default("move"), logz::to_string(options.move));
  EXPECT_EQ(int_default(s, "leapfrog_steps"), options.leapfrog_steps);
  EXPECT_EQ(string_default("preconditioner"), logz::to_string(options.preconditioner));
  EXPECT_EQ(number_default(s, "decorrelation"), options.decorrelation);
  EXPECT_EQ(int_default(s, "min_moves"), options.min_moves);
  EXPECT_EQ(int_default(s, "max_moves"), options.max_moves);
  EXPECT_EQ(int_default(s, "max_temperatures"), as_int(options.max_temperatures));
  EXPECT_EQ(number_default(s, "frozen_acceptance"), options.frozen_acceptance);
  EXPECT_EQ(options.seed, logz::kDefaultSeed);

  // A config without [smc] runs with SmcOptions' defaults (seed and threads: [run]'s).
  auto config = empty_config();
  const logz::SmcOptions read = logz::read_smc_options(config, 10);
  EXPECT_EQ(read.num_particles, options.num_particles);
  EXPECT_EQ(read.cess_target, options.cess_target);
  EXPECT_EQ(read.resample_threshold, options.resample_threshold);
  EXPECT_EQ(read.resampling, options.resampling);
  EXPECT_EQ(read.move, options.move);
  EXPECT_EQ(read.leapfrog_steps, options.leapfrog_steps);
  EXPECT_EQ(read.preconditioner, options.preconditioner);
  EXPECT_EQ(read.decorrelation, options.decorrelation);
  EXPECT_EQ(read.min_moves, options.min_moves);
  EXPECT_EQ(read.max_moves, options.max_moves);
  EXPECT_EQ(read.max_temperatures, options.max_temperatures);
  EXPECT_EQ(read.frozen_acceptance, options.frozen_acceptance);
  EXPECT_EQ(read.seed, options.seed);
  EXPECT_EQ(read.chunk_size, options.chunk_size);
  // The group is the one the models that run smc read.
  EXPECT_EQ(&registered_group("smc", "smc"), &s);
}

TEST(ConfigKeyDefaults, RbmKeysAreTheRbmStructsDefaults) {
  const logz::RbmAisSettings ais;
  for (const std::string prefix : {"", "ais_"}) {
    const logz::KeyGroup g{"evaluate", "rbm ais", logz::rbm_ais_keys(prefix)};
    EXPECT_EQ(int_default(g, prefix + "num_paths"), ais.num_paths);
    EXPECT_EQ(int_default(g, prefix + "num_steps"), ais.num_steps);
    EXPECT_EQ(int_default(g, prefix + "seed"), ais.seed);
  }
  EXPECT_EQ(ais.num_paths, as_int(logz::AnnealOptions{}.num_paths));
  EXPECT_EQ(ais.seed, as_int(logz::kDefaultSeed));
  auto config = empty_config();
  auto evaluate = config.section("evaluate");
  const logz::RbmAisSettings read = logz::read_rbm_ais_settings(evaluate);
  EXPECT_EQ(read.num_paths, ais.num_paths);
  EXPECT_EQ(read.num_steps, ais.num_steps);
  EXPECT_EQ(read.seed, ais.seed);

  EXPECT_EQ(int_default(registered_group("model", "rbm"), "exact_max_units"),
            logz::exact::kRbmExactMaxUnitsDefault);
  EXPECT_EQ(ais.exact_max_units, logz::exact::kRbmExactMaxUnitsDefault);

  const logz::RbmTrainingOptions training;
  const auto& tr = training_group("training");
  EXPECT_EQ(int_default(tr, "k"), training.k);
  EXPECT_EQ(int_default(tr, "batch_size"), training.batch_size);
  EXPECT_EQ(number_default(tr, "learning_rate"), training.learning_rate);
  EXPECT_EQ(number_default(tr, "momentum"), training.momentum);
  EXPECT_EQ(number_default(tr, "weight_decay"), training.weight_decay);
  EXPECT_EQ(int_default(tr, "epochs"), training.epochs);
  EXPECT_EQ(number_default(tr, "init_sd"), training.init_sd);
  EXPECT_EQ(int_default(tr, "seed"), as_int(training.seed));
  EXPECT_EQ(training.seed, logz::kDefaultSeed);

  const logz::RbmTrackingSettings tracking;
  const logz::RbmLogZTrackerOptions& tracker = tracking.tracker;
  const auto& tk = logz::tracking_keys();
  EXPECT_EQ(int_default(tk, "num_temperatures"), as_int(tracker.num_temperatures));
  EXPECT_EQ(number_default(tk, "prior_slope"), tracker.prior_slope);
  EXPECT_EQ(int_default(tk, "num_chains"), as_int(tracker.num_chains));
  EXPECT_EQ(int_default(tk, "sweeps"), as_int(tracker.sweeps));
  EXPECT_EQ(number_default(tk, "alpha"), tracker.alpha);
  EXPECT_EQ(int_default(tk, "initial_sweeps"), as_int(tracker.initial_sweeps));
  EXPECT_EQ(int_default(tk, "max_initial_iterations"), tracker.max_initial_iterations);
  EXPECT_EQ(int_default(tk, "seed"), as_int(tracker.seed));
  EXPECT_EQ(int_default(tk, "threads"), tracker.threads);
  EXPECT_EQ(int_default(tk, "chunk_size"), as_int(tracker.chunk_size));
  EXPECT_EQ(std::get<std::string>(key_named(tk, "precision").fallback()),
            tracker.single_precision ? "float" : "double");
  EXPECT_EQ(int_default(tk, "every"), tracking.every);
  EXPECT_EQ(int_default(tk, "ais_every"), tracking.ais_every);
  EXPECT_EQ(int_default(tk, "exact_max_units"), tracking.exact_max_units);
}

TEST(ConfigKeyDefaults, SamplerAndContinuousKernelKeysAreTheirStructsDefaults) {
  const logz::HmcSamplerOptions sampler;
  const auto& s = registered_group("sampler", "sampler");
  EXPECT_EQ(int_default(s, "burn_in"), as_int(sampler.burn_in));
  EXPECT_EQ(int_default(s, "num_draws"), as_int(sampler.num_draws));
  EXPECT_EQ(number_default(s, "initial_step_size"), sampler.initial_step_size);
  EXPECT_EQ(int_default(s, "leapfrog_steps"), sampler.leapfrog_steps);
  EXPECT_EQ(number_default(s, "target_acceptance"), sampler.adaptation.target_acceptance);
  EXPECT_EQ(number_default(s, "slowness"), sampler.adaptation.slowness);
  EXPECT_EQ(number_default(s, "step_increase"), sampler.adaptation.increase);
  EXPECT_EQ(number_default(s, "step_decrease"), sampler.adaptation.decrease);
  EXPECT_EQ(number_default(s, "min_step"), sampler.adaptation.min_step);
  EXPECT_EQ(number_default(s, "max_step"), sampler.adaptation.max_step);
  EXPECT_EQ(std::get<std::string>(key_named(s, "adapt").fallback()), to_string(sampler.adapt));
  EXPECT_EQ(int_default(s, "seed"), as_int(sampler.seed));
  EXPECT_EQ(sampler.seed, logz::kDefaultSeed);
  EXPECT_EQ(int_default(s, "threads"), sampler.threads);
  EXPECT_EQ(int_default(s, "chunk_size"), as_int(sampler.chunk_size));

  const logz::ContinuousKernelOptions kernel;
  const logz::StepSizeAdaptation rule;
  const auto& k = registered_group("kernel", "continuous kernels");
  EXPECT_EQ(number_default(k, "step_size"), kernel.step_size);
  EXPECT_EQ(int_default(k, "steps_per_temperature"), kernel.steps);
  EXPECT_EQ(number_default(k, "target_acceptance"), rule.target_acceptance);
  // min_step and max_step depend on step_size_adaptation (pilot: the rule's; per_temperature:
  // wide bounds), stated as Computed text.
}

TEST(ConfigKeyDefaults, IntegrationKeysAreTheGroundStateIntegrationsDefaults) {
  const logz::GroundStateIntegrationOptions options;
  const auto& g = logz::integration_keys();
  EXPECT_EQ(int_default(g, "num_chains"), as_int(options.num_chains));
  EXPECT_EQ(int_default(g, "chunk_size"), as_int(options.chunk_size));
  EXPECT_EQ(int_default(g, "start_steps"), as_int(options.start_steps));
  // equilibration_steps and measurement_steps are a run's own, longer than the library's.
}

}  // namespace
