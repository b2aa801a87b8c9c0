// The methods a config can name ([run] method): each an entry with what it is and where it is
// documented, made from the method list (services/method_list.hpp), whose structs say what they
// need of a model and run it. Nothing compares their names as strings. Adding a method: its
// driver's header, one enumerator here and one line in the list.
#pragma once

#include <string>
#include <vector>

#include "logz/core/enum_names.hpp"

namespace logz {

LOGZ_NAMED_ENUM(RunMethod, annealing, tempering, ground_state_integration, smc,
                population_annealing, parallel_tempering);

struct MethodEntry {
  RunMethod method;
  std::string summary;       // one line
  std::string docs;          // the page that documents it
  bool checkpoints = false;  // `logz run --checkpoint` can save and resume it
};

// One entry per RunMethod, in its order (from RunMethods); the entry of `method`.
const std::vector<MethodEntry>& method_registry();
const MethodEntry& method_entry(RunMethod method);

}  // namespace logz
