// The services' entry points: a config in, a typed result out. [model] type picks the model's
// registry entry, which reads the rest of the config; [run] repetitions repeats a run with
// seeds seed, seed + 1, ... The front ends (the command-line tool, Python) call these and turn
// the results into tables, JSON and plots.
#pragma once

#include "logz/services/config.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"

namespace logz {

// `logz run`: fills runtime and the resolved config.
RunResult run_experiment(Config& config, const RunContext& context = {});

// `logz loglik`: the average log-likelihood of [data] under the model.
LoglikResult run_loglik(Config& config, const RunContext& context = {});

// `logz sample`: HMC draws from the model ([sampler]).
SampleResult run_sample(Config& config);

// [run] repetitions: one method's estimates over results of the same experiment (different
// seeds), method by method in the order of the first result.
std::vector<RepetitionSummary> summarise_repetitions(const std::vector<RunResult>& results);

}  // namespace logz
