#include "logz/services/ground_state_experiment.hpp"

#include <fmt/format.h>

#include <cmath>

#include "logz/services/annealing_experiment.hpp"

namespace logz {

namespace {

const Key kBetaMax =
    Key::number("beta_max", Computed{"beta + 20 / gap"}, 0.0, 1e6,
                "top of the grid: the excess energy there is about exp(-20) of its value at beta");
const Key kIntervals = Key::integer("intervals", 64, 4, 1000000, "grid intervals, a multiple of 4");
// num_chains, chunk_size and start_steps default to GroundStateIntegrationOptions' own
// (equilibrium/ground_state_integration.hpp); equilibration_steps and measurement_steps are a
// run's own, longer than the library's.
const GroundStateIntegrationOptions kIntegrationDefaults;
const Key kNumChains =
    Key::integer("num_chains", static_cast<std::int64_t>(kIntegrationDefaults.num_chains), 2,
                 1 << 24, "independent chains");
const Key kChainChunkSize =
    Key::integer("chunk_size", static_cast<std::int64_t>(kIntegrationDefaults.chunk_size), 1,
                 1 << 20, "chains per chunk");
// 10^7 kernel applications of 32 chains at 65 grid points: about two days on one core.
const Key kStartSteps =
    Key::integer("start_steps", static_cast<std::int64_t>(kIntegrationDefaults.start_steps), 0,
                 10000000, "kernel applications at beta_max from the ground state");
const Key kEquilibrationSteps =
    Key::integer("equilibration_steps", 20, 0, 10000000,
                 "kernel applications before measuring at each grid point");
const Key kMeasurementSteps = Key::integer("measurement_steps", 200, 1, 10000000,
                                           "kernel applications averaged at each grid point");
const KeyGroup kIntegrationKeys{"integration",
                                "integration",
                                {&kBetaMax, &kIntervals, &kNumChains, &kStartSteps,
                                 &kEquilibrationSteps, &kMeasurementSteps, &kChainChunkSize}};

}  // namespace

const KeyGroup& integration_keys() { return kIntegrationKeys; }

GroundStateSettings read_ground_state_settings(Config& config, double beta, double gap) {
  GroundStateSettings s;
  auto g = config.section("integration");
  g.check_known({&kIntegrationKeys});
  if (!(beta > 0))
    config.section("model").fail("beta", "a positive beta (integration from the ground state)");
  // The grid's top lies above beta: the range is the model's.
  const double beta_max =
      g.get_double(kBetaMax.with_range(beta * (1 + 1e-9), 1e6), beta + 20.0 / gap);
  const auto intervals = static_cast<std::size_t>(g.get_int(kIntervals));
  if (intervals % 4 != 0)
    g.fail(kIntervals, "a multiple of 4 (Simpson's rule with Richardson's error)");
  s.betas = ground_state_grid(beta, beta_max, intervals);
  auto& o = s.options;
  o.num_chains = static_cast<std::size_t>(g.get_int(kNumChains));
  o.chunk_size = static_cast<std::size_t>(g.get_int(kChainChunkSize));
  o.start_steps = static_cast<std::size_t>(g.get_int(kStartSteps));
  o.equilibration_steps = static_cast<std::size_t>(g.get_int(kEquilibrationSteps));
  o.measurement_steps = static_cast<std::size_t>(g.get_int(kMeasurementSteps));
  const SeedAndThreads st = read_seed_and_threads(config);
  o.seed = st.seed;
  o.threads = st.threads;
  return s;
}

void ground_state_report(const GroundStateIntegration& r, RunResult& result) {
  result.estimates.push_back(r.estimate);
  result.ground_state = GroundStateSummary{r.betas,
                                           r.mean_energy,
                                           r.energy_std_error,
                                           r.chain_integrals,
                                           r.ground_energy,
                                           r.log_degeneracy,
                                           r.integral,
                                           r.integral_std_error,
                                           r.trapezoid_integral,
                                           r.quadrature_error,
                                           r.tail,
                                           r.log_z};
}

PlannedBudget planned_ground_state_budget(const GroundStateSettings& s) {
  const auto& o = s.options;
  return {.factors = {{o.num_chains, "chains"},
                      {s.betas.size(), "temperatures"},
                      {o.equilibration_steps + o.measurement_steps, "steps"}},
          .unit = "chain-steps",
          .note = fmt::format("after {} start steps per chain", o.start_steps)};
}

}  // namespace logz
