// [model] type = "ising": the R x C torus annealed from uniform spins, single-site Metropolis or
// heat-bath updates, reverse runs from an equilibrated ground state; or around the transition
// from a field (path = "field", as the two-colour Potts model); simulated tempering and
// integration from the ground state. Exact log Z: Kaufman's formula.
#include "logz/models/ising.hpp"

#include <cmath>
#include <string>

#include "field_path.hpp"
#include "lattice_size.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/multispin_metropolis.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/models/packed_ising_field_path.hpp"
#include "services/families/lattice_family.hpp"

namespace logz {

namespace {

const Key kCoupling =
    Key::number("coupling", 1.0, -1e6, 1e6,
                "J in E = -J sum over bonds of s_i s_j (negative: antiferromagnet)");
const Key kBeta = Key::number("beta", 1.0, 0.0, 1e6, "the target's inverse temperature");
const KeyGroup kModelKeys{"model",
                          "ising",
                          {&lattice_rows_key(), &lattice_cols_key(), &lattice_size_key(),
                           &kCoupling, &kBeta, &lattice_path_key(), &field_key()}};

struct IsingSpec {
  LatticeSize size;
  double coupling, beta;
};

IsingSpec read_ising(Config& config) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const LatticeSize size = read_lattice_size(m);
  return {size, m.get_double(kCoupling), m.get_double(kBeta)};
}

std::optional<Reference> ising_exact(Config& config) {
  const IsingSpec s = read_ising(config);
  return Reference{exact::ising_log_z_kaufman(s.size.rows, s.size.cols, s.beta, s.coupling),
                   "kaufman"};
}

RunResult run_ising(Config& config, const RunContext& context) {
  const auto [size, coupling, beta] = read_ising(config);
  auto m = config.section("model");
  const IsingModel model(size.rows, size.cols, coupling, beta);

  RunResult result;
  const LatticeKernelSettings kernel = read_lattice_kernel(config, coupling, result);
  result.model = {{"type", "ising"},        {"rows", size.rows}, {"cols", size.cols},
                  {"coupling", coupling},   {"beta", beta},      {"num_sites", model.num_sites()},
                  {"base", "uniform spins"}};
  result.base_log_z = model.base_log_z();
  result.reference = ising_exact(config);

  const RunMethod method = read_run_method(config, lattice_methods());
  if (read_field_path(m, config, kernel, method, 2.0 * beta * coupling)) {
    const Schedule schedule =
        method == RunMethod::annealing ? read_schedule(config) : linear_schedule(1);
    if (kernel.type == LatticeKernelType::multispin) {
      anneal_field_path(PackedIsingFieldPath(model, m.get_double(field_key())),
                        MultiSpinMetropolis(kernel.order, kernel.steps), method, schedule, config,
                        context, result, multispin_run_defaults(config, method));
    } else {
      // The two-colour Potts model with coupling 2J: E_Ising = E_Potts + 2 J N.
      const PottsModel potts(size.rows, size.cols, 2, 2.0 * coupling, beta);
      anneal_field_path(
          PottsFieldPath(potts, m.get_double(field_key()), 2.0 * coupling * model.num_sites()),
          HeatBath(kernel.order, kernel.steps), method, schedule, config, context, result);
    }
    return result;  // the equilibrium energy trace below is the temperature path's
  }
  // All spins equal (J > 0) or the Neel state (J < 0, even sides): E_0 = -2N|J|, two of them;
  // the lowest excitation, one flipped spin, costs 8|J|.
  // Copies of the structured bindings: a lambda may not capture them by reference (clang 14).
  auto ground_states = [&m, &model, size = size, coupling = coupling]() -> LatticeGroundStates {
    if (coupling == 0 || size.rows < 3 || size.cols < 3 ||
        (coupling < 0 && (size.rows % 2 != 0 || size.cols % 2 != 0)))
      m.fail(
          kCoupling,
          "J > 0 (or J < 0 with even sides) and sides >= 3 for integration from the ground state");
    return {-2.0 * model.num_sites() * std::abs(coupling), std::log(2.0), 8 * std::abs(coupling)};
  };
  if (kernel.type == LatticeKernelType::multispin) {
    const RunDefaults multispin = multispin_run_defaults(config, method);
    if (method == RunMethod::population_annealing)
      population_anneal_and_estimate(
          PackedIsingModel(model), MultiSpinMetropolis(kernel.order, kernel.steps), config, context,
          result, static_cast<std::size_t>(multispin.chunk_multiple));
    else {
      const Schedule schedule = read_schedule(config);
      anneal_from_ground_state(
          PackedIsingModel(model), MultiSpinMetropolis(kernel.order, kernel.steps), schedule,
          read_run_settings(config, {"ground_state"}, multispin), context, result);
    }
  } else {
    run_method(method, LatticeMethods<IsingModel, SpinFlipMetropolis>(model, kernel, ground_states),
               config, context, result);
  }
  // The exact mean energy at every temperature the run visited (after it: an adaptive schedule
  // is placed by the run).
  if (method == RunMethod::annealing)
    for (double t : annealed_fractions(result)) {
      context.stop.throw_if_requested();  // O(N) per temperature: long schedules take seconds
      result.equilibrium_energy.push_back(
          exact::ising_mean_energy_kaufman(size.rows, size.cols, t * beta, coupling));
    }
  return result;
}

}  // namespace

ModelEntry ising_model_entry() {
  ModelEntry entry = lattice_model_entry(
      "ising",
      "the 2D Ising model on an R x C torus, E = -J sum s_i s_j, annealed from uniform spins",
      "kaufman", kModelKeys, run_ising);
  entry.exact = ising_exact;
  return entry;
}

}  // namespace logz
