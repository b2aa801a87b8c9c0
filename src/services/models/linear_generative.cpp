// [model] type = "linear_generative": x = Phi a + noise with a Gaussian or Laplace prior on a
// (Sohl-Dickstein & Culpepper 2011, model 1): log p(x) of one data point ([data] index) by
// annealing from [base] to the posterior over a (`logz run`), or of every data point, one AIS
// run each (`logz loglik`); `logz sample` draws from the posterior of [data] index. Exact
// log p(x) and exact posterior draws (reverse starts) with the Gaussian prior.
#include "logz/models/linear_generative.hpp"

#include <Eigen/Cholesky>
#include <optional>

#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

const Key kPhiKey = member_key("phi_key", "Phi");
const Key kLatentDim =
    Key::integer("latent_dim", Computed{"data_dim"}, 1, 4096, "random: the dimension of a");
const Key kPrior = Key::enumeration("prior", PriorType::gaussian, "the prior on a");
const KeyGroup kModelKeys{"model",
                          "linear_generative",
                          {&parameters_key(), &kPhiKey, &data_dim_key(), &kLatentDim,
                           &parameter_seed_key(), &sigma_noise_key(), &kPrior}};

LinearGenerative read_linear_generative(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const double sigma = m.get_double(sigma_noise_key());
  const PriorType prior = m.get_enum<PriorType>(kPrior);
  const std::string params = m.get_string(parameters_key());
  desc = {{"type", "linear_generative"},
          {"parameters", params},
          {"sigma_noise", sigma},
          {"prior", to_string(prior)}};
  std::optional<LinearGenerative> model;
  if (params == "random") {
    const int M = static_cast<int>(m.get_int(data_dim_key()));
    const int L = static_cast<int>(m.get_int(kLatentDim, M));
    const auto seed = static_cast<std::uint64_t>(m.get_int(parameter_seed_key()));
    desc.set("parameter_seed", seed);
    model.emplace(LinearGenerative::random(M, L, sigma, prior, seed));
  } else {
    for (const Key* k : {&data_dim_key(), &kLatentDim, &parameter_seed_key()})
      if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
    model.emplace(LinearGenerative::load(resolve_config_path(config, params), sigma, prior,
                                         m.get_string(kPhiKey)));
  }
  desc.set("data_dim", model->data_dim());
  desc.set("latent_dim", model->latent_dim());
  return std::move(*model);
}

DataSet read_generative_data(Config& config, const LinearGenerative& model) {
  return read_data(config, model.data_dim(),
                   [&](Eigen::MatrixXd& X, const BatchRandom& r) { model.sample_data(X, r); });
}

constexpr const char* kReferenceSource = "exact (Gaussian marginal)";

// The exact log p(x) of the [data] point (Gaussian prior only): the run's reference and the
// Python model's exact_log_z(), from [model] and [data].
std::optional<Reference> linear_generative_exact(Config& config) {
  Record desc;
  const LinearGenerative model = read_linear_generative(config, desc);
  return data_point_reference(model, read_generative_data(config, model), kReferenceSource);
}

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

std::vector<std::string> model_starts(const LinearGenerative& model) {
  return model.prior() == PriorType::gaussian ? std::vector<std::string>{"exact"}
                                              : std::vector<std::string>{};
}

// `logz run` (one data point's log p(x)) runs any method on the posterior's path; `logz loglik`
// anneals.
RunResult run_linear_generative(Config& config, const RunContext& context) {
  Record desc;
  const LinearGenerative model = read_linear_generative(config, desc);
  const DataSet data = read_generative_data(config, model);
  Record base_desc;
  const GaussianBase base = read_base(config, model.latent_dim(), {}, base_desc);
  KernelSettings ks = read_kernel(config);
  const RunMethod method = read_run_method(config, continuous_methods());
  const Eigen::VectorXd x = data.X.col(static_cast<Eigen::Index>(data.index));
  const LinearGenerativePosterior posterior(model, x);
  RunResult result = generative_result(
      std::move(desc), base_desc, data,
      "geometric: (1 - t) U_base + t U_posterior, U_posterior(a) = -log p(a) - log p(x | a)",
      base.log_z(), model.exact_log_likelihood(x), kReferenceSource);
  // Reverse starts from the exact posterior where the prior is Gaussian.
  std::optional<GaussianBase> exact_posterior;
  DataSampler exact_start;
  if (model.prior() == PriorType::gaussian) {
    exact_posterior.emplace(gaussian_posterior(model, x));
    exact_start = [&](Eigen::MatrixXd& X, const BatchRandom& r) { exact_posterior->sample(X, r); };
  }
  run_on_geometric_path(method, base, ContinuousModelRef(posterior), ks, exact_start, config,
                        context, result);
  return result;
}

LoglikResult linear_generative_loglik(Config& config, const RunContext& context) {
  Record desc, base_desc;
  const LinearGenerative model = read_linear_generative(config, desc);
  const DataSet data = read_generative_data(config, model);
  const GaussianBase base = read_base(config, model.latent_dim(), {}, base_desc);
  auto make_path = [&](const Eigen::VectorXd& x) {
    return GeometricPath<GaussianBase, LinearGenerativePosterior>(
        base, LinearGenerativePosterior(model, x));
  };
  return generative_loglik(config, context, std::move(desc), data, base_desc, model_starts(model),
                           make_path,
                           [&](const Eigen::VectorXd& x) { return model.exact_log_likelihood(x); });
}

SampleResult linear_generative_sample(Config& config, const RunContext& context) {
  const SamplerSettings s = read_sampler(config, context.stop);
  Record desc;
  const LinearGenerative model = read_linear_generative(config, desc);
  const DataSet data = read_generative_data(config, model);
  desc.set("data", data.description);
  desc.set("data_index", data.index);
  desc.set("target", "posterior p(a | x) of the data point");
  const LinearGenerativePosterior posterior(model,
                                            data.X.col(static_cast<Eigen::Index>(data.index)));
  return sample_target(s, ContinuousModelRef(posterior), std::move(desc));
}

}  // namespace

ModelEntry linear_generative_model_entry() {
  return {.name = "linear_generative",
          .summary =
              "x = Phi a + noise, Gaussian or Laplace prior on a: log p(x) per data point "
              "(Sohl-Dickstein & Culpepper 2011)",
          .docs = "docs/hais.md",
          .methods = continuous_methods(),
          .kernels = kernel_entries(),
          .reverse_starts = {"exact"},
          .reference = "exact with the Gaussian prior",
          .keys = continuous_method_key_groups(kModelKeys, &base_keys(), true),
          .sample_keys = {&kModelKeys, &sampler_keys(), &data_keys()},
          .run = run_linear_generative,
          .loglik = linear_generative_loglik,
          .sample = linear_generative_sample,
          .exact = linear_generative_exact};
}

}  // namespace logz
