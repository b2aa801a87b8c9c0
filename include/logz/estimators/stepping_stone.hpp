// The stepping-stone estimator on tempered samples (Xie et al. 2011; the ratio parallel
// tempering reports): each rung's ratio Z_{k+1} / Z_k is an importance-sampling mean over the
// samples that sat at level k,
//   log(Z_{k+1} / Z_k) = log mean_{x at level k} exp(-(u_{k+1}(x) - u_k(x))),
// and log(Z_k / Z_1) is the sum of the rungs below k. u_k are the reduced energies of the path:
// -t_k Delta(x) on a path linear in t (one Delta per recorded sample), each level's own energy
// otherwise (TemperingStats::sample_energies). Summed in log space (log-sum-exp).
//
// Errors: a delete-a-group jackknife over groups of independent chains (se_method
// "chain_jackknife", estimators/chain_jackknife.hpp), since the delta method's per-rung
// variance treats the correlated samples of a chain as independent. Each rung's log mean is
// biased low by about (1/ESS_k - 1/n_k) / 2 for independent samples; the sum of these is in the
// diagnostics ("log_mean_bias"), not in the estimate. A rung without samples leaves every level
// above it NaN, flagged "empty_level" and "no_error_estimate".
#pragma once

#include <cstddef>
#include <span>

#include "logz/core/stop_request.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

// Needs the recorded samples (TemperingOptions::record_samples, with sample_chain) and, on a
// path not linear in t, every level's energy of each. Values are log(Z_k / Z_1); the leave-out
// estimates of the jackknife run on up to `threads` threads (the answer does not depend on them);
// once `stop` is requested the ones not yet begun throw logz::Stopped.
LadderEstimates stepping_stone(const TemperingStats& stats, std::span<const double> fractions,
                               std::size_t num_groups = 20, int threads = 1, StopToken stop = {});

}  // namespace logz
