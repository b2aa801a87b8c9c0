// [model] type = "poe": a product of experts (Laplace or Student-t experts on linear filters),
// log Z by annealing from a Gaussian [base] (Hamiltonian AIS by default); `logz loglik`:
// L = -mean E(x) - log Z of a data set; `logz sample`: HMC draws. Exact log Z and exact draws
// (reverse starts, data) when Phi is complete (square and invertible).
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

const Key kExpert = Key::enumeration(
    "expert", ExpertType::laplace,
    "the experts: Laplace E(u) = lambda |u| or Student-t E(u) = lambda log(1 + u^2)");
const Key kPhiKey = member_key("phi_key", "Phi"), kLambdaKey = member_key("lambda_key", "lambda");
const Key kDim = Key::integer("dim", 36, 1, 4096, "random: the dimension");
const Key kNumExperts = Key::integer("num_experts", Computed{"dim (complete)"}, 1, 1 << 16,
                                     "random: the experts, >= dim");
const Key kPrecision =
    Key::choice("precision", std::string("double"), {"double", "float"},
                "the filter products and experts in double or single precision (float: about "
                "twice as fast; energies summed and works accumulated in double)");
const KeyGroup kModelKeys{"model",
                          "poe",
                          {&kExpert, &parameters_key(), &kPhiKey, &kLambdaKey, &kDim, &kNumExperts,
                           &parameter_seed_key(), &kPrecision}};

ProductOfExperts read_poe(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const ExpertType expert = m.get_enum<ExpertType>(kExpert);
  const std::string params = m.get_string(parameters_key());
  const bool single = m.get_string(kPrecision) == "float";
  desc = {{"type", "poe"}, {"expert", to_string(expert)}, {"parameters", params}};
  if (single) desc.set("precision", "float");
  auto describe = [&](const ProductOfExperts& poe) {
    desc.set("dim", poe.dim());
    desc.set("num_experts", poe.num_experts());
    desc.set("complete", poe.is_complete());
  };
  if (params == "random") {
    const int d = static_cast<int>(m.get_int(kDim));
    const int L = static_cast<int>(m.get_int(kNumExperts.with_integer_range(d, 1 << 16), d));
    const auto seed = static_cast<std::uint64_t>(m.get_int(parameter_seed_key()));
    desc.set("parameter_seed", seed);
    ProductOfExperts poe =
        ProductOfExperts::random(expert, d, L, seed).with_single_precision(single);
    describe(poe);
    return poe;
  }
  for (const Key* k : {&kDim, &kNumExperts, &parameter_seed_key()})
    if (m.has(*k)) m.fail(*k, "no such key with a parameters file (the file sets the model)");
  PoeKeys keys;
  keys.filters = m.get_string(kPhiKey);
  keys.lambda = m.get_string(kLambdaKey);
  ProductOfExperts poe = ProductOfExperts::load(resolve_config_path(config, params), expert, keys)
                             .with_single_precision(single);
  describe(poe);
  return poe;
}

DataSampler exact_sampler(const ProductOfExperts& poe) {
  if (!poe.is_complete()) return {};
  return [&poe](Eigen::MatrixXd& X, const BatchRandom& r) { poe.sample_exact(X, r); };
}

RunResult poe_experiment(Config& config, const ProductOfExperts& poe, Record desc,
                         const RunContext& context) {
  // The exact reverse start (complete Phi): x = Phi^{-1} u.
  return analysis_experiment(config, poe, std::move(desc), exact_sampler(poe),
                             "draws need a complete Phi", "geometric: (1 - t) U_base + t U_poe",
                             "exact (complete Phi)", context);
}

RunResult run_poe(Config& config, const RunContext& context) {
  Record desc;
  const ProductOfExperts poe = read_poe(config, desc);
  read_run_method(config, continuous_methods());
  return poe_experiment(config, poe, desc, context);
}

LoglikResult poe_loglik(Config& config, const RunContext& context) {
  Record desc;
  const ProductOfExperts poe = read_poe(config, desc);
  const DataSet data = read_data(config, poe.dim(), exact_sampler(poe));
  read_run_method(config, {RunMethod::annealing});
  return analysis_model_loglik(config, poe, data,
                               [&] { return poe_experiment(config, poe, desc, context); });
}

}  // namespace

ModelEntry poe_model_entry() {
  return {.name = "poe",
          .summary =
              "a product of Laplace or Student-t experts on linear filters (Sohl-Dickstein & "
              "Culpepper 2011)",
          .docs = "docs/hais.md",
          .methods = continuous_methods(),
          .kernels = kernel_entries(),
          .reverse_starts = {"exact"},
          .reference = "exact when Phi is complete",
          .keys = continuous_method_key_groups(kModelKeys, &base_keys(), true),
          .sample_keys = {&kModelKeys, &sampler_keys()},
          .run = run_poe,
          .loglik = poe_loglik,
          .sample = [](Config& c, const RunContext& x) { return sample_model(c, x, read_poe); },
          .exact = [](Config& c) { return exact_reference(c, read_poe, "exact (complete Phi)"); }};
}

}  // namespace logz
