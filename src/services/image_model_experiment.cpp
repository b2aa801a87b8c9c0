// The services of the two image models of Sohl-Dickstein & Culpepper (2011) beyond the linear
// ones: `logz run`, `logz loglik` and `logz sample` for [model] type = "bilinear_generative"
// (a generative model: log p(x) per data point, annealed from its prior) and "mcrbm" (an
// analysis model: one log Z, annealed from a Gaussian [base]). Config keys: docs/hais.md. The
// readers of [data], [base], [kernel] and the per-point loop are shared with the other
// continuous models (continuous_support.hpp).
#include <optional>

#include "continuous_support.hpp"
#include "logz/models/bilinear_generative.hpp"
#include "logz/models/laplace_base.hpp"
#include "logz/models/mcrbm.hpp"
#include "logz/paths/geometric_path.hpp"

namespace logz {

using namespace continuous;

namespace {

// ---------------------------------------------------------------- bilinear generative

BilinearGenerative read_bilinear_generative(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "parameters", "phi_key", "theta_key", "psi_key", "data_dim", "basis_dim", "num_c", "num_d",
                 "parameter_seed", "sigma_noise"});
  const double sigma = m.get_double("sigma_noise", 0.1, 1e-300);
  const std::string params = m.get_string("parameters", "random");
  desc = {{"type", "bilinear_generative"},
          {"parameters", params},
          {"sigma_noise", sigma},
          {"prior", "c Laplace exp(-|c|)/2, d exponential exp(-d) on d >= 0"}};
  std::optional<BilinearGenerative> model;
  if (params == "random") {
    for (const char* k : {"phi_key", "theta_key", "psi_key"})
      if (m.has(k)) m.fail(k, "no such key with parameters = \"random\" (it names an array of a parameters file)");
    const int M = static_cast<int>(m.get_int("data_dim", 36, 1, 4096));
    const int L = static_cast<int>(m.get_int("basis_dim", M, 1, 4096));
    const int Kc = static_cast<int>(m.get_int("num_c", L, 1, 4096));
    const int Kd = static_cast<int>(m.get_int("num_d", std::max(1, L / 4), 1, 4096));
    const auto seed = static_cast<std::uint64_t>(m.get_int("parameter_seed", 1, 0));
    desc["parameter_seed"] = seed;
    model.emplace(BilinearGenerative::random(M, L, Kc, Kd, sigma, seed));
  } else {
    for (const char* k : {"data_dim", "basis_dim", "num_c", "num_d", "parameter_seed"})
      if (m.has(k)) m.fail(k, "no such key with a parameters file (the file sets the model)");
    BilinearKeys keys;
    keys.phi = m.get_string("phi_key", "Phi");
    keys.theta = m.get_string("theta_key", "Theta");
    keys.psi = m.get_string("psi_key", "Psi");
    model.emplace(BilinearGenerative::load(resolve_config_path(config, params), sigma, keys));
  }
  desc["data_dim"] = model->data_dim();
  desc["basis_dim"] = model->basis_dim();
  desc["num_c"] = model->num_c();
  desc["num_d"] = model->num_d();
  return std::move(*model);
}

DataSet read_bilinear_data(Config& config, const BilinearGenerative& model) {
  return read_data(config, model.data_dim(),
                   [&](Eigen::MatrixXd& X, const BatchRandom& r) { model.sample_data(X, r); });
}

// [base] type = "prior" (the only one: a base must keep d >= 0, and the prior gives the
// paper's path U_prior + t U_likelihood).
LaplaceBase read_prior_base(Config& config, const BilinearGenerative& model, nlohmann::json& desc) {
  auto b = config.section("base");
  b.check_known({"type"});
  b.get_string("type", "prior", {"prior"});
  desc = {{"type", "prior"}, {"log_z", model.prior().log_z()}};
  return model.prior();
}

using BilinearPath = GeometricPath<LaplaceBase, BilinearGenerativePosterior>;

ExperimentResult bilinear_generative_experiment(Config& config, const BilinearGenerative& model, nlohmann::json desc,
                                                const DataSet& data, const ProgressFn& progress) {
  nlohmann::json base_desc;
  const LaplaceBase base = read_prior_base(config, model, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  // No exact posterior draws: reverse runs start from forward end points resampled by weight.
  const RunSettings run = read_run_settings(config, {});
  const Eigen::VectorXd x = data.X.col(static_cast<Eigen::Index>(data.index));
  const BilinearPath path(base, BilinearGenerativePosterior(model, x));
  run_pilot(path, ks, schedule, run.seed, run.num_paths);

  ExperimentResult result;
  desc["base"] = base_desc;
  desc["data"] = data.description;
  desc["data_index"] = data.index;
  desc["path"] = "geometric from the prior: U_prior + t U_likelihood, z = (c, d), reflection at d = 0";
  result.model = desc;
  result.base_log_z = base.log_z();
  if (auto z = model.exact_log_likelihood(x)) result.reference = Reference{*z, "exact (a = 0: N(x; 0, sigma_n^2 I))"};
  result.kernel = kernel_json(ks);
  auto no_model_start = [](ContinuousBatch&, const ChunkStreams&) {
    fail_argument("logz::bilinear_generative_experiment", "reverse_start", "\"resampled\"");
  };
  with_kernel(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, no_model_start, progress, result);
  });
  return result;
}

// ---------------------------------------------------------------- mcRBM

McRbm read_mcrbm(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "parameters", "p_key", "c_key", "w_key", "b_mean_key", "b_cov_key", "b_vis_key", "dim",
                 "num_factors", "num_covariance_units", "num_mean_units", "parameter_seed", "sigma", "squared_norm"});
  const double sigma = m.get_double("sigma", 1.0, 1e-300);
  const McRbmNorm norm = parse_mcrbm_norm(m.get_string("squared_norm", "sum", {"sum", "mean"}));
  const std::string params = m.get_string("parameters", "random");
  desc = {{"type", "mcrbm"}, {"parameters", params}, {"sigma", sigma}, {"squared_norm", to_string(norm)}};
  std::optional<McRbm> model;
  if (params == "random") {
    for (const char* k : {"p_key", "c_key", "w_key", "b_mean_key", "b_cov_key", "b_vis_key"})
      if (m.has(k)) m.fail(k, "no such key with parameters = \"random\" (it names an array of a parameters file)");
    const int M = static_cast<int>(m.get_int("dim", 36, 1, 4096));
    const int L = static_cast<int>(m.get_int("num_factors", M, 0, 1 << 16));
    const int K = static_cast<int>(m.get_int("num_covariance_units", M, 0, 1 << 16));
    const int J = static_cast<int>(m.get_int("num_mean_units", M, 0, 1 << 16));
    const auto seed = static_cast<std::uint64_t>(m.get_int("parameter_seed", 1, 0));
    desc["parameter_seed"] = seed;
    model.emplace(McRbm::random(M, L, K, J, sigma, norm, seed));
  } else {
    for (const char* k : {"dim", "num_factors", "num_covariance_units", "num_mean_units", "parameter_seed"})
      if (m.has(k)) m.fail(k, "no such key with a parameters file (the file sets the model)");
    McRbmKeys keys;
    keys.P = m.get_string("p_key", "P");
    keys.C = m.get_string("c_key", "C");
    keys.W = m.get_string("w_key", "W");
    keys.b_mean = m.get_string("b_mean_key", "b_m");
    keys.b_cov = m.get_string("b_cov_key", "b_c");
    keys.b_vis = m.get_string("b_vis_key", "b_v");
    model.emplace(McRbm::load(resolve_config_path(config, params), sigma, norm, keys));
  }
  desc["dim"] = model->dim();
  desc["num_factors"] = model->num_factors();
  desc["num_covariance_units"] = model->num_covariance_units();
  desc["num_mean_units"] = model->num_mean_units();
  return std::move(*model);
}

const char* kMcRbmNoSampler = "an mcRBM has none; give a data file";

ExperimentResult mcrbm_experiment(Config& config, const McRbm& model, nlohmann::json desc, const ProgressFn& progress) {
  nlohmann::json base_desc;
  const GaussianBase base = read_base(
      config, model.dim(), [&] { return read_data(config, model.dim(), {}, kMcRbmNoSampler); }, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, {});
  const GeometricPath<GaussianBase, McRbm> path(base, model);
  run_pilot(path, ks, schedule, run.seed, run.num_paths);

  ExperimentResult result;
  desc["base"] = base_desc;
  desc["path"] = "geometric: (1 - t) U_base + t E_mcRBM";
  result.model = desc;
  result.base_log_z = base.log_z();
  if (auto z = model.exact_log_z()) result.reference = Reference{*z, "exact (no covariance term: sum over mean units)"};
  result.kernel = kernel_json(ks);
  auto no_model_start = [](ContinuousBatch&, const ChunkStreams&) {
    fail_argument("logz::mcrbm_experiment", "reverse_start", "\"resampled\"");
  };
  with_kernel(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, no_model_start, progress, result);
  });
  return result;
}

}  // namespace

ExperimentResult run_bilinear_generative_experiment(Config& config, const ProgressFn& progress) {
  nlohmann::json desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  const DataSet data = read_bilinear_data(config, model);
  return bilinear_generative_experiment(config, model, desc, data, progress);
}

ExperimentResult run_mcrbm_experiment(Config& config, const ProgressFn& progress) {
  nlohmann::json desc;
  const McRbm model = read_mcrbm(config, desc);
  return mcrbm_experiment(config, model, desc, progress);
}

namespace continuous {

void bilinear_generative_loglik(Config& config, const ProgressFn& progress, LoglikResult& r) {
  nlohmann::json desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  const DataSet data = read_bilinear_data(config, model);
  nlohmann::json base_desc;
  const LaplaceBase base = read_prior_base(config, model, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, {});
  auto make_path = [&](const Eigen::VectorXd& x) { return BilinearPath(base, BilinearGenerativePosterior(model, x)); };
  // One pilot, on the first data point, sets the step size of every run.
  run_pilot(make_path(data.X.col(0)), ks, schedule, data_point_seed(run.seed, 0), run.num_paths);
  desc["base"] = base_desc;
  desc["data"] = data.description;
  r.model = desc;
  r.kernel = kernel_json(ks);
  r.kernel["runs"] = "one forward AIS run per data point ([run] num_paths particles each), seeded per point";
  generative_logliks(data.X, ks, schedule, run, make_path,
                     [&](const Eigen::VectorXd& x) { return model.exact_log_likelihood(x); }, progress, r);
}

void mcrbm_loglik(Config& config, const ProgressFn& progress, LoglikResult& r) {
  nlohmann::json desc;
  const McRbm model = read_mcrbm(config, desc);
  const DataSet data = read_data(config, model.dim(), {}, kMcRbmNoSampler);
  const ExperimentResult e = mcrbm_experiment(config, model, desc, progress);
  Eigen::VectorXd energies;
  model.energy(data.X, energies);
  analysis_loglik(config, e, energies, data.description, r);
}

HmcSamplerResult sample_bilinear_generative(Config& config, const HmcSamplerOptions& o, Eigen::Index chains,
                                            nlohmann::json& model_desc) {
  const BilinearGenerative model = read_bilinear_generative(config, model_desc);
  const DataSet data = read_bilinear_data(config, model);
  model_desc["data"] = data.description;
  model_desc["data_index"] = data.index;
  model_desc["target"] = "posterior p(c, d | x) of the data point: z = (c, d), d >= 0";
  model_desc["chain_starts"] = "prior draws";
  const BilinearGenerativePosterior post(model, data.X.col(static_cast<Eigen::Index>(data.index)));
  // Chain m starts at a prior draw from the stream (seed, m, Purpose::base_sample, 0): inside d >= 0.
  Eigen::MatrixXd init(post.dim(), chains);
  for (Eigen::Index m = 0; m < chains; ++m) {
    RandomStream s(o.seed, static_cast<std::uint64_t>(m), Purpose::base_sample, 0);
    model.prior().sample_one(s, init.col(m));
  }
  return sample_hmc(post, init, o);
}

HmcSamplerResult sample_mcrbm(Config& config, const HmcSamplerOptions& o, Eigen::Index chains, double initial_sd,
                              nlohmann::json& model_desc) {
  const McRbm model = read_mcrbm(config, model_desc);
  return sample_hmc(model, normal_chain_starts(model.dim(), chains, o.seed, initial_sd), o);
}

}  // namespace continuous

}  // namespace logz
