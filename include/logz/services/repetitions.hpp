// [run] repetitions = R: the same experiment R times, with seeds seed, seed + 1,
// ..., seed + R - 1 (so any one repetition can be rerun alone with --seed), and
// each method's estimates summarised over the repetitions: mean, standard
// deviation, mean reported standard error and, where an exact answer exists, the
// mean error, the root-mean-square error and the fraction of repetitions whose
// error is within 2 reported standard errors. This is how the estimator studies
// of the papers (the spread of an estimator over many runs) are reproduced.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logz/services/experiment.hpp"

namespace logz {

// One method's estimates (evidences log Z / Z_0) over the repetitions.
struct RepetitionSummary {
  std::string method;
  std::vector<double> evidence, std_error;
  double mean = kNaN, sd = kNaN, mean_std_error = kNaN;
  double mean_error = kNaN, rmse = kNaN, coverage_2se = kNaN;  // only with an exact answer
  std::size_t failed = 0;  // repetitions with a non-finite estimate (left out of the summary)
};

// Summarises results of the same experiment (different seeds), method by method
// in the order of the first result.
std::vector<RepetitionSummary> summarise_repetitions(const std::vector<ExperimentResult>& results);

// Runs `runner` on copies of `config` with seeds seed + r; returns the first
// repetition's full result with details["repetitions"] holding the summary and
// every repetition's estimates. Works of later repetitions are not kept.
ExperimentResult run_repetitions(Config& config, std::size_t repetitions, const ExperimentRunner& runner,
                                 const ProgressFn& progress);

nlohmann::json repetitions_to_json(const std::vector<RepetitionSummary>& summary,
                                   const std::vector<std::uint64_t>& seeds);

// The table printed under the first repetition's table.
std::string repetitions_table(const nlohmann::json& repetitions, double exact_evidence);

}  // namespace logz
