// The services' entry points: a config in, a typed result out. [model] type picks the model's
// registry entry, which reads the rest of the config; [run] repetitions repeats a run with
// seeds seed, seed + 1, ... The front ends (the command-line tool, Python) call these and turn
// the results into tables, JSON and plots.
#pragma once

#include "logz/config/config.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/results.hpp"

namespace logz {

// `logz run`: fills runtime and the resolved config.
RunResult run_experiment(Config& config, const RunContext& context = {});

// `logz loglik`: the average log-likelihood of [data] under the model.
LoglikResult run_loglik(Config& config, const RunContext& context = {});

// `logz sample`: HMC draws from the model ([sampler]).
SampleResult run_sample(Config& config, const RunContext& context);

// [run] repetitions: one method's estimates over results of the same experiment (different
// seeds), method by method in the order of the first result.
std::vector<RepetitionSummary> summarise_repetitions(const std::vector<RunResult>& results);
// The same one repetition at a time, keeping two numbers per method and repetition, not whole
// results: add_repetition for each in turn (the first fixes the methods), then
// finish_summary with the exact evidence (NaN if none).
void add_repetition(std::vector<RepetitionSummary>& summary, const RunResult& result);
void finish_summary(std::vector<RepetitionSummary>& summary, double exact_evidence);

}  // namespace logz
