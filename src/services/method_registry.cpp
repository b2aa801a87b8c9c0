#include "logz/services/methods.hpp"

namespace logz {

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> methods = {
      {RunMethod::annealing, "annealed importance sampling forward (and reverse) along a schedule",
       "docs/config.md", true},
      {RunMethod::tempering, "simulated tempering on a ladder of temperatures (RTS, TI, MBAR)",
       "docs/tempering.md", true},
      {RunMethod::ground_state_integration,
       "thermodynamic integration from the ground states (lattice models)", "docs/config.md"},
      {RunMethod::smc,
       "adaptive tempered SMC from an exactly sampled base (continuous models; [smc])",
       "docs/smc.md"},
      {RunMethod::population_annealing,
       "population annealing: replicas resampled at adaptive temperatures (lattice models; "
       "[population_annealing])",
       "docs/population_annealing.md"},
  };
  return methods;
}

const MethodEntry& method_entry(RunMethod method) {
  return method_registry()[static_cast<std::size_t>(method)];
}

}  // namespace logz
