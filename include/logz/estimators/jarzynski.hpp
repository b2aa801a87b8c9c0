// Exponential (Jarzynski) averages of work values: AIS over forward works and reverse AIS
// ("RAISE") over reverse works. All works are in units of kT (natural log units).
//
// Forward works W_f (one per annealing path from base to target) have importance log weights
// -W_f and E_f[exp(-W_f)] = Z = Z_1/Z_0. Reverse works W_r (target -> base, accumulated with
// the reverse process's own sign) satisfy E_r[exp(-W_r)] = 1/Z. This is pymbar's convention:
// its DeltaF is -log Z. Example: forward W_f ~ N(mu, s^2) gives log Z = s^2/2 - mu, and the
// matching reverse works are W_r ~ N(s^2 - mu, s^2).
#pragma once

#include <span>
#include <string_view>

#include "logz/core/estimate.hpp"

namespace logz {

// AIS: log Z = log((1/M) sum_i exp(-W_f_i)), in log space (works of 1e5 are fine). std_error
// ("delta") is sd(w) / (sqrt(M) mean(w)) with w_i = exp(min W_f - W_f_i) and the (M - 1) sd: the
// large-sample spread of log Zhat, blind to its downward bias (~std_error^2 / 2) and to weight
// never sampled. diagnostics: ess = (sum w)^2 / sum w^2 (Kish); values "ess_fraction" (ESS / M),
// "max_weight_fraction" (max w / sum w), "dissipation" (Var(W) / 2, the second-cumulant estimate
// of the work dissipated); flags "low_ess" (ESS < max(10, 0.01 M)), "high_dissipation" (more
// than 0.75 nats dissipated: the interval +- 1.96 std_error then covers the answer less often
// than 95%, docs/calibration.md), "too_few_samples" (M < 2, std_error NaN), "zero_variance"
// (all weights equal, std_error NaN).
Estimate ais(std::span<const double> forward_works);

// RAISE (reverse AIS): log Z = -log((1/M) sum_j exp(-W_r_j)), with std_error, diagnostics and
// flags of ais() for the weights exp(-W_r_j) (the sign flip leaves the delta-method error as is).
// Both throw InvalidArgument on an empty span or a NaN/inf work, naming the first bad index.
Estimate raise(std::span<const double> reverse_works);

namespace detail {

// Throws InvalidArgument("function: argument: expected at least one value, got none") for an
// empty span and ("function: argument[i]: expected finite values, got nan") for the first
// non-finite value. Shared by the work-based estimators.
void require_finite_works(std::string_view function, std::string_view argument,
                          std::span<const double> works);

// The inputs of the two-sided iterative solvers (BAR, histogram): finite works on both sides,
// a positive finite tolerance and at least one iteration.
void require_two_sided_inputs(std::string_view function, std::span<const double> forward_works,
                              std::span<const double> reverse_works, double tolerance,
                              int max_iterations);

// Sets est.std_error to se when it and est.log_z are finite and se > 0. Otherwise std_error
// stays NaN with the reason as a flag: "overflow" when the estimate or its error is not
// representable although every work is finite (works near +-1e308, or spread beyond a double's
// range), else "zero_variance" (no spread to measure an error by).
void set_std_error(Estimate& est, double se);

// Whether the forward works and the negated reverse works do not overlap at all (every W_f
// above every -W_r): then a two-sided estimate only says that log Z lies in the gap, and its
// asymptotic error means nothing.
bool disjoint_works(std::span<const double> forward_works, std::span<const double> reverse_works);

}  // namespace detail

}  // namespace logz
