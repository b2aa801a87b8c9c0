// `logz run` with [run] method = "ground_state_integration": equilibrium
// thermodynamic integration from the ground state (equilibrium/
// ground_state_integration.hpp) for lattice models in their ordered phase,
// with the [integration] section:
//   beta_max             top of the grid (default beta + 20 / gap: the excess energy
//                        there is about exp(-20) of its value at beta)
//   intervals            grid intervals, a multiple of 4 (default 64)
//   num_chains           independent chains (default 32)
//   start_steps          kernel applications at beta_max from the ground state (default 100)
//   equilibration_steps  kernel applications before measuring at each point (default 20)
//   measurement_steps    kernel applications averaged at each point (default 200)
// A kernel application is [kernel] steps_per_temperature single-site updates.
#pragma once

#include <string>

#include "logz/equilibrium/ground_state_integration.hpp"
#include "logz/services/config.hpp"
#include "logz/services/experiment.hpp"

namespace logz {

struct GroundStateSettings {
  std::vector<double> betas;
  GroundStateIntegrationOptions options;
};

// Reads [integration] (seed and threads from [run]) for a model at inverse
// temperature beta whose lowest excitation costs `gap` energy units.
GroundStateSettings read_ground_state_settings(Config& config, double beta, double gap);

// The estimate and the per-point energies into the result.
void ground_state_report(const GroundStateIntegration& r, ExperimentResult& result);

template <class Path, class Kernel, class GroundState>
void integrate_from_ground_state(const Path& path, const Kernel& kernel, double beta, double gap,
                                 double ground_energy, double log_degeneracy, const GroundState& ground_state,
                                 Config& config, const ProgressFn& progress, ExperimentResult& result) {
  GroundStateSettings s = read_ground_state_settings(config, beta, gap);
  if (progress) s.options.progress = [&](std::size_t d, std::size_t n) { progress("integration", d, n); };
  const auto r = ground_state_integration(path, kernel, beta, s.betas, ground_energy, log_degeneracy,
                                          result.base_log_z, ground_state, s.options);
  ground_state_report(r, result);
}

}  // namespace logz
