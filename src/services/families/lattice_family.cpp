#include "services/families/lattice_family.hpp"

#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"

namespace logz {

namespace {

const Key kType = Key::enumeration(
    "type", LatticeKernelType::metropolis,
    "the update: single-site Metropolis (flip / new colour) or heat bath; multispin: "
    "checkerboard Metropolis on 64 paths at once (annealing); swendsen_wang, wolff: "
    "cluster moves (J >= 0)");
// 10^8 single-site updates (about a second) per temperature: the defaults' 2 x 100 x 999
// path-temperatures in about two days on one core.
const Key kSteps =
    Key::integer("steps_per_temperature", 1000, 1, 100000000,
                 "N: updates per temperature (site_order random: single-site updates; "
                 "checkerboard and swendsen_wang: sweeps; wolff: clusters)");
const Key kSiteOrder = Key::enumeration(
    "site_order", SiteOrder::random,
    "a random site per update, or checkerboard sweeps (multispin: checkerboard only)");
// 10^5 sweeps of a 32 x 32 lattice per cluster step: the defaults in about two days.
const Key kLocalSweeps =
    Key::integer("local_sweeps", 0, 0, 100000,
                 "swendsen_wang and wolff: checkerboard heat-bath sweeps after each cluster step");
const KeyGroup kLatticeKernelKeys{
    "kernel", "lattice kernels", {&kType, &kSteps, &kSiteOrder, &kLocalSweeps}};

}  // namespace

const KeyGroup& lattice_kernel_keys() { return kLatticeKernelKeys; }

// One line per kernel of LatticeKernelType, in its order.
const char* summary_of(LatticeKernelType t) {
  switch (t) {
    case LatticeKernelType::metropolis:
      return "single-site Metropolis: a spin flip (Ising) or a new colour (Potts)";
    case LatticeKernelType::heat_bath:
      return "single-site heat bath (Gibbs) update";
    case LatticeKernelType::multispin:
      return "checkerboard single-site Metropolis on 64 paths at once (multi-spin coding; "
             "annealing only)";
    case LatticeKernelType::swendsen_wang:
      return "Swendsen-Wang cluster moves, one sweep per step (J >= 0)";
    case LatticeKernelType::wolff:
      return "Wolff single-cluster moves, one cluster per step (J >= 0)";
  }
  return "";
}

std::vector<KernelEntry> lattice_kernel_entries() {
  std::vector<KernelEntry> entries;
  for (std::size_t i = 0; i < EnumNames<LatticeKernelType>::names.size(); ++i) {
    const auto t = static_cast<LatticeKernelType>(i);
    entries.push_back({"lattice", to_string(t), summary_of(t), &kLatticeKernelKeys});
  }
  return entries;
}

LatticeKernelSettings read_lattice_kernel(Config& config, double coupling, RunResult& result) {
  auto k = config.section("kernel");
  k.check_known({&kLatticeKernelKeys});
  LatticeKernelSettings s;
  s.type = k.get_enum<LatticeKernelType>(kType);
  const std::string quoted = "\"" + to_string(s.type) + "\"";
  if (is_cluster_kernel(s.type)) {
    // Clusters join equal sites, which only a ferromagnetic coupling favours.
    if (coupling < 0)
      k.fail(kType, "a single-site kernel with [model] coupling < 0 (" + quoted + " needs J >= 0)");
    const char* unit = s.type == LatticeKernelType::wolff ? "cluster" : "sweep";
    if (k.has(kSiteOrder))
      k.fail(kSiteOrder, "no site_order with type = " + quoted + " (a step is a " + unit + ")");
    s.steps = static_cast<std::size_t>(k.get_int(kSteps));
    s.local_sweeps = static_cast<std::size_t>(k.get_int(kLocalSweeps));
    result.kernel = {{"type", to_string(s.type)},
                     {"steps_per_temperature", s.steps},
                     {"step_unit", unit},
                     {"local_sweeps", s.local_sweeps}};
    return s;
  }
  if (k.has(kLocalSweeps))
    k.fail(kLocalSweeps, "no local_sweeps with type = " + quoted + " (it follows cluster moves)");
  const bool multispin = s.type == LatticeKernelType::multispin;
  s.order =
      k.get_enum<SiteOrder>(kSiteOrder, multispin ? SiteOrder::checkerboard : SiteOrder::random);
  if (multispin && s.order != SiteOrder::checkerboard)
    k.fail(kSiteOrder, "\"checkerboard\" with type = \"multispin\" (it sweeps the sites in order)");
  s.steps = static_cast<std::size_t>(k.get_int(kSteps));
  result.kernel = {{"type", to_string(s.type)},
                   {"site_order", to_string(s.order)},
                   {"steps_per_temperature", s.steps},
                   {"step_unit", s.order == SiteOrder::random ? "single-site update" : "sweep"}};
  return s;
}

RunDefaults multispin_run_defaults(Config& config, RunMethod method) {
  if (method != RunMethod::annealing && method != RunMethod::population_annealing)
    config.section("kernel").fail(kType, "\"metropolis\" or \"heat_bath\" with [run] method = \"" +
                                             to_string(method) +
                                             "\" (\"multispin\" runs annealing and population "
                                             "annealing only)");
  // Four groups of 64 a chunk: the Ising sweeps run groups side by side in vectors
  // (kernels/multispin_ising_sweeps.hpp), and 1024 paths still make four chunks for threads.
  return {.chunk_size = 256, .chunk_multiple = 64};
}

// Every lattice model's setup offers the same: the Ising model's stands for them all.
using LatticeSetup = LatticeMethods<IsingModel, SpinFlipMetropolis>;

const std::vector<RunMethod>& lattice_methods() {
  static const std::vector<RunMethod> methods = methods_on<LatticeSetup>();
  return methods;
}

std::vector<const KeyGroup*> lattice_key_groups(const KeyGroup& model_keys) {
  return method_key_groups<LatticeSetup>(
      {&model_keys, &kLatticeKernelKeys, &run_keys(), &schedule_keys(), &estimator_keys()});
}

ModelEntry lattice_model_entry(std::string name, std::string summary, std::string reference,
                               const KeyGroup& model_keys,
                               std::function<RunResult(Config&, const RunContext&)> run) {
  return {.name = std::move(name),
          .summary = std::move(summary),
          .docs = "docs/config.md",
          .methods = lattice_methods(),
          .kernels = lattice_kernel_entries(),
          .reverse_starts = {"ground_state"},
          .reference = std::move(reference),
          .keys = lattice_key_groups(model_keys),
          .run = std::move(run)};
}

}  // namespace logz
