// The continuous models' services: `logz run` for [model] type = "poe" and
// "linear_generative", `logz loglik` and `logz sample` (include/logz/services/continuous_runners.hpp),
// and the helpers shared with the image models (continuous_support.hpp,
// image_model_experiment.cpp).
// Kernels: [kernel] type = "hais" (default), "hmc" (AIS-HMC with leapfrog_steps = 1) or
// "metropolis" (Gaussian random walk); step sizes are fixed during a run, or set by a pilot
// run before it (step_size_adaptation = "pilot"), and the report says which.
#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/math/running_moments.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/linear_generative.hpp"
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/continuous_runners.hpp"
#include "logz/services/report.hpp"
#include "continuous_support.hpp"

namespace logz {

using namespace continuous;

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

namespace continuous {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string fixed(double x, int precision) {
  return std::isfinite(x) ? fmt::format("{:.{}f}", x, precision) : std::string("nan");
}

}  // namespace continuous

namespace {

// ---------------------------------------------------------------- models

ProductOfExperts read_poe(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "expert", "parameters", "phi_key", "lambda_key", "dim", "num_experts", "parameter_seed"});
  const ExpertType expert = parse_expert_type(m.get_string("expert", "laplace", {"laplace", "student_t"}));
  const std::string params = m.get_string("parameters", "random");
  desc = {{"type", "poe"}, {"expert", to_string(expert)}, {"parameters", params}};
  if (params == "random") {
    const int d = static_cast<int>(m.get_int("dim", 36, 1, 4096));
    const int L = static_cast<int>(m.get_int("num_experts", d, d, 1 << 16));
    const auto seed = static_cast<std::uint64_t>(m.get_int("parameter_seed", 1, 0));
    desc["parameter_seed"] = seed;
    ProductOfExperts poe = ProductOfExperts::random(expert, d, L, seed);
    desc["dim"] = poe.dim();
    desc["num_experts"] = poe.num_experts();
    desc["complete"] = poe.is_complete();
    return poe;
  }
  for (const char* k : {"dim", "num_experts", "parameter_seed"})
    if (m.has(k)) m.fail(k, "no such key with a parameters file (the file sets the model)");
  PoeKeys keys;
  keys.filters = m.get_string("phi_key", "Phi");
  keys.lambda = m.get_string("lambda_key", "lambda");
  ProductOfExperts poe = ProductOfExperts::load(resolve_config_path(config, params), expert, keys);
  desc["dim"] = poe.dim();
  desc["num_experts"] = poe.num_experts();
  desc["complete"] = poe.is_complete();
  return poe;
}

LinearGenerative read_linear_generative(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "parameters", "phi_key", "data_dim", "latent_dim", "parameter_seed", "sigma_noise", "prior"});
  const double sigma = m.get_double("sigma_noise", 0.1, 1e-300);
  const PriorType prior = parse_prior_type(m.get_string("prior", "gaussian", {"gaussian", "laplace"}));
  const std::string params = m.get_string("parameters", "random");
  desc = {{"type", "linear_generative"}, {"parameters", params}, {"sigma_noise", sigma}, {"prior", to_string(prior)}};
  std::optional<LinearGenerative> model;
  if (params == "random") {
    const int M = static_cast<int>(m.get_int("data_dim", 36, 1, 4096));
    const int L = static_cast<int>(m.get_int("latent_dim", M, 1, 4096));
    const auto seed = static_cast<std::uint64_t>(m.get_int("parameter_seed", 1, 0));
    desc["parameter_seed"] = seed;
    model.emplace(LinearGenerative::random(M, L, sigma, prior, seed));
  } else {
    for (const char* k : {"data_dim", "latent_dim", "parameter_seed"})
      if (m.has(k)) m.fail(k, "no such key with a parameters file (the file sets the model)");
    model.emplace(LinearGenerative::load(resolve_config_path(config, params), sigma, prior, m.get_string("phi_key", "Phi")));
  }
  desc["data_dim"] = model->data_dim();
  desc["latent_dim"] = model->latent_dim();
  return std::move(*model);
}

}  // namespace

namespace continuous {

// [data]: the data points (d x N, one column per point) from a file or drawn from the model.
// Model draws: point i from the stream (seed, i, Purpose::base_sample, step 1).
DataSet read_data(Config& config, int dim, const DataSampler& sampler, const std::string& no_sampler_note) {
  auto s = config.section("data");
  s.check_known({"source", "file", "key", "num_points", "seed", "index"});
  const std::string source = s.get_string("source", s.has("file") ? "file" : "model", {"file", "model"});
  DataSet d;
  if (source == "file") {
    const std::string file = resolve_config_path(config, s.get_string("file", std::nullopt));
    const bool npz = file.size() > 4 && file.substr(file.size() - 4) == ".npz";
    const std::string key = npz ? s.get_string("key", "X") : "";
    const io::Array a = (npz ? io::read_npz_array(file, key) : io::read_npy(file)).to_float64();
    if (a.ndim() != 2 || a.cols() != static_cast<std::size_t>(dim))
      fail_input(file, npz ? key : "data",
                 fmt::format("an N x {} array (one data point per row), got {}", dim, io::shape_to_string(a.shape)));
    d.X.resize(dim, static_cast<Eigen::Index>(a.rows()));
    for (std::size_t i = 0; i < a.rows(); ++i)
      for (int j = 0; j < dim; ++j) d.X(j, static_cast<Eigen::Index>(i)) = a.doubles()[i * a.cols() + static_cast<std::size_t>(j)];
    if (!d.X.allFinite()) fail_input(file, npz ? key : "data", "finite values");
    if (d.X.cols() < 1) fail_input(file, npz ? key : "data", "at least one data point");
    d.description = {{"source", "file"}, {"file", file}, {"num_points", d.X.cols()}};
  } else {
    if (!sampler) s.fail("source", "\"file\" (this model has no exact sampler: " + no_sampler_note + ")");
    const auto n = s.get_int("num_points", 100, 1, 1 << 24);
    const auto seed = static_cast<std::uint64_t>(s.get_int("seed", 1, 0));
    d.X.resize(dim, n);
    sampler(d.X, BatchRandom{seed, Purpose::base_sample, 1, 0});
    d.description = {{"source", "model"}, {"num_points", n}, {"seed", seed}};
  }
  d.index = static_cast<std::size_t>(s.get_int("index", 0, 0, d.X.cols() - 1));
  return d;
}

// [base]: type = "gaussian" (isotropic, sigma) or "fitted" (mean and covariance of [data]).
GaussianBase read_base(Config& config, int dim, const std::function<DataSet()>& data, nlohmann::json& desc) {
  auto b = config.section("base");
  b.check_known({"type", "sigma", "ridge"});
  const std::string type = b.get_string("type", "gaussian", data ? std::vector<std::string>{"gaussian", "fitted"}
                                                                 : std::vector<std::string>{"gaussian"});
  if (type == "gaussian") {
    if (b.has("ridge")) b.fail("ridge", "no ridge with type = \"gaussian\"");
    const double sigma = b.get_double("sigma", 1.0, 1e-300);
    desc = {{"type", "gaussian"}, {"sigma", sigma}};
    return GaussianBase::isotropic(dim, sigma);
  }
  if (b.has("sigma")) b.fail("sigma", "no sigma with type = \"fitted\"");
  const double ridge = b.get_double("ridge", 0.0, 0.0);
  const DataSet d = data();
  desc = {{"type", "fitted"}, {"ridge", ridge}, {"data", d.description}};
  return GaussianBase::fitted(d.X.transpose(), ridge, config.source() + ": [base] fitted to [data]");
}

// ---------------------------------------------------------------- kernels

KernelSettings read_kernel(Config& config, const KernelDefaults& defaults) {
  auto k = config.section("kernel");
  k.check_known({"type", "step_size", "leapfrog_steps", "momentum_refresh", "momentum_half_life", "proposal_sd",
                 "steps_per_temperature", "step_size_adaptation", "pilot_paths", "target_acceptance", "min_step",
                 "max_step"});
  KernelSettings s;
  s.type = k.get_string("type", defaults.type, {"hais", "hmc", "metropolis"});
  auto only = [&](std::initializer_list<const char*> keys, const std::string& types) {
    for (const char* key : keys)
      if (k.has(key)) k.fail(key, "no such key with type = \"" + s.type + "\" (it belongs to " + types + ")");
  };
  if (s.type == "metropolis") {
    only({"step_size", "leapfrog_steps", "momentum_refresh", "momentum_half_life", "step_size_adaptation",
          "pilot_paths", "target_acceptance", "min_step", "max_step"}, "\"hais\" or \"hmc\"");
    s.proposal_sd = k.get_double("proposal_sd", defaults.proposal_sd, 1e-300);
    s.steps = static_cast<int>(k.get_int("steps_per_temperature", 1, 1, 1 << 20));
    return s;
  }
  only({"proposal_sd", "steps_per_temperature"}, "\"metropolis\"");
  s.step_size = k.get_double("step_size", 0.2, 1e-300);
  s.leapfrog_steps = static_cast<int>(k.get_int("leapfrog_steps", defaults.leapfrog_steps, 1, 1 << 20));
  if (s.type == "hais") {
    if (k.has("momentum_refresh")) {
      if (k.has("momentum_half_life")) k.fail("momentum_half_life", "either momentum_refresh or momentum_half_life");
      s.gamma = k.get_double("momentum_refresh", std::nullopt, 1e-300, 1.0);
    } else {
      s.half_life = k.get_double("momentum_half_life", 1.0, 1e-300);
      s.gamma = Hais::half_life_refresh(s.step_size, s.leapfrog_steps, *s.half_life);
    }
  } else {
    only({"momentum_refresh", "momentum_half_life"}, "\"hais\"");
  }
  s.pilot = k.get_string("step_size_adaptation", "fixed", {"fixed", "pilot"}) == "pilot";
  if (s.pilot) {
    s.pilot_paths = static_cast<std::size_t>(k.get_int("pilot_paths", 32, 1, 1 << 20));
    s.rule.target_acceptance = k.get_double("target_acceptance", 0.9, 1e-6, 1.0 - 1e-6);
    s.rule.min_step = k.get_double("min_step", 0.001, 1e-300);
    s.rule.max_step = k.get_double("max_step", 0.25, s.rule.min_step);
  } else {
    only({"pilot_paths", "target_acceptance", "min_step", "max_step"}, "step_size_adaptation = \"pilot\"");
  }
  return s;
}

Hais make_hais(const KernelSettings& s, double eps) {
  const double gamma = s.half_life ? Hais::half_life_refresh(eps, s.leapfrog_steps, *s.half_life) : s.gamma;
  return Hais(eps, gamma, s.leapfrog_steps);
}

nlohmann::json kernel_json(const KernelSettings& s) {
  nlohmann::json j = {{"type", s.type}};
  if (s.type == "metropolis") {
    j["proposal_sd"] = s.proposal_sd;
    j["steps_per_temperature"] = s.steps;
    j["step_size_adaptation"] = "fixed";
    return j;
  }
  j["step_size"] = s.step_size;
  j["leapfrog_steps"] = s.leapfrog_steps;
  j["integrator"] = "leapfrog (velocity Verlet)";
  if (s.type == "hais") {
    j["momentum_refresh"] = s.gamma;
    j["momentum_refresh_rule"] = s.half_life ? fmt::format("half of the momentum power per {} time units: "
                                                           "gamma = 1 - 2^(-step_size leapfrog_steps / {})",
                                                           *s.half_life, *s.half_life)
                                             : std::string("fixed (momentum_refresh)");
  } else {
    j["momentum"] = "redrawn every move";
  }
  j["step_size_adaptation"] = s.pilot ? "pilot (adapted before the run, fixed during it)" : "fixed (as configured)";
  if (s.pilot) j["pilot"] = s.pilot_report;
  return j;
}

}  // namespace continuous

namespace {

// The exact posterior N(m, C) of the linear-Gaussian model: C = (I + Phi^T Phi / s^2)^{-1},
// m = C Phi^T x / s^2.
GaussianBase gaussian_posterior(const LinearGenerative& model, const Eigen::VectorXd& x) {
  const double prec = 1.0 / (model.sigma_noise() * model.sigma_noise());
  Eigen::MatrixXd P = prec * model.phi().transpose() * model.phi();
  P.diagonal().array() += 1.0;
  Eigen::MatrixXd C = P.llt().solve(Eigen::MatrixXd::Identity(P.rows(), P.cols()));
  C = 0.5 * (C + C.transpose());
  return GaussianBase(C * (prec * model.phi().transpose() * x), C);
}

// ---------------------------------------------------------------- poe

ExperimentResult poe_experiment(Config& config, const ProductOfExperts& poe, nlohmann::json desc,
                                const ProgressFn& progress) {
  std::function<void(Eigen::MatrixXd&, const BatchRandom&)> sampler;
  if (poe.is_complete()) sampler = [&](Eigen::MatrixXd& X, const BatchRandom& r) { poe.sample_exact(X, r); };
  nlohmann::json base_desc;
  const GaussianBase base = read_base(config, poe.dim(), [&] { return read_data(config, poe.dim(), sampler); }, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, poe.is_complete() ? std::vector<std::string>{"exact"}
                                                                      : std::vector<std::string>{});
  const GeometricPath<GaussianBase, ProductOfExperts> path(base, poe);
  run_pilot(path, ks, schedule, run.seed, run.num_paths);

  ExperimentResult result;
  desc["base"] = base_desc;
  desc["path"] = "geometric: (1 - t) U_base + t U_poe";
  result.model = desc;
  result.base_log_z = base.log_z();
  if (auto z = poe.exact_log_z()) result.reference = Reference{*z, "exact (complete Phi)"};
  result.kernel = kernel_json(ks);
  // The model's reverse start (complete Phi): exact draws x = Phi^{-1} u, fresh momenta.
  auto exact_start = [&](ContinuousBatch& b, const ChunkStreams& streams) {
    poe.sample_exact(b.X, streams.random(0));
    path.sample_momentum(b, streams.random(1));
    b.parts.invalidate();
  };
  with_kernel(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, exact_start, progress, result);
  });
  return result;
}

// ---------------------------------------------------------------- linear generative

ExperimentResult linear_generative_experiment(Config& config, const LinearGenerative& model,
                                              nlohmann::json desc, const DataSet& data,
                                              const ProgressFn& progress) {
  nlohmann::json base_desc;
  const GaussianBase base = read_base(config, model.latent_dim(), {}, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  const bool gaussian = model.prior() == PriorType::gaussian;
  const RunSettings run = read_run_settings(config, gaussian ? std::vector<std::string>{"exact"}
                                                             : std::vector<std::string>{});
  const Eigen::VectorXd x = data.X.col(static_cast<Eigen::Index>(data.index));
  const LinearGenerativePosterior posterior(model, x);
  const GeometricPath<GaussianBase, LinearGenerativePosterior> path(base, posterior);
  run_pilot(path, ks, schedule, run.seed, run.num_paths);

  ExperimentResult result;
  desc["base"] = base_desc;
  desc["data"] = data.description;
  desc["data_index"] = data.index;
  desc["path"] = "geometric: (1 - t) U_base + t U_posterior, U_posterior(a) = -log p(a) - log p(x | a)";
  result.model = desc;
  result.base_log_z = base.log_z();
  if (auto z = model.exact_log_likelihood(x)) result.reference = Reference{*z, "exact (Gaussian marginal)"};
  result.kernel = kernel_json(ks);
  std::optional<GaussianBase> exact_posterior;
  if (gaussian) exact_posterior.emplace(gaussian_posterior(model, x));
  auto exact_start = [&](ContinuousBatch& b, const ChunkStreams& streams) {
    exact_posterior->sample(b.X, streams.random(0));
    path.sample_momentum(b, streams.random(1));
    b.parts.invalidate();
  };
  with_kernel(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, exact_start, progress, result);
  });
  return result;
}

}  // namespace

namespace continuous {

std::uint64_t data_point_seed(std::uint64_t seed, std::size_t i) {
  const PhiloxCounter c = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) >> 32),
                           0u, 0x64706e74u};
  const PhiloxKey k = {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  const auto r = philox4x32_10(c, k);
  return (static_cast<std::uint64_t>(r[1]) << 32) | r[0];
}

void analysis_loglik(Config& config, const ExperimentResult& e, const Eigen::VectorXd& energies,
                     const nlohmann::json& data_description, LoglikResult& r) {
  if (e.estimates.empty()) config.section("estimators").fail("methods", "at least one method");
  r.model = e.model;
  r.model["data"] = data_description;
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
}

Eigen::MatrixXd normal_chain_starts(int dim, Eigen::Index chains, std::uint64_t seed, double sd) {
  Eigen::MatrixXd init(dim, chains);
  for (Eigen::Index m = 0; m < chains; ++m) {
    RandomStream r(seed, static_cast<std::uint64_t>(m), Purpose::base_sample, 0);
    for (int i = 0; i < dim; ++i) init(i, m) = sd * r.normal();
  }
  return init;
}

}  // namespace continuous

namespace {

DataSet read_generative_data(Config& config, const LinearGenerative& model) {
  return read_data(config, model.data_dim(),
                   [&](Eigen::MatrixXd& X, const BatchRandom& r) { model.sample_data(X, r); });
}

}  // namespace

ExperimentResult run_poe_experiment(Config& config, const ProgressFn& progress) {
  nlohmann::json desc;
  const ProductOfExperts poe = read_poe(config, desc);
  return poe_experiment(config, poe, desc, progress);
}

ExperimentResult run_linear_generative_experiment(Config& config, const ProgressFn& progress) {
  nlohmann::json desc;
  const LinearGenerative model = read_linear_generative(config, desc);
  const DataSet data = read_generative_data(config, model);
  return linear_generative_experiment(config, model, desc, data, progress);
}

// ---------------------------------------------------------------- loglik

LoglikResult run_loglik(Config& config, const ProgressFn& progress) {
  config.check_sections({"model", "base", "data", "kernel", "schedule", "run", "estimators"});
  const auto start = Clock::now();
  LoglikResult r;
  r.model_type = config.section("model").get_string("type", std::nullopt,
                                                    {"poe", "linear_generative", "bilinear_generative", "mcrbm"});
  if (r.model_type == "poe") {
    nlohmann::json desc;
    const ProductOfExperts poe = read_poe(config, desc);
    std::function<void(Eigen::MatrixXd&, const BatchRandom&)> sampler;
    if (poe.is_complete()) sampler = [&](Eigen::MatrixXd& X, const BatchRandom& b) { poe.sample_exact(X, b); };
    const DataSet data = read_data(config, poe.dim(), sampler);
    const ExperimentResult e = poe_experiment(config, poe, desc, progress);
    Eigen::VectorXd energies;
    poe.energy(data.X, energies);
    analysis_loglik(config, e, energies, data.description, r);
  } else if (r.model_type == "linear_generative") {
    nlohmann::json desc;
    const LinearGenerative model = read_linear_generative(config, desc);
    const DataSet data = read_generative_data(config, model);
    nlohmann::json base_desc;
    const GaussianBase base = read_base(config, model.latent_dim(), {}, base_desc);
    KernelSettings ks = read_kernel(config);
    const Schedule schedule = read_schedule(config);
    // [run] as for `logz run` (directions and reverse_start are accepted, but loglik makes
    // forward runs only).
    const RunSettings run = read_run_settings(config, model.prior() == PriorType::gaussian
                                                          ? std::vector<std::string>{"exact"}
                                                          : std::vector<std::string>{});
    auto make_path = [&](const Eigen::VectorXd& x) {
      return GeometricPath<GaussianBase, LinearGenerativePosterior>(base, LinearGenerativePosterior(model, x));
    };
    // One pilot, on the first data point, sets the step size of every run.
    run_pilot(make_path(data.X.col(0)), ks, schedule, data_point_seed(run.seed, 0), run.num_paths);
    desc["base"] = base_desc;
    desc["data"] = data.description;
    r.model = desc;
    r.kernel = kernel_json(ks);
    r.kernel["runs"] = "one forward AIS run per data point ([run] num_paths particles each), seeded per point";
    generative_logliks(data.X, ks, schedule, run, make_path,
                       [&](const Eigen::VectorXd& x) { return model.exact_log_likelihood(x); }, progress, r);
  } else if (r.model_type == "bilinear_generative") {
    bilinear_generative_loglik(config, progress, r);
  } else {
    mcrbm_loglik(config, progress, r);
  }
  r.runtime_s = std::chrono::duration<double>(Clock::now() - start).count();
  r.config = config.resolved();
  return r;
}

nlohmann::json loglik_to_json(const LoglikResult& r) {
  nlohmann::json j = {{"model", r.model},
                      {"kernel", r.kernel},
                      {"num_points", r.num_points},
                      {"log_likelihood", number(r.log_likelihood)},
                      {"std_error_data", number(r.std_error_data)},
                      {"std_error_monte_carlo", number(r.std_error_monte_carlo)},
                      {"exact", number(r.exact)},
                      {"runtime_s", r.runtime_s},
                      {"config", r.config}};
  if (r.model_type == "poe" || r.model_type == "mcrbm") {
    j["mean_energy"] = number(r.mean_energy);
    j["log_z"] = {{"method", r.log_z.method}, {"log_z", number(r.log_z.log_z)},
                  {"std_error", number(r.log_z.std_error)}, {"flags", r.log_z.diagnostics.flags}};
    j["formula"] = "L = -mean E(x) - log Z";
  } else {
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : r.points)
      pts.push_back({{"log_likelihood", number(p.log_likelihood)}, {"std_error", number(p.std_error)},
                     {"exact", number(p.exact)}, {"ess", number(p.ess)}});
    j["points"] = pts;
    j["formula"] = "L = mean_i log p(x_i), one AIS run per data point";
  }
  return j;
}

std::string loglik_table(const LoglikResult& r) {
  std::string s = fmt::format("model: {}; {} data points\n", r.model.dump(), r.num_points);
  s += fmt::format("kernel: {}\n", r.kernel.dump());
  if (r.model_type == "poe" || r.model_type == "mcrbm")
    s += fmt::format("log Z ({}): {} +/- {}; mean energy {}\n", r.log_z.method, fixed(r.log_z.log_z, 4),
                     fixed(r.log_z.std_error, 4), fixed(r.mean_energy, 4));
  s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "", "L", "SE (data)", "SE (MC)");
  s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "average log-likelihood", fixed(r.log_likelihood, 4),
                   fixed(r.std_error_data, 4), fixed(r.std_error_monte_carlo, 4));
  if (std::isfinite(r.exact)) {
    const std::string z = r.std_error_monte_carlo > 0
                              ? fixed((r.log_likelihood - r.exact) / r.std_error_monte_carlo, 1)
                              : std::string("");
    s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "exact", fixed(r.exact, 4), "", "z = " + z);
  }
  s += fmt::format("runtime: {:.2f} s\n", r.runtime_s);
  return s;
}

// ---------------------------------------------------------------- sample

namespace {

// [model] type = "gaussian": mean = [...] (d numbers), covariance = [[...], ...] (d x d).
GaussianBase read_inline_gaussian(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "mean", "covariance"});
  const nlohmann::json& raw = config.raw()["model"];
  if (!raw.contains("mean") || !raw["mean"].is_array() || raw["mean"].empty())
    m.fail("mean", "an array of numbers (this key is required)");
  const auto& mean = raw["mean"];
  const Eigen::Index d = static_cast<Eigen::Index>(mean.size());
  Eigen::VectorXd mu(d);
  for (Eigen::Index i = 0; i < d; ++i) {
    if (!mean[static_cast<std::size_t>(i)].is_number()) m.fail("mean", "an array of numbers");
    mu(i) = mean[static_cast<std::size_t>(i)].get<double>();
  }
  Eigen::MatrixXd cov = Eigen::MatrixXd::Identity(d, d);
  if (raw.contains("covariance")) {
    const auto& c = raw["covariance"];
    const std::string shape = fmt::format("a {} x {} array of arrays of numbers", d, d);
    if (!c.is_array() || static_cast<Eigen::Index>(c.size()) != d) m.fail("covariance", shape);
    for (Eigen::Index i = 0; i < d; ++i) {
      const auto& row = c[static_cast<std::size_t>(i)];
      if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != d) m.fail("covariance", shape);
      for (Eigen::Index j = 0; j < d; ++j) {
        if (!row[static_cast<std::size_t>(j)].is_number()) m.fail("covariance", shape);
        cov(i, j) = row[static_cast<std::size_t>(j)].get<double>();
      }
    }
  }
  try {
    GaussianBase g(mu, cov);
    desc = {{"type", "gaussian"}, {"mean", raw["mean"]}, {"covariance", raw.value("covariance", nlohmann::json("identity"))}};
    return g;
  } catch (const InvalidArgument&) {
    m.fail("covariance", "a symmetric positive definite matrix");
  }
}

}  // namespace

SampleRun run_sample(Config& config) {
  config.check_sections({"model", "sampler", "data"});
  const auto start = Clock::now();
  SampleRun out;
  auto s = config.section("sampler");
  s.check_known({"chains", "burn_in", "num_draws", "initial_step_size", "leapfrog_steps", "target_acceptance",
                 "slowness", "step_increase", "step_decrease", "min_step", "max_step", "adapt", "seed", "threads",
                 "chunk_size", "initial_sd"});
  HmcSamplerOptions o;
  const auto chains = s.get_int("chains", 3, 1, 1 << 20);
  o.burn_in = static_cast<std::size_t>(s.get_int("burn_in", 1000, 0, 1 << 30));
  o.num_draws = static_cast<std::size_t>(s.get_int("num_draws", 1000, 1, 1 << 30));
  o.initial_step_size = s.get_double("initial_step_size", 0.01, 1e-300);
  o.leapfrog_steps = static_cast<int>(s.get_int("leapfrog_steps", 20, 1, 1 << 20));
  o.adaptation.target_acceptance = s.get_double("target_acceptance", 0.9, 1e-6, 1 - 1e-6);
  o.adaptation.slowness = s.get_double("slowness", 0.9, 0.0, 1 - 1e-12);
  o.adaptation.increase = s.get_double("step_increase", 1.02, 1.0);
  o.adaptation.decrease = s.get_double("step_decrease", 0.98, 1e-6, 1.0);
  o.adaptation.min_step = s.get_double("min_step", 0.001, 1e-300);
  o.adaptation.max_step = s.get_double("max_step", 0.25, o.adaptation.min_step);
  o.adapt = parse_adapt_phase(s.get_string("adapt", "burn_in", {"burn_in", "always", "never"}));
  o.seed = static_cast<std::uint64_t>(s.get_int("seed", 1, 0));
  o.threads = static_cast<int>(s.get_int("threads", 0, 0, 4096));
  o.chunk_size = static_cast<std::size_t>(s.get_int("chunk_size", 8, 1, 1 << 20));
  const std::string type = config.section("model").get_string(
      "type", std::nullopt, {"gaussian", "poe", "linear_generative", "bilinear_generative", "mcrbm"});
  // Chains start at N(0, initial_sd^2 I), except on the bilinear posterior (prior draws: d >= 0).
  if (type == "bilinear_generative" && s.has("initial_sd"))
    s.fail("initial_sd", "no initial_sd with [model] type = \"bilinear_generative\" (chains start at prior draws)");
  const double initial_sd = type == "bilinear_generative" ? kNaN : s.get_double("initial_sd", 1.0, 0.0);
  if (o.num_draws * static_cast<std::size_t>(chains) > (std::size_t{1} << 31))
    s.fail("num_draws", "num_draws x chains of at most 2^31 draws");

  auto run_on = [&](const auto& target, int dim) {
    out.result = sample_hmc(target, normal_chain_starts(dim, chains, o.seed, initial_sd), o);
  };
  if (type == "gaussian") {
    const GaussianBase g = read_inline_gaussian(config, out.model);
    run_on(g, g.dim());
  } else if (type == "poe") {
    const ProductOfExperts poe = read_poe(config, out.model);
    run_on(poe, poe.dim());
  } else if (type == "bilinear_generative") {
    out.result = sample_bilinear_generative(config, o, chains, out.model);
  } else if (type == "mcrbm") {
    out.result = sample_mcrbm(config, o, chains, initial_sd, out.model);
  } else {
    const LinearGenerative model = read_linear_generative(config, out.model);
    const DataSet data = read_generative_data(config, model);
    out.model["data"] = data.description;
    out.model["data_index"] = data.index;
    out.model["target"] = "posterior p(a | x) of the data point";
    const LinearGenerativePosterior post(model, data.X.col(static_cast<Eigen::Index>(data.index)));
    run_on(post, post.dim());
  }
  const auto& r = out.result;
  const double n = static_cast<double>(r.num_draws * r.num_chains);
  for (int i = 0; i < r.dim; ++i) {
    RunningMoments m;
    for (std::size_t t = 0; t < r.num_draws; ++t)
      for (std::size_t c = 0; c < r.num_chains; ++c) m.add(r.draw(t, c, i));
    out.mean.push_back(m.mean());
    out.sd.push_back(n > 1 ? std::sqrt(m.variance()) : kNaN);
  }
  out.sampler = {{"kernel", "hmc"}, {"leapfrog_steps", o.leapfrog_steps}, {"chains", chains},
                 {"burn_in", o.burn_in}, {"num_draws", o.num_draws}, {"adapt", to_string(o.adapt)},
                 {"initial_step_size", o.initial_step_size}, {"target_acceptance", o.adaptation.target_acceptance}};
  out.runtime_s = std::chrono::duration<double>(Clock::now() - start).count();
  out.config = config.resolved();
  return out;
}

std::string sample_table(const SampleRun& s) {
  const auto& r = s.result;
  std::string t = fmt::format("model: {}\n", s.model.dump());
  t += fmt::format("HMC: {} chains x {} draws after {} burn-in moves, {} leapfrog steps; step-size adaptation: {}\n",
                   r.num_chains, r.num_draws, s.sampler["burn_in"].get<std::size_t>(),
                   s.sampler["leapfrog_steps"].get<int>(), s.sampler["adapt"].get<std::string>());
  t += fmt::format("acceptance {} (kept draws); moving average {}; final step size {}; mean energy error {}\n",
                   fixed(r.acceptance_rate, 3), fixed(r.average_acceptance, 3), fmt::format("{:.4g}", r.final_step_size),
                   fixed(r.mean_energy_error, 4));
  if (r.non_finite) t += fmt::format("non-finite proposals rejected: {}\n", r.non_finite);
  if (r.reflections) t += fmt::format("constraint reflections: {}\n", r.reflections);
  t += fmt::format("{:>5} {:>12} {:>12} {:>10}\n", "dim", "mean", "sd", "ESS");
  for (int i = 0; i < r.dim; ++i)
    t += fmt::format("{:>5} {:>12} {:>12} {:>10}\n", i, fixed(s.mean[static_cast<std::size_t>(i)], 4),
                     fixed(s.sd[static_cast<std::size_t>(i)], 4), fixed(r.ess[static_cast<std::size_t>(i)], 0));
  t += fmt::format("runtime: {:.2f} s\n", s.runtime_s);
  return t;
}

nlohmann::json sample_to_json(const SampleRun& s) {
  const auto& r = s.result;
  nlohmann::json ess = nlohmann::json::array(), mean = nlohmann::json::array(), sd = nlohmann::json::array();
  for (int i = 0; i < r.dim; ++i) {
    ess.push_back(number(r.ess[static_cast<std::size_t>(i)]));
    mean.push_back(number(s.mean[static_cast<std::size_t>(i)]));
    sd.push_back(number(s.sd[static_cast<std::size_t>(i)]));
  }
  return {{"model", s.model}, {"sampler", s.sampler}, {"acceptance_rate", number(r.acceptance_rate)},
          {"average_acceptance", number(r.average_acceptance)}, {"final_step_size", r.final_step_size},
          {"mean_energy_error", number(r.mean_energy_error)}, {"non_finite", r.non_finite},
          {"reflections", r.reflections}, {"ess", ess}, {"mean", mean}, {"sd", sd},
          {"draws_shape", {r.num_draws, r.num_chains, r.dim}}, {"runtime_s", s.runtime_s}, {"config", s.config}};
}

}  // namespace logz
