// [model] type = "bilinear_generative": x = Phi a + noise, a = (Theta c) .* (Psi d), with Laplace
// c and exponential d >= 0 (Sohl-Dickstein & Culpepper 2011, model 2): log p(x) of data points
// annealed from the prior (base "prior") to the posterior over (c, d), reflecting at d = 0; one
// data point for `logz run`, one AIS run per point for `logz loglik`; `logz sample` draws from
// the posterior of [data] index, chains starting at prior draws.
#include "logz/models/bilinear_generative.hpp"

#include <optional>

#include "logz/models/laplace_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

const Key kPhiKey = member_key("phi_key", "Phi"), kThetaKey = member_key("theta_key", "Theta"),
          kPsiKey = member_key("psi_key", "Psi");
const Key kBasisDim =
    Key::integer("basis_dim", Computed{"data_dim"}, 1, 4096, "random: the dimension of a");
const Key kNumC =
    Key::integer("num_c", Computed{"basis_dim"}, 1, 4096, "random: the dimension of c");
const Key kNumD =
    Key::integer("num_d", Computed{"max(1, basis_dim / 4)"}, 1, 4096, "random: the dimension of d");
const KeyGroup kModelKeys{"model",
                          "bilinear_generative",
                          {&parameters_key(), &kPhiKey, &kThetaKey, &kPsiKey, &data_dim_key(),
                           &kBasisDim, &kNumC, &kNumD, &parameter_seed_key(), &sigma_noise_key()}};

const Key kBaseType = Key::choice(
    "type", std::string("prior"), {"prior"},
    "the prior (Laplace c, exponential d): exact draws with d >= 0, log Z_0 = K_c log 2");
const KeyGroup kBaseKeys{"base", "bilinear_generative base", {&kBaseType}};

BilinearGenerative read_bilinear_generative(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const double sigma = m.get_double(sigma_noise_key());
  const std::string params = m.get_string(parameters_key());
  desc = {{"type", "bilinear_generative"},
          {"parameters", params},
          {"sigma_noise", sigma},
          {"prior", "c Laplace exp(-|c|)/2, d exponential exp(-d) on d >= 0"}};
  std::optional<BilinearGenerative> model;
  if (params == "random") {
    for (const Key* k : {&kPhiKey, &kThetaKey, &kPsiKey})
      if (m.has(*k))
        m.fail(*k,
               "no such key with parameters = \"random\" (it names an array of a parameters file)");
    const int M = static_cast<int>(m.get_int(data_dim_key()));
    const int L = static_cast<int>(m.get_int(kBasisDim, M));
    const int Kc = static_cast<int>(m.get_int(kNumC, L));
    const int Kd = static_cast<int>(m.get_int(kNumD, std::max(1, L / 4)));
    const auto seed = static_cast<std::uint64_t>(m.get_int(parameter_seed_key()));
    desc.set("parameter_seed", seed);
    model.emplace(BilinearGenerative::random(M, L, Kc, Kd, sigma, seed));
  } else {
    for (const Key* k : {&data_dim_key(), &kBasisDim, &kNumC, &kNumD, &parameter_seed_key()})
      if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
    BilinearKeys keys;
    keys.phi = m.get_string(kPhiKey);
    keys.theta = m.get_string(kThetaKey);
    keys.psi = m.get_string(kPsiKey);
    model.emplace(BilinearGenerative::load(resolve_config_path(config, params), sigma, keys));
  }
  desc.set("data_dim", model->data_dim());
  desc.set("basis_dim", model->basis_dim());
  desc.set("num_c", model->num_c());
  desc.set("num_d", model->num_d());
  return std::move(*model);
}

DataSet read_bilinear_data(Config& config, const BilinearGenerative& model) {
  return read_data(config, model.data_dim(),
                   [&](Eigen::MatrixXd& X, const BatchRandom& r) { model.sample_data(X, r); });
}

constexpr const char* kReferenceSource = "exact (a = 0: N(x; 0, sigma_n^2 I))";

// The exact log p(x) of the [data] point where Phi = 0: the run's reference and the Python
// model's exact_log_z(), from [model] and [data].
std::optional<Reference> bilinear_generative_exact(Config& config) {
  Record desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  return data_point_reference(model, read_bilinear_data(config, model), kReferenceSource);
}

// [base] type = "prior" (the only one: a base must keep d >= 0, and the prior gives the
// paper's path U_prior + t U_likelihood).
LaplaceBase read_prior_base(Config& config, const BilinearGenerative& model, Record& desc) {
  auto b = config.section("base");
  b.check_known({&kBaseKeys});
  b.get_string(kBaseType);
  desc = {{"type", "prior"}, {"log_z", model.prior().log_z()}};
  return model.prior();
}

using BilinearPath = GeometricPath<LaplaceBase, BilinearGenerativePosterior>;

RunResult run_bilinear_generative(Config& config, const RunContext& context) {
  Record desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  const DataSet data = read_bilinear_data(config, model);
  Record base_desc;
  const LaplaceBase base = read_prior_base(config, model, base_desc);
  KernelSettings ks = read_kernel(config);
  const Schedule schedule = read_continuous_schedule(config);
  // No exact posterior draws: reverse runs start from forward end points resampled by weight.
  const RunSettings run = read_run_settings(config, {});
  const Eigen::VectorXd x = data.X.col(static_cast<Eigen::Index>(data.index));
  const BilinearPath path(base, BilinearGenerativePosterior(model, x));
  RunResult result = generative_result(
      std::move(desc), base_desc, data,
      "geometric from the prior: U_prior + t U_likelihood, z = (c, d), reflection at d = 0",
      base.log_z(), model.exact_log_likelihood(x), kReferenceSource);
  anneal_with_kernel(path, ks, schedule, run, no_exact_start, context, result);
  return result;
}

LoglikResult bilinear_generative_loglik(Config& config, const RunContext& context) {
  Record desc, base_desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  const DataSet data = read_bilinear_data(config, model);
  const LaplaceBase base = read_prior_base(config, model, base_desc);
  auto make_path = [&](const Eigen::VectorXd& x) {
    return BilinearPath(base, BilinearGenerativePosterior(model, x));
  };
  return generative_loglik(config, context, std::move(desc), data, base_desc, {}, make_path,
                           [&](const Eigen::VectorXd& x) { return model.exact_log_likelihood(x); });
}

SampleResult bilinear_generative_sample(Config& config, const RunContext& context) {
  const SamplerSettings s = read_sampler(config, context.stop, false);
  Record desc;
  const BilinearGenerative model = read_bilinear_generative(config, desc);
  const DataSet data = read_bilinear_data(config, model);
  desc.set("data", data.description);
  desc.set("data_index", data.index);
  desc.set("target", "posterior p(c, d | x) of the data point: z = (c, d), d >= 0");
  desc.set("chain_starts", "prior draws");
  const BilinearGenerativePosterior post(model, data.X.col(static_cast<Eigen::Index>(data.index)));
  // Chain m starts at a prior draw from the stream (seed, m, Purpose::base_sample, 0): inside d >=
  // 0.
  Eigen::MatrixXd init(post.dim(), s.chains);
  for (Eigen::Index m = 0; m < s.chains; ++m) {
    RandomStream r(s.options.seed, static_cast<std::uint64_t>(m), Purpose::base_sample, 0);
    model.prior().sample_one(r, init.col(m));
  }
  return sample_target(s, ContinuousModelRef(post), std::move(desc), init);
}

}  // namespace

ModelEntry bilinear_generative_model_entry() {
  return {.name = "bilinear_generative",
          .summary =
              "x = Phi ((Theta c) .* (Psi d)) + noise: log p(x) per data point from the prior "
              "(Sohl-Dickstein & Culpepper 2011)",
          .docs = "docs/hais.md",
          .methods = {RunMethod::annealing},
          .kernels = kernel_entries(),
          .reference = "exact only when Phi = 0",
          .keys = continuous_key_groups(kModelKeys, &kBaseKeys, true),
          .sample_keys = {&kModelKeys, &sampler_keys(), &data_keys()},
          .run = run_bilinear_generative,
          .loglik = bilinear_generative_loglik,
          .sample = bilinear_generative_sample,
          .exact = bilinear_generative_exact};
}

}  // namespace logz
