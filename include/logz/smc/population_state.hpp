// Where a population annealing run (smc/population_annealing.hpp) stands between temperatures,
// with the record of each temperature reached: all it needs to go on but its replicas' states,
// which the driver adds as one blob per chunk (core/batch_state.hpp); what a checkpoint keeps
// (smc/smc_journal.hpp), as bytes and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

// One temperature of a run: the reweighting that reached it, then (below t = 1) the resampling
// and the kernel's step there.
struct PopulationAnnealingStage {
  double temperature = 0.0;      // path fraction t (the lattice models' inverse temperature t beta)
  double log_z_increment = 0.0;  // log sum_i W_i exp(-(U_t - U_t_prev)(x_i))
  double ess = 0.0;              // of the weights after reweighting, as a fraction of R
  bool resampled = false;
  std::size_t num_families = 0;  // families with replicas of weight after this temperature
  double acceptance = kNaN;      // accepted / attempted updates of the kernel's step
  double mean_energy = kNaN;     // weighted mean of the path's trace energy (E) after the step
};

namespace detail {

struct PopulationRunState {
  std::vector<double> gaps;      // U_1 - U_0 per replica (a geometric path; else empty)
  std::vector<double> energies;  // the path's trace energy per replica
  std::vector<double> log_w;     // normalised log weights
  std::vector<std::size_t> families;
  double t = 0.0, log_z = 0.0;                   // the temperature reached and log(Z_t / Z_0)
  std::vector<PopulationAnnealingStage> stages;  // t_1 .. t
  std::size_t num_resamplings = 0;
  std::uint64_t updates = 0, invalid = 0;
  bool capped = false;
};

// The state and every chunk's replicas (batch_state_bytes, in chunk order).
std::string population_state_bytes(const PopulationRunState& s,
                                   const std::vector<std::string>& chunk_states);
// Whether `bytes` held a state of n replicas in `chunks` chunks (with gaps on a geometric path);
// then in s and chunk_states.
bool restore_population_state(std::string_view bytes, std::size_t n, std::size_t chunks,
                              bool geometric, PopulationRunState& s,
                              std::vector<std::string>& chunk_states);

}  // namespace detail
}  // namespace logz
