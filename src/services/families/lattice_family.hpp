// What the Ising and Potts services share once the model is built: the lattice kernels (heat
// bath, cluster moves or the model's Metropolis, their [kernel] keys) and what the [run] methods
// need of them (LatticeMethods): annealing with reverse runs from an equilibrated ground state,
// the kernels for tempering and population annealing, the ground states for integration.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/kernel_sequence.hpp"
#include "logz/kernels/site_order.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/kernels/wolff.hpp"
#include "logz/services/method_list.hpp"

namespace logz {

// The lattice kernels' [kernel] keys and registry entries.
const KeyGroup& lattice_kernel_keys();
std::vector<KernelEntry> lattice_kernel_entries();

// The lattice kernels a config can name ([kernel] type), in the order `logz list` shows them;
// services/families/lattice_family.cpp states what each is, and LatticeMethods dispatches on
// them.
LOGZ_NAMED_ENUM(LatticeKernelType, metropolis, heat_bath, multispin, swendsen_wang, wolff);

// Cluster moves (Swendsen-Wang, Wolff): J >= 0, no site order, optional local sweeps.
constexpr bool is_cluster_kernel(LatticeKernelType t) {
  return t == LatticeKernelType::swendsen_wang || t == LatticeKernelType::wolff;
}

struct LatticeKernelSettings {
  LatticeKernelType type = LatticeKernelType::metropolis;
  SiteOrder order = SiteOrder::random;
  std::size_t steps = 1;
  std::size_t local_sweeps = 0;  // cluster kernels: checkerboard heat-bath sweeps after each step
};

// [kernel] of a lattice model with coupling J; also describes it in result.kernel ("multispin"
// always sweeps in checkerboard order; the cluster kernels "swendsen_wang" and "wolff" have no
// site order and need J >= 0).
LatticeKernelSettings read_lattice_kernel(Config& config, double coupling, RunResult& result);

// The [run] defaults of the multi-spin kernel (chunks of 64 paths, a multiple of 64 required),
// after checking that `method` is annealing, the only method it runs.
RunDefaults multispin_run_defaults(Config& config, RunMethod method);

// The [run] methods of a lattice model (those LatticeMethods runs; services/method_list.hpp) and
// the sections a lattice config may have.
const std::vector<RunMethod>& lattice_methods();
std::vector<const KeyGroup*> lattice_key_groups(const KeyGroup& model_keys);

// The registry entry of a lattice model: what it shares with the others (methods, kernels,
// reverse start, the shared sections) and what is its own.
ModelEntry lattice_model_entry(std::string name, std::string summary, std::string reference,
                               const KeyGroup& model_keys,
                               std::function<RunResult(Config&, const RunContext&)> run);

// The kernel that equilibrates a reverse start for `sweeps` sweeps of N sites: the run's kernel
// (a step is a sweep, or a single-site update in random order), except for Wolff, whose steps
// are clusters of any size: Swendsen-Wang sweeps leave the same target invariant at a known cost.
template <class Kernel>
Kernel equilibration_kernel(const Kernel& kernel, std::size_t sweeps, int num_sites) {
  if constexpr (requires { kernel.order(); })
    if (kernel.order() == SiteOrder::random)
      return kernel.with_steps(sweeps * static_cast<std::size_t>(num_sites));
  return kernel.with_steps(sweeps);
}
inline SwendsenWang equilibration_kernel(const Wolff&, std::size_t sweeps, int) {
  return SwendsenWang(sweeps);
}
// A cluster move followed by local sweeps: the cluster move's equilibration.
template <class First, class Second>
auto equilibration_kernel(const KernelSequence<First, Second>& kernel, std::size_t sweeps,
                          int num_sites) {
  return equilibration_kernel(kernel.first(), sweeps, num_sites);
}

// The paper's reverse start: a ground state equilibrated at the target for
// run.equilibration_sweeps sweeps, then annealing in both directions.
template <class Model, class Kernel>
void anneal_from_ground_state(const Model& model, const Kernel& kernel, const Schedule& schedule,
                              const RunSettings& run, const RunContext& context,
                              RunResult& result) {
  const auto equilibrate =
      equilibration_kernel(kernel, run.equilibration_sweeps, model.num_sites());
  const auto target = model.at(1.0);
  auto start = [&](typename Model::Batch& batch, const ChunkStreams& streams) {
    model.ground_state(batch, streams.random(0));
    if (run.equilibration_sweeps > 0)
      step_kernel(equilibrate, target, batch, streams.random(1), context.stop);
    // A path whose end restricts the model (PottsFieldPath) turns the model's draws into its own.
    if constexpr (requires { model.relabel_to_colour0(batch, streams.random(2)); })
      model.relabel_to_colour0(batch, streams.random(2));
  };
  anneal_and_estimate(model, kernel, schedule, run, start, context, result);
  result.budget = annealing_budget(result, "site update");
  const std::uint64_t start_cost =
      run.equilibration_sweeps * static_cast<std::uint64_t>(model.num_sites());
  if (result.pilot && result.pilot->reverse_paths > 0)
    result.budget->parts.emplace_back("pilot_reverse_start",
                                      start_cost * result.pilot->reverse_paths);
  if (result.reverse && run.reverse_start != "resampled")
    result.budget->parts.emplace_back("reverse_start", start_cost * run.num_paths);
}

// Calls run_with(kernel) with the cluster kernel of k, followed by k.local_sweeps checkerboard
// heat-bath sweeps if asked for.
template <class RunWith>
void run_cluster_kernel(const LatticeKernelSettings& k, const RunWith& run_with) {
  auto with_local = [&](const auto& cluster) {
    if (k.local_sweeps == 0)
      run_with(cluster);
    else
      run_with(KernelSequence(cluster, HeatBath(SiteOrder::checkerboard, k.local_sweeps)));
  };
  if (k.type == LatticeKernelType::wolff)
    with_local(Wolff(k.steps));
  else
    with_local(SwendsenWang(k.steps));
}

// What a lattice model hands the [run] methods (services/method_setup.hpp): the model as the
// path, the heat-bath, cluster or the model's Metropolis kernel of [kernel], annealing from an
// equilibrated ground state, and the ground states (from ground_states, which checks that the
// model has them).
template <class Model, class Metropolis>
class LatticeMethods {
 public:
  LatticeMethods(const Model& model, const LatticeKernelSettings& kernel,
                 std::function<LatticeGroundStates()> ground_states)
      : model_(model), kernel_(kernel), ground_states_(std::move(ground_states)) {}

  const Model& path() const { return model_; }
  LatticeGroundStates ground_states() const { return ground_states_(); }

  template <class F>
  void with_kernel(RunMethod, Config&, RunResult&, F&& f) const {
    switch (kernel_.type) {
      case LatticeKernelType::heat_bath:
        return f(HeatBath(kernel_.order, kernel_.steps));
      case LatticeKernelType::swendsen_wang:
      case LatticeKernelType::wolff:
        return run_cluster_kernel(kernel_, f);
      case LatticeKernelType::metropolis:
        return f(Metropolis(kernel_.order, kernel_.steps));
      case LatticeKernelType::multispin:
        break;  // the models run it themselves (annealing and population annealing)
    }
    fail_argument("logz::LatticeMethods", "kernel",
                  "a single-site or cluster kernel, got \"multispin\"");
  }

  void anneal(Config& config, const RunContext& context, RunResult& result) const {
    const Schedule schedule = read_schedule(config);
    with_kernel(RunMethod::annealing, config, result, [&](const auto& kernel) {
      anneal_from_ground_state(model_, kernel, schedule,
                               read_run_settings(config, {"ground_state"}), context, result);
    });
  }

 private:
  const Model& model_;
  LatticeKernelSettings kernel_;
  std::function<LatticeGroundStates()> ground_states_;
};

}  // namespace logz
