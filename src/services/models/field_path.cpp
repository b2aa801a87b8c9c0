#include "field_path.hpp"

#include <cmath>

namespace logz {

const Key& lattice_path_key() {
  static const Key key =
      Key::choice("path", std::string("temperature"), {"temperature", "field"},
                  "the annealing path: the temperature from a uniform base, or around the "
                  "transition from a field on one colour (heat bath; docs/config.md)");
  return key;
}

const Key& field_key() {
  static const Key key =
      Key::number("field", 10.0, 1e-6, PottsFieldPath::kMaxLogWeightRange,
                  "path = \"field\": the base's field h0 on colour 0 (log-weight per site)");
  return key;
}

bool read_field_path(ConfigSection& model, Config& config, const LatticeKernelSettings& kernel,
                     RunMethod method, double beta_coupling) {
  if (model.get_string(lattice_path_key()) != "field") return false;
  if (kernel.type != LatticeKernelType::heat_bath && kernel.type != LatticeKernelType::multispin)
    config.section("kernel").fail("type",
                                  "\"heat_bath\" or \"multispin\" with [model] path = \"field\"");
  if (method != RunMethod::annealing && method != RunMethod::population_annealing)
    model.fail(lattice_path_key(),
               "\"temperature\" unless [run] method = \"annealing\" or \"population_annealing\"");
  if (4.0 * std::abs(beta_coupling) + model.get_double(field_key()) >
      PottsFieldPath::kMaxLogWeightRange)
    model.fail(field_key(), "4 |beta J| + field <= 600 (J of the Potts model the path runs on)");
  return true;
}

}  // namespace logz
