// The tuning values every continuous kernel is built from, whichever of them it uses: one
// struct so that a front end (a config's [kernel], Python's keywords) reads them once and each
// kernel takes its own (its kOptions names them; continuous_kernels.hpp lists the kernels).
#pragma once

#include <optional>

#include "logz/random/particle_draws.hpp"

namespace logz {

struct ContinuousKernelOptions {
  double step_size = 0.2;                              // Hamiltonian and Langevin moves
  int leapfrog_steps = 1;                              // Hamiltonian moves
  NormalPrecision normals = NormalPrecision::double_;  // of the momentum or proposal draws
  double gamma = 1.0;                                  // HAIS: the momentum refresh
  std::optional<double> half_life;  // HAIS: the refresh rule, when gamma is not given
  double proposal_sd = 0.1;         // random-walk Metropolis
  int steps = 1;                    // random-walk Metropolis: proposals per temperature
};

}  // namespace logz
