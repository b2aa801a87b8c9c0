#include "services/families/continuous_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/random/derived_seed.hpp"

namespace logz {
// Where [data] comes from, and what [base] is: read once into these, dispatched on them.
LOGZ_NAMED_ENUM(ContinuousDataSource, file, model);
LOGZ_NAMED_ENUM(ContinuousBaseType, gaussian, fitted);
}  // namespace logz

namespace logz::continuous {

namespace {

constexpr double kMax = kLargestScale;

// ---------------------------------------------------------------- [model]
const Key kParameters = Key::string(
    "parameters", std::string("random"),
    "\"random\" (seeded) or an .npz file of the model's arrays (the *_key keys name them)");
const Key kParameterSeed =
    Key::integer("parameter_seed", 1, 0, INT64_MAX, "random: the seed of the parameters");
const Key kSigmaNoise = Key::number("sigma_noise", 0.1, 1e-300, kMax, "the noise sd sigma_n");
const Key kDataDim = Key::integer("data_dim", 36, 1, 4096, "random: the dimension of x");

// ---------------------------------------------------------------- [data]
template <NamedEnum E>
std::vector<std::string> enum_choices() {
  const auto& names = EnumNames<E>::names;
  return {names.begin(), names.end()};
}

const Key kSource = Key::choice("source", Computed{"\"file\" when file is given, else \"model\""},
                                enum_choices<ContinuousDataSource>(),
                                "data points from a file or drawn from the model (exact draws)");
const Key kFile =
    Key::string("file", required, ".npy, or .npz with key: one data point per row (N x d)");
const Key kKey = Key::string("key", std::string("X"), "the .npz member of the data");
const Key kNumPoints =
    Key::integer("num_points", 100, 1, 1 << 24, "model: how many points to draw");
const Key kDataSeed = Key::integer("seed", 1, 0, INT64_MAX, "model: the seed of the draws");
const Key kIndex =
    Key::integer("index", 0, 0, 0xffffffffLL, "the data point of `logz run` (generative models)");
const KeyGroup kDataKeys{
    "data", "continuous data", {&kSource, &kFile, &kKey, &kNumPoints, &kDataSeed, &kIndex}};

// ---------------------------------------------------------------- [base]
const Key kBaseType =
    Key::enumeration("type", ContinuousBaseType::gaussian,
                     "isotropic N(0, sigma^2 I), or the mean and covariance of [data]");
const Key kSigma = Key::number("sigma", 1.0, 1e-300, kMax, "gaussian: the base's sd");
const Key kRidge =
    Key::number("ridge", 0.0, 0.0, kMax, "fitted: added to the covariance's diagonal");
const KeyGroup kBaseKeys{"base", "continuous base", {&kBaseType, &kSigma, &kRidge}};

// ---------------------------------------------------------------- [kernel]
const Key kType = Key::choice("type", Computed{"\"hais\" (gaussian_mixture: \"hmc\")"},
                              continuous_kernel_names(), "the kernel (logz list shows them)");
// The defaults of the keys that fill KernelSettings are its own (ContinuousKernelOptions' and
// StepSizeAdaptation's, kernels/continuous_kernel_options.hpp, samplers/hmc_sampler.hpp).
const KernelSettings kKernelDefaults;
const Key kStepSize = Key::number("step_size", kKernelDefaults.step_size, 1e-300, kMax,
                                  "hais, hmc: the leapfrog step size epsilon");
const Key kLeapfrogSteps = Key::integer("leapfrog_steps", Computed{"1 (gaussian_mixture: 10)"}, 1,
                                        1 << 20, "hais, hmc: leapfrog steps per move");
// Under a per-temperature step size: half the momentum power redrawn per move (narrowing
// Gaussians and issue 45's regression: a third to half the SE of the half-life rule's 0.13).
constexpr double kProfileMomentumRefresh = 0.5;
const Key kMomentumRefresh =
    Key::number("momentum_refresh", Computed{"from momentum_half_life (per_temperature: 0.5)"},
                1e-300, 1.0, "hais: gamma, the fraction of the momentum redrawn per move");
const Key kHalfLife =
    Key::number("momentum_half_life", Computed{"1.0 (not with per_temperature)"}, 1e-300, kMax,
                "hais: time units over which half the momentum power is redrawn");
const Key kProposalSd = Key::number("proposal_sd", Computed{"0.1 (gaussian_mixture: 0.5)"}, 1e-300,
                                    kMax, "metropolis: the Gaussian proposal's sd");
const Key kSteps = Key::integer("steps_per_temperature", kKernelDefaults.steps, 1, 1 << 20,
                                "metropolis: proposals per temperature");
const Key kNormals =
    Key::choice("normals", std::string("double"), {"double", "float"},
                "hais, hmc: the momentum draws' precision (float: Box-Muller in single precision "
                "from 32 random bits a normal, about half the draws' cost; |r| <= 6.66)");
const Key kAdaptation = Key::choice(
    "step_size_adaptation", Computed{"\"per_temperature\" (\"fixed\" where step_size is given)"},
    enum_choices<StepSizeTuning>(),
    "hais, hmc, mala, barker: fixed at step_size; \"pilot\", one step size adapted by a pilot "
    "run; \"per_temperature\", a step size per temperature from a pilot run (annealing)");
const Key kPilotPaths =
    Key::integer("pilot_paths", static_cast<std::int64_t>(kKernelDefaults.pilot_paths), 1, 1 << 20,
                 "pilot, per_temperature: the pilot's particles");
const Key kTargetAcceptance =
    Key::number("target_acceptance", kKernelDefaults.rule.target_acceptance, 1e-6, 1.0 - 1e-6,
                "pilot, per_temperature: the acceptance aimed at");
// The per-temperature pilot's bounds only keep a step size finite: wide.
constexpr double kProfileMinStep = 1e-8, kProfileMaxStep = 1e4;
const Key kMinStep = Key::number("min_step", Computed{"0.001 (per_temperature: 1e-8)"}, 1e-300,
                                 kMax, "pilot, per_temperature: the smallest step size");
const Key kMaxStep = Key::number("max_step", Computed{"0.25 (per_temperature: 10000)"}, 1e-300,
                                 kMax, "pilot, per_temperature: the largest step size");
const KeyGroup kKernelKeys{
    "kernel",
    "continuous kernels",
    {&kType, &kStepSize, &kLeapfrogSteps, &kMomentumRefresh, &kHalfLife, &kNormals, &kProposalSd,
     &kSteps, &kAdaptation, &kPilotPaths, &kTargetAcceptance, &kMinStep, &kMaxStep}};

// ---------------------------------------------------------------- [sampler]
const Key kChains = Key::integer("chains", 3, 1, 1 << 20, "independent chains");
// The defaults of the keys that fill HmcSamplerOptions are its own (samplers/hmc_sampler.hpp).
const HmcSamplerOptions kSamplerDefaults;
const Key kBurnIn = Key::integer("burn_in", static_cast<std::int64_t>(kSamplerDefaults.burn_in), 0,
                                 1 << 30, "moves discarded before the draws");
const Key kNumDraws =
    Key::integer("num_draws", static_cast<std::int64_t>(kSamplerDefaults.num_draws), 1, 1 << 30,
                 "draws kept per chain");
const Key kInitialStepSize = Key::number("initial_step_size", kSamplerDefaults.initial_step_size,
                                         1e-300, kMax, "the first step size");
const Key kSamplerLeapfrog = Key::integer("leapfrog_steps", kSamplerDefaults.leapfrog_steps, 1,
                                          1 << 20, "leapfrog steps per move");
const Key kSamplerTarget =
    Key::number("target_acceptance", kSamplerDefaults.adaptation.target_acceptance, 1e-6, 1 - 1e-6,
                "the acceptance the step size aims at");
const Key kSlowness = Key::number("slowness", kSamplerDefaults.adaptation.slowness, 0.0, 1 - 1e-12,
                                  "weight of the old average in the moving average");
const Key kIncrease = Key::number("step_increase", kSamplerDefaults.adaptation.increase, 1.0, 10.0,
                                  "factor when the average acceptance is above target");
const Key kDecrease = Key::number("step_decrease", kSamplerDefaults.adaptation.decrease, 1e-6, 1.0,
                                  "factor when it is below");
const Key kSamplerMinStep = Key::number("min_step", kSamplerDefaults.adaptation.min_step, 1e-300,
                                        kMax, "the smallest step size");
const Key kSamplerMaxStep = Key::number("max_step", kSamplerDefaults.adaptation.max_step, 1e-300,
                                        kMax, "the largest step size");
const Key kAdapt = Key::enumeration("adapt", kSamplerDefaults.adapt, "when the step size adapts");
const Key kSamplerSeed = Key::integer("seed", static_cast<std::int64_t>(kSamplerDefaults.seed), 0,
                                      INT64_MAX, "the Philox key of the run");
const Key kSamplerThreads =
    Key::integer("threads", kSamplerDefaults.threads, 0, 4096, "worker threads; 0: all");
const Key kSamplerChunk =
    Key::integer("chunk_size", static_cast<std::int64_t>(kSamplerDefaults.chunk_size), 1, 1 << 20,
                 "chains per chunk");
const Key kInitialSd =
    Key::number("initial_sd", 1.0, 0.0, kMax,
                "chains start at N(0, initial_sd^2 I) (bilinear_generative: at prior draws)");
const KeyGroup kSamplerKeys{
    "sampler",
    "sampler",
    {&kChains, &kBurnIn, &kNumDraws, &kInitialStepSize, &kSamplerLeapfrog, &kSamplerTarget,
     &kSlowness, &kIncrease, &kDecrease, &kSamplerMinStep, &kSamplerMaxStep, &kAdapt, &kSamplerSeed,
     &kSamplerThreads, &kSamplerChunk, &kInitialSd}};

}  // namespace

const Key& parameters_key() { return kParameters; }
const Key& parameter_seed_key() { return kParameterSeed; }
const Key& sigma_noise_key() { return kSigmaNoise; }
const Key& data_dim_key() { return kDataDim; }
Key member_key(const std::string& name, const std::string& member) {
  return Key::string(name, member, "the .npz member of " + member);
}
const KeyGroup& data_keys() { return kDataKeys; }
const KeyGroup& base_keys() { return kBaseKeys; }
const KeyGroup& kernel_keys() { return kKernelKeys; }
const KeyGroup& sampler_keys() { return kSamplerKeys; }

std::vector<KernelEntry> kernel_entries() {
  std::vector<KernelEntry> entries;
  for (const auto& k : continuous_kernel_traits())
    entries.push_back(
        {"continuous", k.name, k.summary, &kKernelKeys, k.evaluation == "gradient evaluation"});
  return entries;
}

std::vector<const KeyGroup*> continuous_key_groups(const KeyGroup& model_keys, const KeyGroup* base,
                                                   bool data, std::vector<const KeyGroup*> more) {
  std::vector<const KeyGroup*> g = {&model_keys, &kKernelKeys, &run_keys(), &schedule_keys(),
                                    &estimator_keys()};
  if (base) g.push_back(base);
  if (data) g.push_back(&kDataKeys);
  g.insert(g.end(), more.begin(), more.end());
  return g;
}

DataSet read_data(Config& config, int dim, const DataSampler& sampler,
                  const std::string& no_sampler_note) {
  auto s = config.section("data");
  s.check_known({&kDataKeys});
  const auto source = s.get_enum<ContinuousDataSource>(
      kSource, s.has(kFile) ? ContinuousDataSource::file : ContinuousDataSource::model);
  DataSet d;
  if (source == ContinuousDataSource::file) {
    const std::string file = resolve_config_path(config, s.get_string(kFile));
    const bool npz = file.size() > 4 && file.substr(file.size() - 4) == ".npz";
    const std::string key = npz ? s.get_string(kKey) : "";
    const io::Array a = (npz ? io::read_npz_array(file, key) : io::read_npy(file)).to_float64();
    if (a.ndim() != 2 || a.cols() != static_cast<std::size_t>(dim))
      fail_input(file, npz ? key : "data",
                 fmt::format("an N x {} array (one data point per row), got {}", dim,
                             io::shape_to_string(a.shape)));
    const std::vector<double>& values = a.doubles();
    d.X.resize(dim, static_cast<Eigen::Index>(a.rows()));
    for (std::size_t i = 0; i < a.rows(); ++i)
      for (int j = 0; j < dim; ++j)
        d.X(j, static_cast<Eigen::Index>(i)) = values[i * a.cols() + static_cast<std::size_t>(j)];
    if (!d.X.allFinite()) fail_input(file, npz ? key : "data", "finite values");
    if (d.X.cols() < 1) fail_input(file, npz ? key : "data", "at least one data point");
    d.description = {{"source", "file"}, {"file", file}, {"num_points", d.X.cols()}};
  } else {
    if (!sampler)
      s.fail(kSource, "\"file\" (this model has no exact sampler: " + no_sampler_note + ")");
    const auto n = s.get_int(kNumPoints);
    const auto seed = static_cast<std::uint64_t>(s.get_int(kDataSeed));
    d.X.resize(dim, n);
    sampler(d.X, BatchRandom{seed, Purpose::base_sample, 1, 0});
    d.description = {{"source", "model"}, {"num_points", n}, {"seed", seed}};
  }
  d.index = static_cast<std::size_t>(s.get_int(kIndex.with_integer_range(0, d.X.cols() - 1)));
  return d;
}

GaussianBase read_base(Config& config, int dim, const std::function<DataSet()>& data,
                       Record& desc) {
  auto b = config.section("base");
  b.check_known({&kBaseKeys});
  const auto type =
      b.get_enum<ContinuousBaseType>(data ? kBaseType : kBaseType.with_choices({"gaussian"}));
  if (type == ContinuousBaseType::gaussian) {
    if (b.has(kRidge)) b.fail(kRidge, "no ridge with type = \"gaussian\"");
    const double sigma = b.get_double(kSigma);
    desc = {{"type", "gaussian"}, {"sigma", sigma}};
    return GaussianBase::isotropic(dim, sigma);
  }
  if (b.has(kSigma)) b.fail(kSigma, "no sigma with type = \"fitted\"");
  const double ridge = b.get_double(kRidge);
  const DataSet d = data();
  desc = {{"type", "fitted"}, {"ridge", ridge}, {"data", d.description}};
  return GaussianBase::fitted(d.X.transpose(), ridge,
                              config.source() + ": [base] fitted to [data]");
}

namespace {

// The keys of ContinuousKernelOptions by the names kernels give in kOptions; step-size
// adaptation and its pilot's keys belong to the kernels that read step_size.
const std::vector<std::pair<std::string_view, const Key*>>& option_keys() {
  static const std::vector<std::pair<std::string_view, const Key*>> keys = {
      {"step_size", &kStepSize},
      {"leapfrog_steps", &kLeapfrogSteps},
      {"momentum_refresh", &kMomentumRefresh},
      {"momentum_half_life", &kHalfLife},
      {"normals", &kNormals},
      {"proposal_sd", &kProposalSd},
      {"steps_per_temperature", &kSteps},
      {"step_size_adaptation", &kAdaptation},
      {"pilot_paths", &kPilotPaths},
      {"target_acceptance", &kTargetAcceptance},
      {"min_step", &kMinStep},
      {"max_step", &kMaxStep}};
  return keys;
}

bool reads(const ContinuousKernelTraits& k, std::string_view option) {
  static constexpr std::string_view kTuning[] = {"step_size_adaptation", "pilot_paths",
                                                 "target_acceptance", "min_step", "max_step"};
  if (std::find(std::begin(kTuning), std::end(kTuning), option) != std::end(kTuning))
    option = "step_size";
  return std::find(k.options.begin(), k.options.end(), option) != k.options.end();
}

// "\"a\", \"b\" or \"c\"": the kernels that read `option`.
std::string readers_of(std::string_view option) {
  std::vector<std::string> names;
  for (const auto& k : continuous_kernel_traits())
    if (reads(k, option)) names.push_back(k.name);
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "\"" : i + 1 == names.size() ? " or \"" : ", \"") + names[i] + "\"";
  return s;
}

}  // namespace

const std::vector<ContinuousKernelTraits>& continuous_kernel_traits() {
  static const std::vector<ContinuousKernelTraits> traits = [] {
    std::vector<ContinuousKernelTraits> v;
    ContinuousKernels::for_each([&](auto k) {
      using K = typename decltype(k)::type;
      v.push_back({std::string(K::kName), std::string(K::kSummary), std::string(K::kEvaluation),
                   std::vector<std::string>(K::kOptions.begin(), K::kOptions.end())});
    });
    return v;
  }();
  return traits;
}

std::vector<std::string> continuous_kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : continuous_kernel_traits()) names.push_back(k.name);
  return names;
}

const ContinuousKernelTraits& continuous_kernel(const std::string& name) {
  for (const auto& k : continuous_kernel_traits())
    if (k.name == name) return k;
  fail_argument("logz::continuous_kernel", "type",
                "one of " + quoted_names(continuous_kernel_names()) + ", got \"" + name + "\"");
}

KernelSettings read_kernel(Config& config, const KernelDefaults& defaults) {
  auto k = config.section("kernel");
  k.check_known({&kKernelKeys});
  KernelSettings s;
  s.type = k.get_string(kType, defaults.type);
  const ContinuousKernelTraits& kernel = continuous_kernel(s.type);
  for (const auto& [option, key] : option_keys())
    if (k.has(*key) && !reads(kernel, option))
      k.fail(*key, "no such key with type = \"" + s.type + "\" (it belongs to " +
                       readers_of(option) + ")");
  if (reads(kernel, "step_size")) s.step_size = k.get_double(kStepSize);
  if (reads(kernel, "normals"))
    s.normals =
        k.get_string(kNormals) == "float" ? NormalPrecision::single : NormalPrecision::double_;
  if (reads(kernel, "leapfrog_steps"))
    s.leapfrog_steps = static_cast<int>(k.get_int(kLeapfrogSteps, defaults.leapfrog_steps));
  if (reads(kernel, "momentum_refresh")) {
    if (k.has(kMomentumRefresh)) {
      if (k.has(kHalfLife)) k.fail(kHalfLife, "either momentum_refresh or momentum_half_life");
      s.gamma = k.get_double(kMomentumRefresh.with_default(required));
    } else {
      s.half_life = k.get_double(kHalfLife, 1.0);
      s.gamma = Hais::half_life_refresh(s.step_size, s.leapfrog_steps, *s.half_life);
    }
  }
  if (reads(kernel, "proposal_sd")) s.proposal_sd = k.get_double(kProposalSd, defaults.proposal_sd);
  if (reads(kernel, "steps_per_temperature")) s.steps = static_cast<int>(k.get_int(kSteps));
  if (reads(kernel, "step_size_adaptation")) {
    // A stated step size is kept unless an adaptation is asked for too.
    s.tuning_stated = k.has(kAdaptation);
    s.tuning = parse_enum<StepSizeTuning>(k.get_string(
        kAdaptation,
        to_string(k.has(kStepSize) ? StepSizeTuning::fixed : StepSizeTuning::per_temperature)));
  }
  if (s.tuning == StepSizeTuning::per_temperature && reads(kernel, "momentum_refresh") &&
      !k.has(kMomentumRefresh)) {
    // HAIS's refresh per move, not per unit of simulation time: with a step size that shrinks a
    // hundredfold to a narrow target the half-life rule would all but stop refreshing, and
    // particles whose momentum is not refreshed heat up as their well narrows (an adiabatic
    // invariant), away from the path's equilibrium.
    if (k.has(kHalfLife))
      k.fail(kHalfLife,
             "no such key with step_size_adaptation = \"per_temperature\" (the step size varies "
             "along the path: momentum_refresh sets the fraction redrawn per move)");
    s.half_life.reset();
    s.gamma = kProfileMomentumRefresh;
  }
  if (s.tuning != StepSizeTuning::fixed) {
    const bool profile = s.tuning == StepSizeTuning::per_temperature;
    s.pilot_paths = static_cast<std::size_t>(k.get_int(kPilotPaths));
    s.rule.target_acceptance = k.get_double(kTargetAcceptance);
    s.rule.min_step = k.get_double(kMinStep, profile ? kProfileMinStep : s.rule.min_step);
    s.rule.max_step = k.get_double(kMaxStep.with_range(s.rule.min_step, kMax),
                                   profile ? kProfileMaxStep : s.rule.max_step);
  } else {
    for (const Key* key : {&kPilotPaths, &kTargetAcceptance, &kMinStep, &kMaxStep})
      if (k.has(*key))
        k.fail(*key, "no such key with type = \"" + s.type +
                         "\" (it belongs to step_size_adaptation = \"pilot\" or "
                         "\"per_temperature\")");
  }
  return s;
}

void fail_in_pilot(const NumericalError& e, std::size_t num_particles, double t) {
  throw NumericalError(fmt::format(
      "the step-size pilot ({} particles of its own, before the run), path fraction {}: {}",
      num_particles, t, e.what()));
}

Record kernel_description(const KernelSettings& s) {
  Record j = {{"type", s.type}};
  visit_kernel(s.type, [&](auto k) {
    using K = typename decltype(k)::type;
    K::describe(s, [&](const char* name, const auto& value) { j.set(name, value); });
  });
  if (!reads(continuous_kernel(s.type), "step_size_adaptation"))
    j.set("step_size_adaptation", "fixed");
  else
    switch (s.tuning) {
      case StepSizeTuning::fixed:
        j.set("step_size_adaptation", "fixed (as configured)");
        break;
      case StepSizeTuning::pilot:
        j.set("step_size_adaptation", "pilot (adapted before the run, fixed during it)");
        break;
      case StepSizeTuning::per_temperature:
        j.set("step_size_adaptation",
              "per_temperature (a step size per temperature from a pilot run, fixed during the "
              "run; step_size is the pilot's first)");
        break;
    }
  if (s.tuning != StepSizeTuning::fixed && !s.pilot_report.empty()) j.set("pilot", s.pilot_report);
  return j;
}

std::uint64_t data_point_seed(std::uint64_t seed, std::size_t i) {
  return derived_seed(seed, 0x64706e74u, i);  // "dpnt"
}

LoglikResult analysis_loglik(Config& config, const RunResult& e, const Eigen::VectorXd& energies,
                             const Record& data_description) {
  if (e.estimates.empty()) config.section("estimators").fail("methods", "at least one method");
  LoglikResult r;
  r.analysis = true;
  r.model = e.model;
  r.model.set("data", data_description);
  r.kernel = e.kernel;
  r.log_z = e.estimates.front();  // the first method asked for
  r.log_z.log_z += e.base_log_z;
  RunningMoments m;
  for (Eigen::Index i = 0; i < energies.size(); ++i) m.add(energies(i));
  r.num_points = static_cast<std::size_t>(energies.size());
  r.mean_energy = m.mean();
  r.log_likelihood = -m.mean() - r.log_z.log_z;
  r.std_error_data = m.std_error_of_mean();
  r.std_error_monte_carlo = r.log_z.std_error;
  if (e.reference) r.exact = -m.mean() - e.reference->log_z;
  return r;
}

RunResult generative_result(Record desc, const Record& base_desc, const DataSet& data,
                            const std::string& path_text, double base_log_z,
                            std::optional<double> exact_log_likelihood,
                            const std::string& reference_source) {
  RunResult result;
  desc.set("base", base_desc);
  desc.set("data", data.description);
  desc.set("data_index", data.index);
  desc.set("path", path_text);
  result.model = std::move(desc);
  result.base_log_z = base_log_z;
  if (exact_log_likelihood) result.reference = Reference{*exact_log_likelihood, reference_source};
  return result;
}

SamplerSettings read_sampler(Config& config, StopToken stop, bool initial_sd) {
  auto s = config.section("sampler");
  s.check_known({&kSamplerKeys});
  SamplerSettings out;
  HmcSamplerOptions& o = out.options;
  o.stop = stop;
  out.chains = s.get_int(kChains);
  o.burn_in = static_cast<std::size_t>(s.get_int(kBurnIn));
  o.num_draws = static_cast<std::size_t>(s.get_int(kNumDraws));
  o.initial_step_size = s.get_double(kInitialStepSize);
  o.leapfrog_steps = static_cast<int>(s.get_int(kSamplerLeapfrog));
  o.adaptation.target_acceptance = s.get_double(kSamplerTarget);
  o.adaptation.slowness = s.get_double(kSlowness);
  o.adaptation.increase = s.get_double(kIncrease);
  o.adaptation.decrease = s.get_double(kDecrease);
  o.adaptation.min_step = s.get_double(kSamplerMinStep);
  o.adaptation.max_step = s.get_double(kSamplerMaxStep.with_range(o.adaptation.min_step, kMax));
  o.adapt = s.get_enum<AdaptPhase>(kAdapt);
  o.seed = static_cast<std::uint64_t>(s.get_int(kSamplerSeed));
  o.threads = static_cast<int>(s.get_int(kSamplerThreads));
  o.chunk_size = static_cast<std::size_t>(s.get_int(kSamplerChunk));
  if (!initial_sd && s.has(kInitialSd))
    s.fail(
        kInitialSd,
        "no initial_sd with [model] type = \"bilinear_generative\" (chains start at prior draws)");
  out.initial_sd = initial_sd ? s.get_double(kInitialSd) : kNaN;
  if (o.num_draws * static_cast<std::size_t>(out.chains) > (std::size_t{1} << 31))
    s.fail(kNumDraws, "num_draws x chains of at most 2^31 draws");
  return out;
}

Eigen::MatrixXd normal_chain_starts(int dim, Eigen::Index chains, std::uint64_t seed, double sd) {
  Eigen::MatrixXd init(dim, chains);
  for (Eigen::Index m = 0; m < chains; ++m) {
    RandomStream r(seed, static_cast<std::uint64_t>(m), Purpose::base_sample, 0);
    for (int i = 0; i < dim; ++i) init(i, m) = sd * r.normal();
  }
  return init;
}

void summarise_sample(const SamplerSettings& s, SampleResult& out) {
  const auto& r = out.result;
  const auto& o = s.options;
  const double n = static_cast<double>(r.num_draws * r.num_chains);
  // The means, then the covariance centred at them (no cancellation of the means' squares), one
  // product for any d; the sds are the square roots of its diagonal.
  const auto d = static_cast<Eigen::Index>(r.dim);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      draws(r.draws.data(), static_cast<Eigen::Index>(n), d);
  const Eigen::RowVectorXd mean = draws.colwise().mean();
  Eigen::MatrixXd cov = Eigen::MatrixXd::Constant(d, d, kNaN);
  if (n > 1) {
    const Eigen::MatrixXd centred = draws.rowwise() - mean;
    cov = centred.transpose() * centred / (n - 1);
  }
  out.mean.assign(mean.begin(), mean.end());
  for (Eigen::Index i = 0; i < d; ++i) out.sd.push_back(std::sqrt(cov(i, i)));  // NaN when n <= 1
  out.covariance.assign(static_cast<std::size_t>(d), {});
  for (Eigen::Index i = 0; i < d; ++i)
    out.covariance[static_cast<std::size_t>(i)].assign(cov.row(i).begin(), cov.row(i).end());
  out.sampler = {{"kernel", "hmc"},
                 {"leapfrog_steps", o.leapfrog_steps},
                 {"chains", s.chains},
                 {"burn_in", o.burn_in},
                 {"num_draws", o.num_draws},
                 {"adapt", to_string(o.adapt)},
                 {"initial_step_size", o.initial_step_size},
                 {"target_acceptance", o.adaptation.target_acceptance}};
}

}  // namespace logz::continuous
