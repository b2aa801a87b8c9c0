// The [run] methods, in RunMethod's order. A method is its driver's header (the driver, and
// beside it a struct with kId, kSummary, kDocs, kCheckpoints, its keys(), what it needs of a
// setup as runs_on, and run) plus its enumerator (services/methods.hpp) and one line here. The
// families hand their setups (services/method_setup.hpp) to run_method; a model's methods and
// their key groups are the ones its setup runs (methods_on, method_key_groups), and
// method_registry() is this list: nothing else names the methods.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "logz/services/annealing_experiment.hpp"
#include "logz/services/ground_state_experiment.hpp"
#include "logz/services/method_setup.hpp"
#include "logz/services/parallel_tempering_experiment.hpp"
#include "logz/services/population_annealing_experiment.hpp"
#include "logz/services/smc_experiment.hpp"
#include "logz/services/tempering_experiment.hpp"

namespace logz {

template <class... M>
struct MethodList {
  static constexpr std::size_t size = sizeof...(M);
  // f(std::type_identity<M>{}) for every method, in order.
  template <class F>
  static void for_each(F&& f) {
    (f(std::type_identity<M>{}), ...);
  }
  // Each method's kId is its position in the list (method_entry indexes by it).
  static constexpr bool in_enum_order() {
    std::size_t i = 0;
    return ((static_cast<std::size_t>(M::kId) == i++) && ...);
  }
};

using RunMethods = MethodList<AnnealingMethod, TemperingMethod, GroundStateMethod, SmcMethod,
                              PopulationAnnealingMethod, ParallelTemperingMethod>;
static_assert(RunMethods::in_enum_order(), "RunMethods must list the methods in RunMethod's order");

// The methods that run on Setup, in the list's order.
template <class Setup>
std::vector<RunMethod> methods_on() {
  std::vector<RunMethod> methods;
  RunMethods::for_each([&]<class M>(std::type_identity<M>) {
    if constexpr (M::template runs_on<Setup>) methods.push_back(M::kId);
  });
  return methods;
}

// `groups` (a model's own and the shared ones) followed by the key groups of the methods that run
// on Setup (those with keys of their own), in order.
template <class Setup>
std::vector<const KeyGroup*> method_key_groups(std::vector<const KeyGroup*> groups = {}) {
  RunMethods::for_each([&]<class M>(std::type_identity<M>) {
    if constexpr (M::template runs_on<Setup>)
      if (const KeyGroup* keys = M::keys()) groups.push_back(keys);
  });
  return groups;
}

// Runs `method` on the setup; `method` must be one of methods_on<Setup>() (read_run_method has
// checked it against them).
template <class Setup>
void run_method(RunMethod method, const Setup& setup, Config& config, const RunContext& context,
                RunResult& result) {
  bool ran = false;
  RunMethods::for_each([&]<class M>(std::type_identity<M>) {
    if constexpr (M::template runs_on<Setup>)
      if (M::kId == method) {
        M::run(setup, config, context, result);
        ran = true;
      }
  });
  if (!ran)
    throw std::logic_error("logz::run_method: " + to_string(method) +
                           " does not run on this model's setup");
}

}  // namespace logz
