// Adaptive tempered SMC (smc/adaptive_smc.hpp) over ranks (parallel/ranks.hpp): each rank moves
// its block of chunks of particles; every rank holds every particle between temperatures and
// makes the same reweighting, resampling and whitening from them. What crosses ranks: each
// move's per-chunk acceptance and jumps (the step size and the decorrelation test read their
// chunk-order sums), and after the base draws and each temperature's moves the particles of
// every block with the evaluations spent. Sums are taken in chunk order, so any rank count
// gives the bits of one rank.
#pragma once

#include <vector>

#include "logz/models/continuous_target.hpp"
#include "logz/parallel/chunk_range.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/smc/smc_state.hpp"
#include "logz/smc/whitened_target.hpp"

namespace logz::detail {

// What one chunk's move reports.
struct SmcChunkMove {
  ContinuousKernelInfo info;
  double weighted_jump = 0.0;         // sum_p W_p |z_p' - z_p|^2
  double weighted_gap_jump = 0.0;     // sum_p W_p (g_p' - g_p)^2, g = U_1 - U_0
  double weighted_energy_jump = 0.0;  // sum_p W_p (U_t(x_p') - U_t(x_p))^2
};

// Every rank's particles (s.X's columns, s.e0, s.e1 over its items `mine`) onto every rank, and
// the evaluations `counts` holds (this rank's since the last share, then reset) summed over the
// ranks into s.energies, s.gradients and s.gradients_alone. One rank: the counts alone.
void share_particles(Ranks& ranks, const ChunkRange& mine, SmcRunState& s,
                     TargetEvaluationCounts& counts);

}  // namespace logz::detail
