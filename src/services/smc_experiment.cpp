#include "logz/services/smc_experiment.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "logz/config/memory_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/random/derived_seed.hpp"
#include "logz/services/annealing_experiment.hpp"

namespace logz {

namespace {

// Every default is SmcOptions' own (smc/smc_options.hpp); the ranges are those validate()
// enforces, counts capped where a run of the other keys' defaults would take days.
const SmcOptions kSmcDefaults{};
const Key kSmcNumParticles =
    Key::integer("num_particles", static_cast<std::int64_t>(kSmcDefaults.num_particles), 2, 1 << 24,
                 "N: particles");
const Key kSmcCessTarget =
    Key::number("cess_target", kSmcDefaults.cess_target, 0.0, 1.0,
                "in (0, 1): the next temperature keeps the conditional ESS at this fraction of N");
const Key kSmcResampleThreshold =
    Key::number("resample_threshold", kSmcDefaults.resample_threshold, 0.0, 1.0,
                "in (0, 1]: resample when the ESS falls below this fraction of N");
const Key kSmcResampling =
    Key::enumeration("resampling", kSmcDefaults.resampling, "how particles are resampled");
const Key kSmcMove = Key::enumeration(
    "move", kSmcDefaults.move,
    "the MCMC move between temperatures: hmc, mala or random_walk (gradient-free)");
const Key kSmcLeapfrogSteps = Key::integer("leapfrog_steps", kSmcDefaults.leapfrog_steps, 1, 10000,
                                           "leapfrog steps of an HMC move, at least");
const Key kSmcMaxLeapfrogSteps =
    Key::integer("max_leapfrog_steps", kSmcDefaults.max_leapfrog_steps, 1, 10000,
                 "leapfrog steps of an HMC move, at most (>= leapfrog_steps)");
const Key kSmcTrajectoryLength = Key::number(
    "trajectory_length", kSmcDefaults.trajectory_length, 0.0, 1e6,
    "HMC's leapfrog steps per move: enough for this length in whitened coordinates at the step "
    "size (0: leapfrog_steps)");
const Key kSmcPreconditioner = Key::enumeration(
    "preconditioner", kSmcDefaults.preconditioner,
    "moves whitened by the particles' covariance: dense (Cholesky), diagonal or none");
const Key kSmcDecorrelation = Key::number(
    "decorrelation", kSmcDefaults.decorrelation, 0.0, 1e6,
    "moves per temperature until the summed squared jumps reach this many total variances");
const Key kSmcMinMoves =
    Key::integer("min_moves", kSmcDefaults.min_moves, 0, 1024, "moves per temperature, at least");
const Key kSmcMaxMoves =
    Key::integer("max_moves", kSmcDefaults.max_moves, 1, 1024, "moves per temperature, at most");
const Key kSmcMaxTemperatures = Key::integer(
    "max_temperatures", static_cast<std::int64_t>(kSmcDefaults.max_temperatures), 1, (1 << 20) - 1,
    "temperatures in all; the last jumps to t = 1 (flagged too_many_temperatures)");
const Key kSmcFrozenAcceptance =
    Key::number("frozen_acceptance", kSmcDefaults.frozen_acceptance, 0.0, 1.0,
                "in [0, 1): a temperature whose moves accept less is flagged frozen_sampler");
const Key kSmcWasteFreeChainLength = Key::integer(
    "waste_free_chain_length", static_cast<std::int64_t>(kSmcDefaults.waste_free_chain_length), 0,
    1024,
    "waste-free SMC when > 0: N / this many chains of this many states each, all kept (N a "
    "multiple of it); 0: the moves follow the decorrelation criterion");
const Key kSmcChooseThreads = Key::boolean(
    "choose_threads", kSmcDefaults.choose_threads,
    "time the first moves on [run] threads and on one and keep the faster (energies that hold a "
    "lock, such as Python functions under the GIL); the same bits either way");
const SmcPilotBase kPilotDefaults{};
const Key kSmcPilotBase = Key::boolean(
    "pilot_base", false,
    "start from a Gaussian fitted to a pilot run's particles at t = 1 (the pilot from [base])");
const Key kSmcPilotParticles =
    Key::integer("pilot_particles", static_cast<std::int64_t>(kPilotDefaults.particles), 0, 1 << 24,
                 "the pilot's particles (0: max(256, 8 d))");
const Key kSmcPilotWidening =
    Key::number("pilot_widening", kPilotDefaults.widening, 1.0, 100.0,
                "the fitted base's standard deviations, times this (>= 1)");
const KeyGroup kSmcKeys{
    "smc",
    "smc",
    {&kSmcNumParticles, &kSmcCessTarget, &kSmcResampleThreshold, &kSmcResampling, &kSmcMove,
     &kSmcLeapfrogSteps, &kSmcMaxLeapfrogSteps, &kSmcTrajectoryLength, &kSmcPreconditioner,
     &kSmcDecorrelation, &kSmcMinMoves, &kSmcMaxMoves, &kSmcMaxTemperatures, &kSmcFrozenAcceptance,
     &kSmcWasteFreeChainLength, &kSmcChooseThreads, &kSmcPilotBase, &kSmcPilotParticles,
     &kSmcPilotWidening}};

template <class T>
Value smc_stage_values(const std::vector<SmcStage>& stages, T SmcStage::*field) {
  Value::Array out;
  for (const SmcStage& s : stages) out.emplace_back(s.*field);
  return Value(std::move(out));
}

}  // namespace

const KeyGroup& smc_keys() { return kSmcKeys; }

SmcOptions read_smc_options(Config& config, int dim) {
  const SeedAndThreads run = read_seed_and_threads(config);
  auto s = config.section("smc");
  s.check_known({&kSmcKeys});
  SmcOptions o;
  o.seed = run.seed;
  o.threads = run.threads;
  o.choose_threads = s.get_bool(kSmcChooseThreads);
  o.num_particles = static_cast<std::size_t>(s.get_int(kSmcNumParticles));
  // The particles, their energies, a resampled copy and the moves' batches: about four d x N.
  check_fits_in_memory(s, kSmcNumParticles,
                       8.0 * static_cast<double>(o.num_particles) * (4.0 * dim + 16.0),
                       "the particles");
  o.cess_target = s.get_double(kSmcCessTarget);
  if (!(o.cess_target > 0.0 && o.cess_target < 1.0))
    s.fail(kSmcCessTarget, fmt::format("a number in (0, 1), got {}", o.cess_target));
  o.resample_threshold = s.get_double(kSmcResampleThreshold);
  if (!(o.resample_threshold > 0.0))
    s.fail(kSmcResampleThreshold, fmt::format("a number in (0, 1], got {}", o.resample_threshold));
  o.resampling = s.get_enum<SmcResampling>(kSmcResampling);
  o.move = s.get_enum<SmcMove>(kSmcMove);
  o.leapfrog_steps = static_cast<int>(s.get_int(kSmcLeapfrogSteps));
  o.max_leapfrog_steps = static_cast<int>(s.get_int(kSmcMaxLeapfrogSteps));
  if (o.max_leapfrog_steps < o.leapfrog_steps)
    s.fail(kSmcMaxLeapfrogSteps, fmt::format("an integer >= leapfrog_steps ({}), got {}",
                                             o.leapfrog_steps, o.max_leapfrog_steps));
  o.trajectory_length = s.get_double(kSmcTrajectoryLength);
  o.preconditioner = s.get_enum<SmcPreconditioner>(kSmcPreconditioner);
  o.decorrelation = s.get_double(kSmcDecorrelation);
  o.min_moves = static_cast<int>(s.get_int(kSmcMinMoves));
  o.max_moves = static_cast<int>(s.get_int(kSmcMaxMoves));
  if (o.min_moves > o.max_moves)
    s.fail(kSmcMinMoves,
           fmt::format("an integer <= max_moves ({}), got {}", o.max_moves, o.min_moves));
  o.max_temperatures = static_cast<std::size_t>(s.get_int(kSmcMaxTemperatures));
  o.frozen_acceptance = s.get_double(kSmcFrozenAcceptance);
  if (!(o.frozen_acceptance < 1.0))
    s.fail(kSmcFrozenAcceptance, fmt::format("a number in [0, 1), got {}", o.frozen_acceptance));
  o.waste_free_chain_length = static_cast<std::size_t>(s.get_int(kSmcWasteFreeChainLength));
  if (const std::size_t p = o.waste_free_chain_length;
      p > 0 && (o.num_particles % p != 0 || o.num_particles / p < 2))
    s.fail(kSmcWasteFreeChainLength,
           fmt::format("0, or a divisor of num_particles ({}) leaving at least 2 chains, got {}",
                       o.num_particles, p));
  return o;
}

std::optional<SmcPilotBase> read_smc_pilot_base(Config& config) {
  auto s = config.section("smc");
  if (!s.get_bool(kSmcPilotBase)) {
    for (const Key* k : {&kSmcPilotParticles, &kSmcPilotWidening})
      if (s.has(*k)) s.fail(*k, "no value without pilot_base = true");
    return std::nullopt;
  }
  return SmcPilotBase{.particles = static_cast<std::size_t>(s.get_int(kSmcPilotParticles)),
                      .widening = s.get_double(kSmcPilotWidening)};
}

std::uint64_t smc_pilot_seed(std::uint64_t seed) {
  return derived_seed(seed, 0x736d6370u, 0);  // "smcp"
}

void record_smc_pilot(const SmcResult& pilot, const SmcPilotBase& settings,
                      const GaussianBase& fitted, RunResult& result) {
  const double pilot_log_z = pilot.absolute_log_z();
  const Estimate& run = result.estimates.front();
  const double run_log_z = fitted.log_z() + run.log_z;
  Record p{{"particles", pilot.particles.cols()},
           {"widening", settings.widening},
           {"log_z", pilot_log_z},
           {"std_error", pilot.log_z.std_error},
           {"num_temperatures", pilot.stages.size()},
           {"energy_evaluations", pilot.energy_evaluations},
           {"gradient_evaluations", pilot.gradient_evaluations},
           {"flags", pilot.log_z.diagnostics.flags}};
  if (pilot.gradient_only_evaluations > 0)
    p.set("gradient_only_evaluations", pilot.gradient_only_evaluations);
  result.kernel.set("pilot_base", std::move(p));
  result.model.set("base", Record{{"type", "fitted"},
                                  {"fitted_to", "a pilot SMC run's particles at t = 1"},
                                  {"widening", settings.widening},
                                  {"log_z", fitted.log_z()}});
  result.base_log_z = fitted.log_z();
  result.budget->parts.insert(result.budget->parts.begin(),
                              {{"pilot energies", pilot.energy_evaluations},
                               {"pilot gradients", pilot.gradient_evaluations}});
  if (pilot.gradient_only_evaluations > 0)
    result.budget->parts.insert(result.budget->parts.begin() + 2,
                                {"pilot gradients alone", pilot.gradient_only_evaluations});
  // Two independent estimates of one log Z: far apart, at least one error bar is wrong.
  if (run_disagrees_with_pilot(pilot_log_z, pilot.log_z.std_error, run_log_z, run.std_error))
    result.estimates.front().diagnostics.add_flag("pilot_disagrees");
}

PlannedBudget planned_smc_budget(const SmcOptions& o) {
  return {.factors = {{o.num_particles, "particles"}},
          .unit = "particles",
          .note = fmt::format("moved at adaptive temperatures (at most {} x {} moves)",
                              o.max_temperatures, o.max_moves)};
}

void record_smc_result(const SmcResult& r, const SmcOptions& o, RunResult& result) {
  result.estimates = {r.log_z};
  Record k{{"method", "adaptive tempered SMC"},
           {"move", to_string(o.move)},
           {"num_particles", o.num_particles},
           {"cess_target", o.cess_target},
           {"resample_threshold", o.resample_threshold},
           {"resampling", to_string(o.resampling)},
           {"preconditioner", to_string(o.preconditioner)},
           {"decorrelation", o.decorrelation},
           {"min_moves", o.min_moves},
           {"max_moves", o.max_moves}};
  if (o.move == SmcMove::hmc) {
    k.set("leapfrog_steps", o.leapfrog_steps);
    k.set("max_leapfrog_steps", o.max_leapfrog_steps);
    k.set("trajectory_length", o.trajectory_length);
  }
  k.set("num_temperatures", r.stages.size());
  k.set("num_resamplings", r.num_resamplings);
  k.set("num_eves", r.num_eves);
  k.set("relative_variance", r.relative_variance);
  k.set("energy_evaluations", r.energy_evaluations);
  k.set("gradient_evaluations", r.gradient_evaluations);
  if (r.gradient_only_evaluations > 0)
    k.set("gradient_only_evaluations", r.gradient_only_evaluations);
  // Per temperature t_1 .. t_K = 1 (the moves, step sizes and acceptance below t = 1).
  k.set("temperatures", smc_stage_values(r.stages, &SmcStage::temperature));
  k.set("ess", smc_stage_values(r.stages, &SmcStage::ess));
  k.set("resampled", smc_stage_values(r.stages, &SmcStage::resampled));
  k.set("moves", smc_stage_values(r.stages, &SmcStage::moves));
  k.set("step_sizes", smc_stage_values(r.stages, &SmcStage::step_size));
  k.set("acceptance", smc_stage_values(r.stages, &SmcStage::acceptance));
  k.set("jump_ratio", smc_stage_values(r.stages, &SmcStage::jump_ratio));
  result.kernel = std::move(k);
  result.budget =
      Budget{.unit = "target evaluation",
             .parts = {{"energies", r.energy_evaluations}, {"gradients", r.gradient_evaluations}}};
  if (r.gradient_only_evaluations > 0)
    result.budget->parts.emplace_back("gradients alone", r.gradient_only_evaluations);
}

}  // namespace logz
