// Internal to the RBM services: an RBM run described by typed settings, so that `logz run`
// (config -> RbmSetup) and the evaluations of `logz train rbm` (weights in memory -> RbmSetup)
// share one path into the annealers, with no config text in between.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "logz/core/enum_names.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/services/annealing_experiment.hpp"

namespace logz {

// The RBM's kernels ([kernel] type): block Gibbs sweeps, or single-unit Metropolis on the kept
// layer of a marginal path.
LOGZ_NAMED_ENUM(RbmKernelType, gibbs, metropolis);

struct RbmSetup {
  RbmParameters parameters;
  RbmBase base;
  std::string weights = "(in memory)";   // where the parameters came from, for the report
  std::string path_kind = "marginal_v";  // "full", "marginal_v" or "marginal_h"
  RbmKernelType kernel_type = RbmKernelType::gibbs;
  std::string precision = "double";  // "double" or "float"
  std::size_t steps = 1;             // kernel applications per temperature
  // enumerate log Z when the smaller layer is at most this
  int exact_max_units = exact::kRbmExactMaxUnitsDefault;
  std::optional<Eigen::MatrixXd> train, test;  // binary examples, one per row
  std::string data_description;
};

// The report's header of a run of `s`: model description, base log Z, exact reference where the
// smaller layer can be enumerated, kernel description.
RunResult rbm_result(const RbmSetup& s, StopToken stop = {});

// Forward and reverse annealing (reverse from data rows equilibrated at the target), and the
// estimators on the works.
void anneal_rbm(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                const RunContext& context, RunResult& result);

// With a test set: L = mean(-F(v)) - log Z with the exact log Z where there is one, else the
// best estimate made.
void add_test_log_likelihood(const RbmSetup& s, RunResult& result);

}  // namespace logz
