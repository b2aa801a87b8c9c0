// The estimators a config or `logz estimate` names, run by name: works estimators on forward
// and reverse works, tempered-sample estimators on the statistics of simulated tempering. The
// names, what each needs and what it yields are in the estimator registry (registry.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "logz/config/config_key.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/tempering/ladder.hpp"
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

// Settings of the estimators that have any, with the defaults of the estimators' own options
// (estimators/histogram.hpp): the [estimators] keys, `logz estimate`'s flags and logz.estimate's
// keyword arguments take theirs from here (through the option keys of the estimator registry).
// A new option is a field here and one option in estimator_registry.cpp, named by the entries
// that read it.
struct EstimatorOptions {
  // histogram_posterior's Philox key ([run] seed, --seed)
  std::uint64_t seed = HistogramPosteriorOptions{}.seed;
  // kept Gibbs sweeps of histogram_posterior, >= 2
  std::size_t posterior_draws = HistogramPosteriorOptions{}.num_draws;
  // discarded sweeps before them
  std::size_t posterior_burn_in = HistogramPosteriorOptions{}.burn_in;
  // 0: one support point per distinct work (= BAR)
  std::size_t histogram_bins = HistogramOptions{}.bins;
  // Not an option but the run's stop request (core/stop_request.hpp), which the front end gives:
  // histogram_posterior's draws stop once it is requested.
  StopToken stop;
};

// The keys of the estimators' options (integer keys of [estimators]), every option that some
// registry entry reads, each once, in the order of the registry.
const std::vector<const Key*>& estimator_option_keys();

// How a front end gives the options' values: `value` returns the value of an option's key (its
// default where none was given), range-checked as the front end names it; `check_memory` refuses
// a value whose estimator would need `bytes` for `what` ("the histograms") that do not fit.
struct EstimatorOptionSource {
  std::function<std::int64_t(const Key&)> value;
  std::function<void(const Key&, double bytes, const std::string& what)> check_memory;
};

// EstimatorOptions from every option's value: the one place that maps keys to fields.
EstimatorOptions read_estimator_options(const EstimatorOptionSource& source, std::uint64_t seed);

// Why the works estimators `methods` cannot run on what is given ("method \"bar\" needs forward
// and reverse works"), or an empty string when they can. An InvalidArgument on an unknown name.
std::string estimator_requirements(const std::vector<std::string>& methods, bool has_forward,
                                   bool has_reverse);

// The default works estimators that the directions allow.
std::vector<std::string> default_works_estimators(bool has_forward, bool has_reverse);

// The works of one direction (viewed, not copied), or std::nullopt when it was not run.
using OptionalWorks = std::optional<std::span<const double>>;

// Runs the works estimators in the order given (bounds yields two estimates, cumulant up to three).
std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                     OptionalWorks forward_works, OptionalWorks reverse_works,
                                     const EstimatorOptions& options = {});

// The same on works held in vectors (nullptr: the direction was not run).
inline std::vector<Estimate> run_estimators(const std::vector<std::string>& methods,
                                            const std::vector<double>* forward_works,
                                            const std::vector<double>* reverse_works,
                                            const EstimatorOptions& options = {}) {
  auto view = [](const std::vector<double>* w) { return w ? OptionalWorks(*w) : std::nullopt; };
  return run_estimators(methods, view(forward_works), view(reverse_works), options);
}

// Runs a tempered-sample estimator on the statistics of a final run. `rts` is the RTS answer of
// the same run, which MBAR takes as its warm start; `threads` (0: all) share MBAR's jackknife
// solves (the answer does not depend on them); `stop`: MBAR throws Stopped within an iteration
// once it is requested.
LadderEstimates run_tempered_estimator(const std::string& method, const TemperingStats& stats,
                                       const TemperingLadder& ladder,
                                       std::span<const double> log_z_hat,
                                       const LadderEstimates& rts, int threads = 1,
                                       StopToken stop = {});

}  // namespace logz
