// Error bars over the chains of simulated tempering. The chains are independent replicates,
// so a delete-a-group jackknife over them (Efron & Stein; Quenouille) gives an error bar for
// any estimator of the recorded samples that, unlike MBAR's asymptotic one, counts the
// samples' correlation along each chain: the asymptotic error treats all samples as
// independent and comes out about half of the spread of MBAR over seeds on a 4 x 4 Ising
// ladder (docs/calibration.md).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

// The statistics of the chains outside [first, last): their per-chain sums and recorded samples
// (sample_chain must be filled).
TemperingStats without_chains(const TemperingStats& stats, std::size_t first, std::size_t last);

// Jackknife standard errors of estimate(stats), one per level, over `groups` groups of
// consecutive chains left out in turn:
//   se^2 = (G - 1) / G sum_g (theta_(g) - mean theta_(.))^2.
// NaN for every level when there are fewer than 2 groups (fewer than 2 chains). The leave-out
// estimates run on up to `threads` threads (0: all; estimate must allow it) and are combined
// in group order, so the result does not depend on the thread count. Once `stop` is requested
// the groups not yet begun throw logz::Stopped.
std::vector<double> chain_jackknife_std_error(
    const TemperingStats& stats, std::size_t groups, int threads,
    const std::function<std::vector<double>(const TemperingStats&)>& estimate, StopToken stop = {});

}  // namespace logz
