// [model] path = "field" of the lattice models (Potts, and Ising as the two-colour Potts model):
// annealing around the ferromagnet's transition from a field on colour 0
// (models/potts_field_path.hpp; docs/config.md).
#pragma once

#include <string>

#include "logz/config/config.hpp"
#include "logz/models/potts_field_path.hpp"
#include "services/families/lattice_family.hpp"

namespace logz {

const Key& lattice_path_key();  // path: "temperature" or "field"
const Key& field_key();         // field: h0

// Whether [model] path is "field"; then the checks that hold for any field path: the heat bath,
// [run] method = "annealing", and 4 |beta J| + h0 within PottsFieldPath's range (J: the
// Potts coupling the path runs on).
bool read_field_path(ConfigSection& model, Config& config, const LatticeKernelSettings& kernel,
                     RunMethod method, double beta_coupling);

// Anneals `path` with the heat bath in both directions from relabelled ground states (or runs
// population annealing along it), and fills result's model description (path, field, base) and
// base_log_z.
void anneal_field_path(const PottsFieldPath& path, const LatticeKernelSettings& kernel,
                       RunMethod method, const Schedule& schedule, Config& config,
                       const RunContext& context, RunResult& result);

}  // namespace logz
