// `logz run` for [model] type = "ising": the R x C torus annealed from uniform
// spins, single-site Metropolis or heat-bath updates, reverse runs from an
// equilibrated ground state.
#include <cmath>
#include <string>

#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/lattice_runner.hpp"
#include "logz/services/model_runners.hpp"

namespace logz {

ExperimentResult run_ising_experiment(Config& config, const ProgressFn& progress) {
  auto m = config.section("model");
  m.check_known({"type", "rows", "cols", "size", "coupling", "beta"});
  int rows = 0, cols = 0;
  if (m.has("size")) {
    if (m.has("rows") || m.has("cols")) m.fail("size", "either size or rows and cols, not both");
    rows = cols = static_cast<int>(m.get_int("size", std::nullopt, 1, 32768));
  } else {
    rows = static_cast<int>(m.get_int("rows", std::nullopt, 1, 32768));
    cols = static_cast<int>(m.get_int("cols", std::nullopt, 1, 32768));
  }
  const double coupling = m.get_double("coupling", 1.0, -1e6, 1e6);
  const double beta = m.get_double("beta", 1.0, 0.0, 1e6);
  const IsingModel model(rows, cols, coupling, beta);

  auto k = config.section("kernel");
  k.check_known({"type", "steps_per_temperature", "site_order"});
  const std::string type = k.get_string("type", "metropolis", {"metropolis", "heat_bath"});
  const auto order = parse_site_order(k.get_string("site_order", "random", {"random", "checkerboard"}));
  const auto steps = static_cast<std::size_t>(k.get_int("steps_per_temperature", 1000, 1));

  ExperimentResult result;
  result.model = {{"type", "ising"}, {"rows", rows}, {"cols", cols}, {"coupling", coupling},
                  {"beta", beta}, {"num_sites", model.num_sites()}, {"base", "uniform spins"}};
  result.base_log_z = model.base_log_z();
  result.reference = Reference{exact::ising_log_z_kaufman(rows, cols, beta, coupling), "kaufman"};
  result.kernel = {{"type", type}, {"site_order", to_string(order)},
                   {"steps_per_temperature", steps},
                   {"step_unit", order == SiteOrder::random ? "single-site update" : "sweep"}};

  const std::string method = read_run_method(config);
  LatticeGroundStates ground;
  if (method == "ground_state_integration") {
    // All spins equal (J > 0) or the Neel state (J < 0, even sides): E_0 = -2N|J|, two of them;
    // the lowest excitation, one flipped spin, costs 8|J|.
    if (coupling == 0 || rows < 3 || cols < 3 || (coupling < 0 && (rows % 2 != 0 || cols % 2 != 0)))
      m.fail("coupling", "J > 0 (or J < 0 with even sides) and sides >= 3 for integration from the ground state");
    ground = {-2.0 * model.num_sites() * std::abs(coupling), std::log(2.0), 8 * std::abs(coupling)};
  }
  const Schedule schedule = method == "annealing" ? read_schedule(config) : linear_schedule(1);
  if (method == "annealing")
    for (double t : schedule.fractions())
      result.equilibrium_energy.push_back(exact::ising_mean_energy_kaufman(rows, cols, t * beta, coupling));
  run_lattice_method<SpinFlipMetropolis>(model, {type, order, steps}, method, schedule, ground, config, progress,
                                         result);
  return result;
}

}  // namespace logz
