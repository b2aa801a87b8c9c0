// [model] type = "gaussian_mixture": a mixture of Gaussians (models/gaussian_mixture.hpp;
// default: the stand-in for the mixture of Carlson et al. 2016, Fig. 2) on the geometric path
// from an isotropic Gaussian [base], by annealing (AIS/RAISE with HMC, HAIS or random-walk
// Metropolis; reverse runs from exact mixture draws) or by simulated tempering with the same
// kernels (RTS, TS, TI variants, MBAR); `logz loglik`: L = -mean E(x) - log Z of data (drawn
// from the mixture or from a file); `logz sample`: HMC draws. The exact log Z (the sum of the
// masses) is reported beside the estimates.
#include "logz/exact/gaussian_mixture.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <string>
#include <vector>

#include "logz/models/gaussian_mixture.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {

using namespace continuous;

namespace {

const Key kWeights =
    Key::array("weights", Computed{"[3.0, 7.0]"}, "the components' masses w_j > 0 (Z = sum_j w_j)");
const Key kMeans =
    Key::array("means", Computed{"[-2.0, 2.0]"},
               "one mean per component: a number c (c in every coordinate) or d numbers");
const Key kCovariances =
    Key::array("covariances", Computed{"[1.0, 0.5]"},
               "one per component: a variance s (s I), d variances (diagonal) or d x d");
const Key kDim =
    Key::integer("dim", Computed{"the length of the first mean given as an array, else 10"}, 1,
                 4096, "the dimension d");
const KeyGroup kModelKeys{"model", "gaussian_mixture", {&kWeights, &kMeans, &kCovariances, &kDim}};

const Key kBaseType =
    Key::choice("type", std::string("gaussian"), {"gaussian"}, "isotropic N(0, sigma^2 I)");
const Key kBaseSigma = Key::number("sigma", 3.0, 1e-100, 1e100, "the base's sd");
const KeyGroup kBaseKeys{"base", "gaussian_mixture base", {&kBaseType, &kBaseSigma}};

const KernelDefaults kKernelDefaults{"hmc", 10, 0.5};

// ---------------------------------------------------------------- [model]

struct MixtureSpec {
  std::vector<double> weights;
  std::vector<Eigen::VectorXd> means;
  std::vector<Eigen::MatrixXd> covariances;
};

bool is_number(const Value& v) { return v.is_number() && std::isfinite(v.as_double()); }

// A list of M entries of `key`, or the default.
Value list_of(ConfigSection& m, const Key& key, Value fallback) {
  const Value& v = m.get_value(key);
  if (v.is_null()) return fallback;
  if (!v.is_array() || v.size() == 0) m.fail(key, "a non-empty array (one entry per component)");
  return v;
}

// A mean: a number c (c in every coordinate) or d numbers.
Eigen::VectorXd read_mean(ConfigSection& m, const Value& v, int d, std::size_t j) {
  const std::string shape =
      fmt::format("a number or an array of {} finite numbers (component {})", d, j);
  if (is_number(v)) return Eigen::VectorXd::Constant(d, v.as_double());
  if (!v.is_array() || static_cast<int>(v.size()) != d) m.fail("means", shape);
  Eigen::VectorXd mu(d);
  for (int i = 0; i < d; ++i) {
    if (!is_number(v[static_cast<std::size_t>(i)])) m.fail("means", shape);
    mu(i) = v[static_cast<std::size_t>(i)].as_double();
  }
  return mu;
}

// A covariance: a number s (s I), d numbers (a diagonal) or d arrays of d numbers.
Eigen::MatrixXd read_covariance(ConfigSection& m, const Value& v, int d, std::size_t j) {
  const std::string shape = fmt::format(
      "a variance, {} variances or a {} x {} matrix of finite numbers (component {})", d, d, d, j);
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(d, d);
  if (is_number(v)) {
    c.diagonal().setConstant(v.as_double());
  } else {
    if (!v.is_array() || static_cast<int>(v.size()) != d) m.fail("covariances", shape);
    for (int i = 0; i < d; ++i) {
      const auto& row = v[static_cast<std::size_t>(i)];
      if (is_number(row)) {
        c(i, i) = row.as_double();
        continue;
      }
      if (!row.is_array() || static_cast<int>(row.size()) != d) m.fail("covariances", shape);
      for (int k = 0; k < d; ++k) {
        if (!is_number(row[static_cast<std::size_t>(k)])) m.fail("covariances", shape);
        c(i, k) = row[static_cast<std::size_t>(k)].as_double();
      }
    }
  }
  Eigen::LLT<Eigen::MatrixXd> llt(c);
  if (!c.isApprox(c.transpose(), 1e-12) || llt.info() != Eigen::Success ||
      !(Eigen::MatrixXd(llt.matrixL()).diagonal().array() > 0.0).all())
    m.fail("covariances", fmt::format("a symmetric positive definite matrix (component {})", j));
  return c;
}

// For the report: a constant vector as its number, else the list.
Value compact_vector(const Eigen::VectorXd& v) {
  if ((v.array() == v(0)).all()) return Value(v(0));
  return std::vector<double>(v.data(), v.data() + v.size());
}

// A covariance as s (s I), its diagonal (a diagonal matrix) or its rows.
Value compact_covariance(const Eigen::MatrixXd& c) {
  const Eigen::VectorXd diag = c.diagonal();
  if (!c.isDiagonal(0.0)) {
    Value::Array rows;
    for (Eigen::Index i = 0; i < c.rows(); ++i) {
      const Eigen::VectorXd r = c.row(i).transpose();
      rows.push_back(std::vector<double>(r.data(), r.data() + r.size()));
    }
    return Value(rows);
  }
  return compact_vector(diag);
}

// [model]: weights (masses), means, covariances, dim; defaults: GaussianMixture::rts_fig2().
MixtureSpec read_mixture(Config& config, Record& desc) {
  auto m = config.section("model");
  m.check_known({&model_type_keys(), &kModelKeys});
  const Value weights = list_of(m, kWeights, std::vector<double>{3.0, 7.0});
  const Value means = list_of(m, kMeans, std::vector<double>{-2.0, 2.0});
  const Value covs = list_of(m, kCovariances, std::vector<double>{1.0, 0.5});
  const std::size_t n = weights.size();
  if (means.size() != n) m.fail("means", fmt::format("one mean per weight ({})", n));
  if (covs.size() != n) m.fail("covariances", fmt::format("one covariance per weight ({})", n));
  // The dimension: [model] dim, else the length of the first mean given as an array, else 10.
  int inferred = 0;
  for (const auto& mu : means.as_array())
    if (mu.is_array() && inferred == 0) inferred = static_cast<int>(mu.size());
  const int d = static_cast<int>(m.get_int(kDim, inferred > 0 ? inferred : 10));
  MixtureSpec s;
  for (std::size_t j = 0; j < n; ++j) {
    if (!is_number(weights[j]) || !(weights[j].as_double() > 0.0))
      m.fail("weights", fmt::format("finite masses > 0 (component {})", j));
    s.weights.push_back(weights[j].as_double());
    s.means.push_back(read_mean(m, means[j], d, j));
    s.covariances.push_back(read_covariance(m, covs[j], d, j));
  }
  Value::Array mu, cov;
  for (std::size_t j = 0; j < n; ++j) {
    mu.push_back(compact_vector(s.means[j]));
    cov.push_back(compact_covariance(s.covariances[j]));
  }
  desc = {{"type", "gaussian_mixture"},
          {"dim", d},
          {"num_components", n},
          {"weights", s.weights},
          {"means", Value(mu)},
          {"covariances", Value(cov)},
          {"energy", "U(x) = -log sum_j w_j N(x; mu_j, Sigma_j); Z = sum_j w_j"},
          {"notation", "a mean c is c (1, ..., 1); a covariance s is s I, a list its diagonal"}};
  return s;
}

struct Mixture {
  MixtureSpec spec;
  GaussianMixture model;
  Record desc;
};

Mixture read_model(Config& config) {
  Record desc;
  MixtureSpec spec = read_mixture(config, desc);
  GaussianMixture mixture(spec.weights, spec.means, spec.covariances, "[model]");
  return {std::move(spec), std::move(mixture), std::move(desc)};
}

GaussianBase read_mixture_base(Config& config, int dim, Record& desc) {
  auto b = config.section("base");
  b.check_known({&kBaseKeys});
  b.get_string(kBaseType);
  const double sigma = b.get_double(kBaseSigma);
  desc.set("base",
           Record{{"type", "gaussian"}, {"sigma", sigma}, {"energy", "|x|^2 / (2 sigma^2)"}});
  return GaussianBase::isotropic(dim, sigma);
}

DataSampler exact_sampler(const GaussianMixture& mixture) {
  return [&mixture](Eigen::MatrixXd& X, const BatchRandom& r) { mixture.sample(X, r); };
}

RunResult run_mixture(Config& config, const RunContext& context) {
  Mixture mix = read_model(config);
  const GaussianMixture& mixture = mix.model;
  const int d = mixture.dim();
  const GaussianBase base = read_mixture_base(config, d, mix.desc);
  const double sigma = base.sigma();
  KernelSettings ks = read_kernel(config, kKernelDefaults);
  const RunMethod method = read_run_method(config, continuous_methods());

  RunResult result;
  mix.desc.set("path", "geometric: (1 - t) U_base + t U_mixture");
  result.model = mix.desc;
  result.base_log_z = base.log_z();
  result.reference = Reference{exact::gaussian_mixture_log_z(mix.spec.weights),
                               "exact: log of the sum of the masses"};
  run_on_geometric_path(method, base, ContinuousModelRef(mixture), ks, exact_sampler(mixture),
                        config, context, result);
  if (method == RunMethod::tempering && mixture.num_components() == 1) {
    // Every level of the path to one Gaussian is Gaussian: exact log(Z_k / Z_1) at each.
    const exact::GaussianSpec g0{Eigen::VectorXd::Zero(d),
                                 sigma * sigma * Eigen::MatrixXd::Identity(d, d)};
    const exact::GaussianSpec g1{mix.spec.means[0], mix.spec.covariances[0]};
    for (double t : result.tempering->ladder)
      result.tempering->exact_evidence.push_back(
          exact::gaussian_geometric_log_z(g0, mix.spec.weights[0], g1, t) -
          exact::gaussian_geometric_log_z(g0, mix.spec.weights[0], g1, 0.0));
  }
  return result;
}

LoglikResult mixture_loglik(Config& config, const RunContext& context) {
  const Mixture mix = read_model(config);
  const DataSet data = read_data(config, mix.model.dim(), exact_sampler(mix.model));
  return analysis_model_loglik(config, mix.model, data,
                               [&] { return run_mixture(config, context); });
}

SampleResult mixture_sample(Config& config, const RunContext& context) {
  const SamplerSettings s = read_sampler(config, context.stop);
  const Mixture mix = read_model(config);
  return sample_target(s, ContinuousModelRef(mix.model), mix.desc);
}

}  // namespace

ModelEntry gaussian_mixture_model_entry() {
  return {.name = "gaussian_mixture",
          .summary =
              "a mixture of Gaussians, f(x) = sum_j w_j N(x; mu_j, Sigma_j), Z = sum_j w_j "
              "(Carlson et al. 2016, Fig. 2)",
          .docs = "docs/tempering.md",
          .methods = continuous_methods(),
          .kernels = kernel_entries(),
          .reverse_starts = {"exact"},
          .reference = "exact: log of the sum of the masses",
          .keys = continuous_method_key_groups(kModelKeys, &kBaseKeys, true),
          .sample_keys = {&kModelKeys, &sampler_keys()},
          .run = run_mixture,
          .loglik = mixture_loglik,
          .sample = mixture_sample,
          .exact = [](Config& c) -> std::optional<Reference> {
            return Reference{exact::gaussian_mixture_log_z(read_model(c).spec.weights),
                             "exact: log of the sum of the masses"};
          }};
}

}  // namespace logz
