// What a model family hands the [run] methods (services/method_list.hpp): a setup, one class per
// family, that offers some of
//   s.path()                               the path from the base (t = 0) to the model (t = 1);
//   s.with_kernel(method, config, result, f)
//                                          f(kernel) with the configured kernel, for a driver
//                                          that keeps it fixed over the run (the family refuses
//                                          settings such a driver cannot honour, naming method,
//                                          and describes the kernel in result.kernel);
//   s.anneal(config, context, result)      the family's annealing (its reverse starts);
//   s.ground_states()                      the ground states (LatticeGroundStates);
//   s.temper(config, context, result)      tempering its own way (the RBM's);
//   s.with_path_and_kernel(method, config, context, result, f)
//                                          f(path, kernel) with the path and kernel the config
//                                          chooses among several (the RBM's precisions and
//                                          paths), the model's description in result first.
// A method states what it needs of these (its runs_on); a model runs the methods its setup
// offers what they need, so a new method reaches every family that has it without an edit there.
#pragma once

#include "logz/services/methods.hpp"

namespace logz {

class Config;
struct RunContext;
struct RunResult;

// A setup with a path and kernels for drivers that keep them fixed.
template <class Setup>
concept KernelSetup = requires(const Setup& s, Config& config, RunResult& result) {
  s.path();
  s.with_kernel(RunMethod::annealing, config, result, [](const auto&) {});
};

// A setup whose path the config chooses: f(path, kernel) for the chosen one.
template <class Setup>
concept PathKernelSetup = requires(const Setup& s, Config& config, const RunContext& context,
                                   RunResult& result) {
  s.with_path_and_kernel(RunMethod::annealing, config, context, result,
                         [](const auto&, const auto&) {});
};

}  // namespace logz
