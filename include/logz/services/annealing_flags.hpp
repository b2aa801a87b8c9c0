// The flags an annealing run puts on its estimates from what the estimators cannot see in the
// works: a sampler that froze at some temperature (frozen_sampler) and reverse runs that started
// from forward end states resampled by weight (reverse_starts_resampled). Both mean the SE does
// not cover the error: the works of a frozen sampler are those of importance sampling along a
// path the particles did not follow, and resampled reverse starts inherit the forward run's bias.
// Applied once, where anneal_and_estimate (annealing_experiment.hpp) builds the estimates, so
// that `logz run`, logz.run and logz.anneal carry the same flags.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/opt_in.hpp"
#include "logz/services/registry.hpp"

namespace logz {

// A kernel's acceptance below this at some temperature flags frozen_sampler (docs/results.md).
// A tuned HMC/HAIS accepts 0.6 - 0.9, a random-walk Metropolis 0.2 - 0.5; at 0.05 the particles
// move at one temperature in twenty and the path's equilibrium is lost.
inline constexpr double kFrozenAcceptance = 0.05;
// Acceptance is averaged over consecutive temperatures until it counts at least this many
// attempted moves, so that a run of few paths (2 paths: 0/2 accepted at 16% of temperatures
// with acceptance 0.6) is not flagged by chance.
inline constexpr std::uint64_t kFrozenMinAttempts = 100;

// Whether kernel K's acceptance measures its step size's fit (the continuous kernels declare
// `static constexpr bool acceptance_tracks_step_size = true;`). Gibbs and heat-bath kernels
// count changed values as accepted, and lattice Metropolis accepts rarely in an ordered phase
// where it is at equilibrium: neither is flagged.
template <class K>
inline constexpr bool acceptance_tracks_step_size =
    declared<K>([]<class U>() -> decltype(U::acceptance_tracks_step_size) {
      return U::acceptance_tracks_step_size;
    });

// Where a direction's kernel froze: the path fraction t of the first window of temperatures
// (kFrozenMinAttempts attempted moves or more) whose mean acceptance is below kFrozenAcceptance,
// and that acceptance; nullopt when none is. Temperatures without a kernel (NaN) are skipped;
// each is taken to have made kernel_updates / (temperatures with a kernel) attempts.
struct FrozenTemperature {
  double fraction = kNaN;
  double acceptance = kNaN;
};

inline std::optional<FrozenTemperature> frozen_temperature(const Works& w) {
  std::size_t ran = 0;
  for (double a : w.acceptance) ran += std::isfinite(a) ? 1 : 0;
  if (ran == 0 || w.kernel_updates == 0) return std::nullopt;
  const double per_temperature = static_cast<double>(w.kernel_updates) / static_cast<double>(ran);
  double sum = 0.0, attempts = 0.0;
  std::size_t count = 0, first = 0;
  for (std::size_t k = 0; k < w.acceptance.size(); ++k) {
    if (!std::isfinite(w.acceptance[k])) continue;
    if (count == 0) first = k;
    sum += w.acceptance[k];
    ++count;
    attempts += per_temperature;
    if (attempts < static_cast<double>(kFrozenMinAttempts)) continue;
    const double mean = sum / static_cast<double>(count);
    if (mean < kFrozenAcceptance) return FrozenTemperature{w.fractions.at(first), mean};
    sum = attempts = 0.0;
    count = 0;
  }
  return std::nullopt;  // a last window short of kFrozenMinAttempts is not judged
}

// Whether an estimate reads reverse works: every works estimate but those the estimator registry
// marks forward_only (ais, bounds' lower_bound, cumulant_forward); an unknown name does.
inline bool uses_reverse_works(const Estimate& e) {
  for (const EstimateOutput& out : estimate_outputs())
    if (out.method == e.method) return !out.forward_only;
  return true;
}

// Adds the run's flags to its estimates: frozen_sampler to every one when `check_acceptance`
// (the kernel's acceptance_tracks_step_size) and either direction froze, with the values
// frozen_at_t and frozen_acceptance; reverse_starts_resampled to those that read reverse works
// when `reverse_resampled`.
inline void flag_annealing_estimates(std::vector<Estimate>& estimates, const Works* forward,
                                     const Works* reverse, bool check_acceptance,
                                     bool reverse_resampled) {
  std::optional<FrozenTemperature> frozen;
  if (check_acceptance) {
    if (forward) frozen = frozen_temperature(*forward);
    if (!frozen && reverse) frozen = frozen_temperature(*reverse);
  }
  for (Estimate& e : estimates) {
    if (frozen) {
      e.diagnostics.add_flag("frozen_sampler");
      e.diagnostics.values.emplace_back("frozen_at_t", frozen->fraction);
      e.diagnostics.values.emplace_back("frozen_acceptance", frozen->acceptance);
    }
    if (reverse_resampled && reverse && uses_reverse_works(e))
      e.diagnostics.add_flag("reverse_starts_resampled");
  }
}

}  // namespace logz
