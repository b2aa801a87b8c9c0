// [model] type = "mcrbm": the mean-covariance RBM (Ranzato & Hinton 2010) with the marginal
// energy of eq. 40 of Sohl-Dickstein & Culpepper (2011): log Z by annealing from a Gaussian
// [base] (fitted to [data] by default in the example), L = -mean E(x) - log Z by `logz loglik`,
// HMC draws by `logz sample`. Exact log Z only without a covariance term (a sum over the mean
// units' states).
#include "logz/models/mcrbm.hpp"

#include <optional>

#include "logz/exact/mcrbm_mean_units.hpp"
#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

// The .npz members: P, C and W, the mean, covariance and visible units' biases b_m, b_c, b_v.
const Key kPKey = member_key("p_key", "P"), kCKey = member_key("c_key", "C"),
          kWKey = member_key("w_key", "W"), kBMeanKey = member_key("b_mean_key", "b_m"),
          kBCovKey = member_key("b_cov_key", "b_c"), kBVisKey = member_key("b_vis_key", "b_v");
const Key kDim = Key::integer("dim", 36, 1, 4096, "random: the dimension of x");
const Key kNumFactors =
    Key::integer("num_factors", Computed{"dim"}, 0, 1 << 16, "random: factors of C");
const Key kNumCovariance =
    Key::integer("num_covariance_units", Computed{"dim"}, 0, 1 << 16, "random: covariance units");
const Key kNumMean =
    Key::integer("num_mean_units", Computed{"dim"}, 0, 1 << 16, "random: mean units");
const Key kSigma = Key::number("sigma", 1.0, 1e-300, kLargestScale, "the visible units' sd");
const Key kSquaredNorm = Key::enumeration(
    "squared_norm", McRbmNorm::sum, "the length normalisation of eq. 40: sum or mean of squares");
const KeyGroup kModelKeys{
    "model",
    "mcrbm",
    {&parameters_key(), &kPKey, &kCKey, &kWKey, &kBMeanKey, &kBCovKey, &kBVisKey, &kDim,
     &kNumFactors, &kNumCovariance, &kNumMean, &parameter_seed_key(), &kSigma, &kSquaredNorm}};

const char* kNoSampler = "an mcRBM has none; give a data file";

// The mcRBM as the services run it: the model with the exact log Z that exact/ knows for it,
// read as every continuous model's exact_log_z() (the model itself calls no oracle).
struct McRbmWithExact : McRbm {
  std::optional<double> exact_log_z() const { return exact::mcrbm_log_z(*this); }
};

McRbmWithExact read_mcrbm(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const double sigma = m.get_double(kSigma);
  const McRbmNorm norm = m.get_enum<McRbmNorm>(kSquaredNorm);
  const std::string params = m.get_string(parameters_key());
  desc = {{"type", "mcrbm"},
          {"parameters", params},
          {"sigma", sigma},
          {"squared_norm", to_string(norm)}};
  std::optional<McRbm> model;
  if (params == "random") {
    for (const Key* k : {&kPKey, &kCKey, &kWKey, &kBMeanKey, &kBCovKey, &kBVisKey})
      if (m.has(*k))
        m.fail(*k,
               "no such key with parameters = \"random\" (it names an array of a parameters file)");
    const int M = static_cast<int>(m.get_int(kDim));
    const int L = static_cast<int>(m.get_int(kNumFactors, M));
    const int K = static_cast<int>(m.get_int(kNumCovariance, M));
    const int J = static_cast<int>(m.get_int(kNumMean, M));
    const auto seed = static_cast<std::uint64_t>(m.get_int(parameter_seed_key()));
    desc.set("parameter_seed", seed);
    model.emplace(McRbm::random(M, L, K, J, sigma, norm, seed));
  } else {
    for (const Key* k : {&kDim, &kNumFactors, &kNumCovariance, &kNumMean, &parameter_seed_key()})
      if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
    McRbmKeys keys;
    keys.P = m.get_string(kPKey);
    keys.C = m.get_string(kCKey);
    keys.W = m.get_string(kWKey);
    keys.b_mean = m.get_string(kBMeanKey);
    keys.b_cov = m.get_string(kBCovKey);
    keys.b_vis = m.get_string(kBVisKey);
    model.emplace(McRbm::load(resolve_config_path(config, params), sigma, norm, keys));
  }
  desc.set("dim", model->dim());
  desc.set("num_factors", model->num_factors());
  desc.set("num_covariance_units", model->num_covariance_units());
  desc.set("num_mean_units", model->num_mean_units());
  return McRbmWithExact{std::move(*model)};
}

RunResult mcrbm_experiment(Config& config, const McRbmWithExact& model, Record desc,
                           const RunContext& context) {
  return analysis_experiment(config, model, std::move(desc), {}, kNoSampler,
                             "geometric: (1 - t) U_base + t E_mcRBM",
                             "exact (no covariance term: sum over mean units)", context);
}

RunResult run_mcrbm(Config& config, const RunContext& context) {
  Record desc;
  const McRbmWithExact model = read_mcrbm(config, desc);
  return mcrbm_experiment(config, model, desc, context);
}

LoglikResult mcrbm_loglik(Config& config, const RunContext& context) {
  Record desc;
  const McRbmWithExact model = read_mcrbm(config, desc);
  const DataSet data = read_data(config, model.dim(), {}, kNoSampler);
  return analysis_model_loglik(config, model, data,
                               [&] { return mcrbm_experiment(config, model, desc, context); });
}

}  // namespace

ModelEntry mcrbm_model_entry() {
  return {.name = "mcrbm",
          .summary =
              "the mean-covariance RBM's marginal energy (Ranzato & Hinton 2010; eq. 40 of "
              "Sohl-Dickstein & Culpepper)",
          .docs = "docs/hais.md",
          .methods = continuous_methods(),
          .kernels = kernel_entries(),
          .reference = "exact without a covariance term",
          .keys = continuous_method_key_groups(kModelKeys, &base_keys(), true),
          .sample_keys = {&kModelKeys, &sampler_keys()},
          .run = run_mcrbm,
          .loglik = mcrbm_loglik,
          .sample = [](Config& c, const RunContext& x) { return sample_model(c, x, read_mcrbm); },
          .exact =
              [](Config& c) {
                return exact_reference(c, read_mcrbm,
                                       "exact (no covariance term: sum over mean units)");
              }};
}

}  // namespace logz
