// `logz run` with [run] method = "ground_state_integration": equilibrium thermodynamic
// integration from the ground state (equilibrium/ground_state_integration.hpp) for lattice
// models in their ordered phase, configured by [integration] (its keys: integration_keys()).
// A kernel application is [kernel] steps_per_temperature single-site updates.
#pragma once

#include <concepts>
#include <string>

#include "logz/config/config.hpp"
#include "logz/equilibrium/ground_state_integration.hpp"
#include "logz/services/method_setup.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/run_budget.hpp"

namespace logz {

const KeyGroup& integration_keys();

struct GroundStateSettings {
  std::vector<double> betas;
  GroundStateIntegrationOptions options;
};

// Reads [integration] (seed and threads from [run]) for a model at inverse temperature beta
// whose lowest excitation costs `gap` energy units.
GroundStateSettings read_ground_state_settings(Config& config, double beta, double gap);

// What the run is about to do, said before it starts (run_budget.hpp): chains x grid points x
// kernel applications per point.
PlannedBudget planned_ground_state_budget(const GroundStateSettings& s);

// The estimate and the per-point energies into the result.
void ground_state_report(const GroundStateIntegration& r, RunResult& result);

template <class Path, class Kernel, class GroundState>
void integrate_from_ground_state(const Path& path, const Kernel& kernel, double beta, double gap,
                                 double ground_energy, double log_degeneracy,
                                 const GroundState& ground_state, Config& config,
                                 const RunContext& context, RunResult& result) {
  const ProgressFn& progress = context.progress;
  GroundStateSettings s = read_ground_state_settings(config, beta, gap);
  context.announce(planned_ground_state_budget(s));
  if (progress)
    s.options.progress = [&](std::size_t d, std::size_t n) { progress("integration", d, n); };
  s.options.stop = context.stop;
  const auto r =
      ground_state_integration(path, kernel, beta, s.betas, ground_energy, log_degeneracy,
                               result.base_log_z, ground_state, s.options);
  ground_state_report(r, result);
}

// The ground states: E_0, log of their number, and the cost of the lowest excitation.
struct LatticeGroundStates {
  double energy = 0.0, log_degeneracy = 0.0, gap = 1.0;
};

// [run] method = "ground_state_integration" (services/method_list.hpp): on a setup with kernels
// and ground states, whose path is a model at inverse temperature beta() that can draw them.
struct GroundStateMethod {
  static constexpr RunMethod kId = RunMethod::ground_state_integration;
  static constexpr const char* kSummary =
      "thermodynamic integration from the ground states (lattice models)";
  static constexpr const char* kDocs = "docs/config.md";
  static constexpr bool kCheckpoints = false;
  static const KeyGroup* keys() { return &integration_keys(); }

  template <class Setup>
  static constexpr bool runs_on = KernelSetup<Setup>&& requires(const Setup& s) {
    { s.ground_states() } -> std::convertible_to<LatticeGroundStates>;
    s.path().beta();
  };
  template <class Setup>
  static void run(const Setup& s, Config& config, const RunContext& context, RunResult& result) {
    const LatticeGroundStates ground = s.ground_states();
    s.with_kernel(kId, config, result, [&](const auto& kernel) {
      const auto& path = s.path();
      auto ground_state = [&](auto& batch, const BatchRandom& r) { path.ground_state(batch, r); };
      integrate_from_ground_state(path, kernel, path.beta(), ground.gap, ground.energy,
                                  ground.log_degeneracy, ground_state, config, context, result);
    });
  }
};

}  // namespace logz
