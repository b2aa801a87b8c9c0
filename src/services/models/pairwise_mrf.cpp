// [model] type = "pairwise_mrf": a general pairwise binary Markov random field (a fully visible
// Boltzmann machine), E(x) = -(1/2) x^T W x - b^T x over x in {0, 1}^n, with symmetric couplings
// W (zero diagonal) and fields b from an .npz file or drawn at random. The target is
// exp(-beta E); annealing from the uniform base (log Z_0 = n log 2) along t beta E with
// random-scan heat-bath updates, or simulated tempering on the same path. Exact log Z by
// enumeration (Gray code) for small n, and exact draws for reverse starts when n <= 20.
//
// The model, its batch and path are models/pairwise_mrf.hpp, its kernel
// kernels/pairwise_mrf_heat_bath.hpp, its exact log Z and exact draws
// exact/pairwise_mrf_enumeration.hpp; this file reads the config, runs them and is the registry
// entry (one line in models.def).
#include "logz/models/pairwise_mrf.hpp"

#include <fmt/format.h>

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/exact/pairwise_mrf_enumeration.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/pairwise_mrf_heat_bath.hpp"
#include "logz/services/method_list.hpp"

namespace logz {

namespace {

const Key kParameters =
    Key::string("parameters", std::string("random"),
                "\"random\" (seeded Gaussian couplings) or an .npz file with W and b");
const Key kCouplingsKey =
    Key::string("couplings_key", std::string("W"), "the .npz member of W (n x n, symmetric)");
const Key kFieldsKey = Key::string("fields_key", std::string("b"), "the .npz member of b (n)");
const Key kUnits = Key::integer("units", 12, 1, 4096, "random: n, the number of binary units");
const Key kScale =
    Key::number("scale", 0.5, 0.0, 1e3, "random: the sd of the couplings and fields");
const Key kParameterSeed =
    Key::integer("parameter_seed", 1, 0, INT64_MAX, "random: the seed of W and b");
const Key kBeta = Key::number("beta", 1.0, 0.0, 1e6, "the target's inverse temperature");
const Key kExactMaxUnits =
    Key::integer("exact_max_units", 20, 0, 30, "enumerate the exact log Z up to this many units");
const KeyGroup kModelKeys{"model",
                          "pairwise_mrf",
                          {&kParameters, &kCouplingsKey, &kFieldsKey, &kUnits, &kScale,
                           &kParameterSeed, &kBeta, &kExactMaxUnits}};

const Key kKernelType =
    Key::choice("type", std::string("heat_bath"), {"heat_bath"}, "random-scan heat bath");
// 10^8 single-unit updates (about a second) per temperature, as for the lattices.
const Key kSteps = Key::integer("steps_per_temperature", Computed{"the number of units"}, 1,
                                100000000, "single-unit updates per temperature");
const KeyGroup kKernelKeys{"kernel", "pairwise_mrf kernels", {&kKernelType, &kSteps}};

PairwiseMrfParameters load_parameters(const std::string& path, const std::string& w_key,
                                      const std::string& b_key) {
  const io::Array w = io::read_npz_array(path, w_key).to_float64(),
                  b = io::read_npz_array(path, b_key).to_float64();
  if (b.ndim() != 1 || b.size() < 1 || b.size() > 4096)
    fail_input(path, b_key,
               "a vector of 1 to 4096 fields, got shape " + io::shape_to_string(b.shape));
  const auto n = static_cast<Eigen::Index>(b.size());
  if (w.ndim() != 2 || w.shape[0] != b.size() || w.shape[1] != b.size())
    fail_input(path, w_key,
               fmt::format("a {} x {} matrix (one row per field), got shape {}", n, n,
                           io::shape_to_string(w.shape)));
  PairwiseMrfParameters m{
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          w.doubles().data(), n, n),
      Eigen::Map<const Eigen::VectorXd>(b.doubles().data(), n)};
  if (!m.W.allFinite() || !m.b.allFinite()) fail_input(path, w_key + ", " + b_key, "finite values");
  for (Eigen::Index i = 0; i < n; ++i) {
    if (m.W(i, i) != 0.0)
      fail_input(path, w_key, fmt::format("a zero diagonal, got {} at [{}, {}]", m.W(i, i), i, i));
    for (Eigen::Index j = 0; j < i; ++j)
      if (m.W(i, j) != m.W(j, i))
        fail_input(path, w_key,
                   fmt::format("a symmetric matrix, [{}, {}] != [{}, {}]", i, j, j, i));
  }
  return m;
}

// [model]: the couplings and fields, the target's beta and how many units are enumerated.
struct MrfSpec {
  PairwiseMrfParameters parameters;
  double beta;
  std::int64_t exact_max_units;
  Record desc;
};

MrfSpec read_pairwise_mrf(Config& config) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const std::string params = m.get_string(kParameters);
  MrfSpec spec{{}, 0.0, 0, {{"type", "pairwise_mrf"}, {"parameters", params}}};
  if (params == "random") {
    const auto n = static_cast<int>(m.get_int(kUnits));
    const double scale = m.get_double(kScale);
    const auto seed = static_cast<std::uint64_t>(m.get_int(kParameterSeed));
    spec.desc.set("scale", scale);
    spec.desc.set("parameter_seed", seed);
    spec.parameters = random_pairwise_mrf_parameters(n, scale, seed);
  } else {
    for (const Key* k : {&kUnits, &kScale, &kParameterSeed})
      if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
    spec.parameters = load_parameters(resolve_config_path(config, params),
                                      m.get_string(kCouplingsKey), m.get_string(kFieldsKey));
  }
  spec.beta = m.get_double(kBeta);
  spec.exact_max_units = m.get_int(kExactMaxUnits);
  return spec;
}

// The exact log Z by enumeration where n <= exact_max_units: the run's reference and exact_log_z().
std::optional<Reference> mrf_reference(const PairwiseMrfParameters& parameters, double beta,
                                       std::int64_t exact_max_units) {
  if (parameters.size() > exact_max_units) return std::nullopt;
  return Reference{exact::pairwise_mrf_log_z_enumeration(parameters, beta), "enumeration"};
}

// What the MRF hands the [run] methods (services/method_setup.hpp): its path, its heat-bath
// kernel, and annealing with reverse runs from exact draws (small n) or equilibrated ones.
class PairwiseMrfMethods {
 public:
  PairwiseMrfMethods(const PairwiseMrfPath& path, const PairwiseMrfHeatBath& kernel)
      : path_(path), kernel_(kernel) {}

  const PairwiseMrfPath& path() const { return path_; }

  template <class F>
  void with_kernel(RunMethod, Config&, RunResult&, F&& f) const {
    f(kernel_);
  }

  void anneal(Config& config, const RunContext& context, RunResult& result) const {
    const int n = path_.parameters().size();
    const Schedule schedule = read_schedule(config);
    const std::vector<std::string> starts = n <= exact::kPairwiseMrfExactSamplerMaxUnits
                                                ? std::vector<std::string>{"exact", "equilibrated"}
                                                : std::vector<std::string>{"equilibrated"};
    const RunSettings run = read_run_settings(config, starts);
    std::optional<exact::PairwiseMrfExactSampler> exact_sampler;
    if (run.reverse && run.reverse_start == "exact") exact_sampler.emplace(path_);
    const PairwiseMrfHeatBath equilibrate =
        kernel_.with_steps(run.equilibration_sweeps * static_cast<std::size_t>(n));
    auto start = [&](PairwiseMrfBatch& batch, const ChunkStreams& streams) {
      if (exact_sampler) {
        exact_sampler->sample(batch, streams.random(0));
        return;
      }
      // Uniform bits equilibrated at the target for equilibration_sweeps sweeps of n updates.
      path_.sample_base(batch, streams.random(0));
      equilibrate.step(path_.at(1.0), batch, streams.random(1));
    };
    anneal_and_estimate(path_, kernel_, schedule, run, start, context, result);
  }

 private:
  const PairwiseMrfPath& path_;
  PairwiseMrfHeatBath kernel_;
};

RunResult run_pairwise_mrf(Config& config, const RunContext& context) {
  MrfSpec spec = read_pairwise_mrf(config);
  Record desc = std::move(spec.desc);
  const int n = spec.parameters.size();
  const double beta = spec.beta;
  const PairwiseMrfPath path(std::move(spec.parameters), beta);

  auto k = config.section("kernel");
  k.check_known({&kKernelKeys});
  k.get_string(kKernelType);
  const PairwiseMrfHeatBath kernel(static_cast<std::size_t>(k.get_int(kSteps, n)));

  RunResult result;
  desc.set("units", n);
  desc.set("beta", beta);
  desc.set("base", "uniform bits");
  desc.set("energy", "E(x) = -x^T W x / 2 - b^T x, x in {0, 1}^n");
  result.model = desc;
  result.base_log_z = path.base_log_z();
  result.reference = mrf_reference(path.parameters(), beta, spec.exact_max_units);
  result.kernel = {{"type", "heat_bath"},
                   {"steps_per_temperature", kernel.steps()},
                   {"step_unit", "single-unit update"}};

  run_method(read_run_method(config, methods_on<PairwiseMrfMethods>()),
             PairwiseMrfMethods(path, kernel), config, context, result);
  return result;
}

}  // namespace

ModelEntry pairwise_mrf_model_entry() {
  return {
      .name = "pairwise_mrf",
      .summary =
          "a pairwise binary MRF (fully visible Boltzmann machine), E = -x^T W x / 2 - b^T x, x in "
          "{0, 1}^n",
      .docs = "docs/config.md",
      .methods = methods_on<PairwiseMrfMethods>(),
      .kernels = {{"pairwise_mrf", "heat_bath", "random-scan single-unit heat bath", &kKernelKeys}},
      .reverse_starts = {"exact", "equilibrated"},
      .reference = "enumeration for small n",
      .keys = method_key_groups<PairwiseMrfMethods>(
          {&kModelKeys, &kKernelKeys, &run_keys(), &schedule_keys(), &estimator_keys()}),
      .run = run_pairwise_mrf,
      .exact = [](Config& c) {
        const MrfSpec spec = read_pairwise_mrf(c);
        return mrf_reference(spec.parameters, spec.beta, spec.exact_max_units);
      }};
}

}  // namespace logz
