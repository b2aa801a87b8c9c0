// Where an adaptive tempered SMC run (smc/adaptive_smc.hpp) stands between temperatures: all it
// needs to go on, which is what a checkpoint keeps (smc/smc_journal.hpp), as bytes and back.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "logz/smc/smc_options.hpp"
#include "logz/smc/whitening.hpp"

namespace logz::detail {

// What the run saw that the result must flag.
struct SmcRunFlags {
  bool capped = false;                    // the temperature cap forced the jump to t = 1
  bool frozen = false;                    // acceptance below the threshold at some temperature
  bool not_decorrelated = false;          // the move cap came before the decorrelation criterion
  bool heavy_tails = false;               // tail_energy_slope below options.heavy_tail_slope
  std::uint64_t invalid_energies = 0;     // NaN or -inf energies at particles (weight 0)
  std::uint64_t rejected_non_finite = 0;  // proposals rejected for a non-finite energy
};

struct SmcRunState {
  Eigen::MatrixXd X;              // d x N particles
  std::vector<double> e0, e1;     // their cached energy parts (the path's)
  std::vector<double> log_w;      // normalised log weights
  std::vector<std::size_t> eves;  // each particle's ancestor at t = 0
  Whitening whitening;            // the last temperature's (the next one's fallback)
  double step_size = 0.0;         // the moves' next one
  double t = 0.0, log_z = 0.0;    // the temperature reached and log(Z_t / Z_0)
  // The base draws' mean U_0 over their top tenth (detail::top_tenth_energy): how far out the
  // base itself reaches, for the heavy-tail flag at t = 1.
  double base_top_u0 = std::numeric_limits<double>::quiet_NaN();
  std::vector<SmcStage> stages;  // t_1 .. t
  std::size_t num_resamplings = 0;
  // Waste-free runs: the chains the particles form (particle i in chain i mod chains) and each
  // island's log Z_b so far (smc/waste_free_islands.hpp); otherwise 0 and none.
  std::size_t chains = 0;
  std::vector<double> island_log_z;
  SmcRunFlags flags;
  std::uint64_t energies = 0, gradients = 0, gradients_alone = 0;  // target evaluations so far
};

std::string smc_state_bytes(const SmcRunState& s);
// Whether `bytes` held a state of n particles in d dimensions (then in s).
bool restore_smc_state(std::string_view bytes, std::size_t n, int d, SmcRunState& s);

}  // namespace logz::detail
