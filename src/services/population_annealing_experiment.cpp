#include "logz/services/population_annealing_experiment.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "logz/config/memory_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/services/annealing_experiment.hpp"

namespace logz {

namespace {

// Every default is PopulationAnnealingOptions' own (smc/population_annealing.hpp); the ranges
// are those validate() enforces.
const PopulationAnnealingOptions kPaDefaults{};
const Key kPaReplicas = Key::integer(
    "num_replicas", static_cast<std::int64_t>(kPaDefaults.num_replicas), 2, 1 << 26, "R: replicas");
const Key kPaCessTarget =
    Key::number("cess_target", kPaDefaults.cess_target, 0.0, 1.0,
                "in (0, 1): the next temperature keeps the conditional ESS at this fraction of R");
const Key kPaResampleThreshold = Key::number(
    "resample_threshold", kPaDefaults.resample_threshold, 0.0, 1.0,
    "in (0, 1]: resample when the ESS falls below this fraction of R (1: every temperature)");
const Key kPaResampling = Key::enumeration(
    "resampling", kPaDefaults.resampling,
    "systematic (error bar from rho_f) or multinomial (error bar from the genealogy)");
const Key kPaMaxTemperatures = Key::integer(
    "max_temperatures", static_cast<std::int64_t>(kPaDefaults.max_temperatures), 1, (1 << 20) - 1,
    "temperatures in all; the last jumps to t = 1 (flagged too_many_temperatures)");
const Key kPaMaxFamilyFraction = Key::number(
    "max_family_fraction", kPaDefaults.max_family_fraction, 0.0, 1.0,
    "flag families_dominate when rho_f / R exceeds this (a few families hold the weight)");
const Key kPaChunkSize =
    Key::integer("chunk_size", static_cast<std::int64_t>(kPaDefaults.chunk_size), 1, 1 << 20,
                 "replicas moved together (fixes the order of sums; multispin: a multiple of 64)");
const KeyGroup kPaKeys{"population_annealing",
                       "population annealing",
                       {&kPaReplicas, &kPaCessTarget, &kPaResampleThreshold, &kPaResampling,
                        &kPaMaxTemperatures, &kPaMaxFamilyFraction, &kPaChunkSize}};

template <class T>
Value stage_values(const std::vector<PopulationAnnealingStage>& stages,
                   T PopulationAnnealingStage::*field) {
  Value::Array out;
  for (const PopulationAnnealingStage& s : stages) out.emplace_back(s.*field);
  return Value(std::move(out));
}

}  // namespace

const KeyGroup& population_annealing_keys() { return kPaKeys; }

PopulationAnnealingOptions read_population_annealing_options(Config& config,
                                                             std::size_t chunk_multiple,
                                                             double bytes_per_replica) {
  const SeedAndThreads run = read_seed_and_threads(config);
  auto s = config.section("population_annealing");
  s.check_known({&kPaKeys});
  PopulationAnnealingOptions o;
  o.seed = run.seed;
  o.threads = run.threads;
  o.num_replicas = static_cast<std::size_t>(s.get_int(kPaReplicas));
  // The replicas, a resampled copy, and per replica a few numbers.
  check_fits_in_memory(s, kPaReplicas,
                       static_cast<double>(o.num_replicas) * (2.0 * bytes_per_replica + 64.0),
                       "the replicas");
  o.cess_target = s.get_double(kPaCessTarget);
  if (!(o.cess_target > 0.0 && o.cess_target < 1.0))
    s.fail(kPaCessTarget, fmt::format("a number in (0, 1), got {}", o.cess_target));
  o.resample_threshold = s.get_double(kPaResampleThreshold);
  if (!(o.resample_threshold > 0.0))
    s.fail(kPaResampleThreshold, fmt::format("a number in (0, 1], got {}", o.resample_threshold));
  o.resampling = s.get_enum<SmcResampling>(kPaResampling);
  o.max_temperatures = static_cast<std::size_t>(s.get_int(kPaMaxTemperatures));
  o.max_family_fraction = s.get_double(kPaMaxFamilyFraction);
  // Multi-spin kernels (chunks of whole groups of 64) sweep four groups side by side best.
  o.chunk_size = static_cast<std::size_t>(
      s.get_int(kPaChunkSize,
                chunk_multiple > 1 ? std::int64_t{256} : static_cast<std::int64_t>(o.chunk_size)));
  if (o.chunk_size % chunk_multiple != 0)
    s.fail(kPaChunkSize, fmt::format("a multiple of {} with [kernel] type = \"multispin\", got {}",
                                     chunk_multiple, o.chunk_size));
  return o;
}

void record_population_annealing_result(const PopulationAnnealingResult& r,
                                        const PopulationAnnealingOptions& o, RunResult& result,
                                        const char* update_unit) {
  result.estimates = {r.log_z};
  Record p{{"num_replicas", o.num_replicas},
           {"cess_target", o.cess_target},
           {"resample_threshold", o.resample_threshold},
           {"resampling", to_string(o.resampling)},
           {"num_temperatures", r.stages.size()},
           {"num_resamplings", r.num_resamplings},
           {"num_families", r.num_families},
           {"rho_f", r.rho_f},
           {"rho_f_over_r", r.rho_f / static_cast<double>(o.num_replicas)},
           {"rho_f_std_error", r.rho_f_std_error},
           {"relative_variance", r.relative_variance}};
  // Per temperature t_1 .. t_K = 1 (the kernel's acceptance and the mean energy below t = 1).
  p.set("temperatures", stage_values(r.stages, &PopulationAnnealingStage::temperature));
  p.set("log_z_increments", stage_values(r.stages, &PopulationAnnealingStage::log_z_increment));
  p.set("ess", stage_values(r.stages, &PopulationAnnealingStage::ess));
  p.set("resampled", stage_values(r.stages, &PopulationAnnealingStage::resampled));
  p.set("families", stage_values(r.stages, &PopulationAnnealingStage::num_families));
  p.set("acceptance", stage_values(r.stages, &PopulationAnnealingStage::acceptance));
  p.set("mean_energy", stage_values(r.stages, &PopulationAnnealingStage::mean_energy));
  result.kernel.set("population_annealing", std::move(p));
  result.budget = Budget{.unit = update_unit, .parts = {{"replicas", r.updates}}};
}

}  // namespace logz
