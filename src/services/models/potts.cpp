// [model] type = "potts": the q-state Potts model on an R x C torus (by default the paper's
// q = 10, J = 2, beta = 1; Habeck 2017, section 6.2) annealed from uniform colours with
// single-site Metropolis or heat-bath updates, or around the transition from a field on colour 0
// (path = "field", heat bath); reverse runs from an equilibrated ground state;
// simulated tempering and integration from the ground state. The exact log Z and mean energies
// come from the transfer matrix when the smaller side is narrow enough, else from enumeration on
// tiny lattices, else there is no reference.
#include "logz/models/potts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "field_path.hpp"
#include "lattice_size.hpp"
#include "logz/exact/potts_enumeration.hpp"
#include "logz/exact/potts_transfer_matrix.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/multispin_potts_metropolis.hpp"
#include "logz/kernels/potts_metropolis.hpp"
#include "logz/models/packed_potts.hpp"
#include "logz/models/packed_potts_field_path.hpp"
#include "services/families/lattice_family.hpp"

namespace logz {

namespace {

// The enumeration is run from `logz run` only when it takes well under a second.
constexpr double kRunnerEnumerationMaxStates = 2e7;
// Exact mean energies at every temperature of the schedule only when they cost
// less than about this many multiply-adds in all (a few seconds).
constexpr double kRunnerTraceMaxWork = 4e9;

// log Z and <E> at beta from the enumeration's density of states.
struct LevelSum {
  double log_z, mean_energy;
};

LevelSum sum_levels(const std::vector<std::uint64_t>& counts, double beta, double coupling) {
  double top = -INFINITY;
  for (std::size_t n = 0; n < counts.size(); ++n)
    if (counts[n] > 0)
      top = std::max(top, std::log(static_cast<double>(counts[n])) + beta * coupling * n);
  double z = 0.0, e = 0.0;
  for (std::size_t n = 0; n < counts.size(); ++n) {
    if (counts[n] == 0) continue;
    const double w = std::exp(std::log(static_cast<double>(counts[n])) + beta * coupling * n - top);
    z += w;
    e += w * (-coupling * static_cast<double>(n));
  }
  return {top + std::log(z), e / z};
}

bool transfer_matrix_affordable(int rows, int cols, int q, double beta, double j) {
  return exact::potts_transfer_matrix_feasible(rows, cols, q) &&
         std::abs(beta * j) * 2.0 * std::min(rows, cols) <= 600.0;
}

bool enumeration_affordable(int rows, int cols, int q) {
  return std::pow(static_cast<double>(q), rows * static_cast<double>(cols) - 1.0) <=
         kRunnerEnumerationMaxStates;
}

// The exact log Z where it is affordable (transfer matrix, else enumeration), else nullopt.
std::optional<Reference> potts_reference(int rows, int cols, int q, double beta, double j) {
  if (transfer_matrix_affordable(rows, cols, q, beta, j))
    return Reference{exact::potts_log_z_transfer_matrix(rows, cols, q, beta, j), "transfer_matrix"};
  if (enumeration_affordable(rows, cols, q))
    return Reference{sum_levels(exact::potts_equal_bond_counts(rows, cols, q), beta, j).log_z,
                     "enumeration"};
  return std::nullopt;
}

// The exact reference and the equilibrium energy trace, where one is affordable.
void add_reference(const PottsModel& model, int rows, int cols, std::span<const double> fractions,
                   RunResult& result) {
  const int q = model.num_colours();
  const double beta = model.beta(), j = model.coupling();
  result.reference = potts_reference(rows, cols, q, beta, j);
  if (!result.reference) return;  // no exact answer is known
  if (result.reference->source == "transfer_matrix") {
    const double cost = exact::potts_transfer_matrix_cost(rows, cols, q) * 2.0 *
                        static_cast<double>(fractions.size());
    if (cost <= kRunnerTraceMaxWork)
      for (double t : fractions)
        result.equilibrium_energy.push_back(
            exact::potts_mean_energy_transfer_matrix(rows, cols, q, t * beta, j));
    return;
  }
  const auto counts = exact::potts_equal_bond_counts(rows, cols, q);
  for (double t : fractions)
    result.equilibrium_energy.push_back(sum_levels(counts, t * beta, j).mean_energy);
}

const Key kColours = Key::integer("q", 10, 2, PottsModel::kMaxColours, "the number of colours");
const Key kCoupling =
    Key::number("coupling", 2.0, -1e6, 1e6, "J in E = -J sum over bonds of delta(x_i, x_j)");
const Key kBeta = Key::number("beta", 1.0, 0.0, 1e6, "the target's inverse temperature");
const KeyGroup kModelKeys{"model",
                          "potts",
                          {&lattice_rows_key(), &lattice_cols_key(), &lattice_size_key(), &kColours,
                           &kCoupling, &kBeta, &lattice_path_key(), &field_key()}};

RunResult run_potts(Config& config, const RunContext& context) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const LatticeSize size = read_lattice_size(m);
  const int rows = size.rows, cols = size.cols;
  const int q = static_cast<int>(m.get_int(kColours));
  const double coupling = m.get_double(kCoupling);
  const double beta = m.get_double(kBeta);
  const PottsModel model(rows, cols, q, coupling, beta);

  RunResult result;
  const LatticeKernelSettings kernel = read_lattice_kernel(config, coupling, result);
  const RunMethod method = read_run_method(config, lattice_methods());
  const RunDefaults multispin = kernel.type == LatticeKernelType::multispin
                                    ? multispin_run_defaults(config, method)
                                    : RunDefaults{};
  const bool annealing = method == RunMethod::annealing;
  const Schedule schedule = annealing ? read_schedule(config) : linear_schedule(1);

  result.model = {{"type", "potts"},
                  {"rows", rows},
                  {"cols", cols},
                  {"q", q},
                  {"coupling", coupling},
                  {"beta", beta},
                  {"num_sites", model.num_sites()},
                  {"base", "uniform colours"}};
  result.base_log_z = model.base_log_z();
  // One colour everywhere: E_0 = -2NJ, q of them; one site of another colour costs 4J.
  auto ground_states = [&]() -> LatticeGroundStates {
    if (!(coupling > 0) || rows < 3 || cols < 3)
      m.fail(kCoupling, "J > 0 and sides >= 3 for integration from the ground state");
    return {-2.0 * model.num_sites() * coupling, std::log(q), 4 * coupling};
  };
  if (method == RunMethod::ground_state_integration) ground_states();  // before the field path's
  if (read_field_path(m, config, kernel, method, beta * coupling)) {
    if (kernel.type == LatticeKernelType::multispin)
      anneal_field_path(PackedPottsFieldPath(model, m.get_double(field_key())),
                        MultiSpinPottsMetropolis(kernel.order, kernel.steps), method, schedule,
                        config, context, result, multispin_run_defaults(config, method));
    else
      anneal_field_path(PottsFieldPath(model, m.get_double(field_key())),
                        HeatBath(kernel.order, kernel.steps), method, schedule, config, context,
                        result);
    add_reference(model, rows, cols, {},
                  result);  // the equilibrium trace is the temperature path's
    return result;
  }
  if (kernel.type == LatticeKernelType::multispin && method == RunMethod::population_annealing)
    population_anneal_and_estimate(
        PackedPottsModel(model), MultiSpinPottsMetropolis(kernel.order, kernel.steps), config,
        context, result, static_cast<std::size_t>(multispin.chunk_multiple));
  else if (kernel.type == LatticeKernelType::multispin)
    anneal_from_ground_state(
        PackedPottsModel(model), MultiSpinPottsMetropolis(kernel.order, kernel.steps), schedule,
        read_run_settings(config, {"ground_state"}, multispin), context, result);
  else
    run_method(method, LatticeMethods<PottsModel, PottsMetropolis>(model, kernel, ground_states),
               config, context, result);
  // After the run: an adaptive schedule is placed by it. Tempering reads its own ladder and
  // integration has none, so they get no energy trace.
  add_reference(model, rows, cols,
                annealing ? annealed_fractions(result) : std::span<const double>{}, result);
  return result;
}

}  // namespace

ModelEntry potts_model_entry() {
  ModelEntry entry =
      lattice_model_entry("potts",
                          "the q-state Potts model on an R x C torus, E = -J sum delta(x_i, x_j), "
                          "annealed from uniform colours",
                          "transfer matrix or enumeration (small lattices)", kModelKeys, run_potts);
  entry.exact = [](Config& config) {
    auto m = config.section("model");
    m.check_known({&model_type_keys(), &kModelKeys});
    const LatticeSize size = read_lattice_size(m);
    return potts_reference(size.rows, size.cols, static_cast<int>(m.get_int(kColours)),
                           m.get_double(kBeta), m.get_double(kCoupling));
  };
  return entry;
}

}  // namespace logz
