// `logz run` for [model] type = "gaussian_mixture" (include/logz/services/mixture_experiment.hpp):
// the mixture on the geometric path from an isotropic Gaussian base, annealed (AIS/RAISE)
// or tempered (RTS and the tempered-sample estimators) with HMC, HAIS or random-walk
// Metropolis at fixed step sizes. The kernel reading here is this model's own (a small
// sibling of the poe runner's, without its pilot adaptation).
#include "logz/services/mixture_experiment.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <string>
#include <vector>

#include "logz/exact/gaussian_mixture.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "continuous_support.hpp"

namespace logz {

namespace {

// ---------------------------------------------------------------- [model]

struct MixtureSpec {
  std::vector<double> weights;
  std::vector<Eigen::VectorXd> means;
  std::vector<Eigen::MatrixXd> covariances;
};

bool is_number(const nlohmann::json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

// A list of M entries of `key`, or the default.
nlohmann::json list_of(ConfigSection& m, const nlohmann::json& raw, const char* key, nlohmann::json fallback) {
  if (!raw.contains(key)) return fallback;
  const nlohmann::json& v = raw[key];
  if (!v.is_array() || v.empty()) m.fail(key, "a non-empty array (one entry per component)");
  return v;
}

// A mean: a number c (c in every coordinate) or d numbers.
Eigen::VectorXd read_mean(ConfigSection& m, const nlohmann::json& v, int d, std::size_t j) {
  const std::string shape = fmt::format("a number or an array of {} finite numbers (component {})", d, j);
  if (is_number(v)) return Eigen::VectorXd::Constant(d, v.get<double>());
  if (!v.is_array() || static_cast<int>(v.size()) != d) m.fail("means", shape);
  Eigen::VectorXd mu(d);
  for (int i = 0; i < d; ++i) {
    if (!is_number(v[static_cast<std::size_t>(i)])) m.fail("means", shape);
    mu(i) = v[static_cast<std::size_t>(i)].get<double>();
  }
  return mu;
}

// A covariance: a number s (s I), d numbers (a diagonal) or d arrays of d numbers.
Eigen::MatrixXd read_covariance(ConfigSection& m, const nlohmann::json& v, int d, std::size_t j) {
  const std::string shape =
      fmt::format("a variance, {} variances or a {} x {} matrix of finite numbers (component {})", d, d, d, j);
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(d, d);
  if (is_number(v)) {
    c.diagonal().setConstant(v.get<double>());
  } else {
    if (!v.is_array() || static_cast<int>(v.size()) != d) m.fail("covariances", shape);
    for (int i = 0; i < d; ++i) {
      const auto& row = v[static_cast<std::size_t>(i)];
      if (is_number(row)) {
        c(i, i) = row.get<double>();
        continue;
      }
      if (!row.is_array() || static_cast<int>(row.size()) != d) m.fail("covariances", shape);
      for (int k = 0; k < d; ++k) {
        if (!is_number(row[static_cast<std::size_t>(k)])) m.fail("covariances", shape);
        c(i, k) = row[static_cast<std::size_t>(k)].get<double>();
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
nlohmann::json compact_vector(const Eigen::VectorXd& v) {
  if ((v.array() == v(0)).all()) return v(0);
  return std::vector<double>(v.data(), v.data() + v.size());
}

// A covariance as s (s I), its diagonal (a diagonal matrix) or its rows.
nlohmann::json compact_covariance(const Eigen::MatrixXd& c) {
  const Eigen::VectorXd diag = c.diagonal();
  if (!c.isDiagonal(0.0)) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < c.rows(); ++i) {
      const Eigen::VectorXd r = c.row(i).transpose();
      rows.push_back(std::vector<double>(r.data(), r.data() + r.size()));
    }
    return rows;
  }
  return compact_vector(diag);
}

// [model]: weights (masses), means, covariances, dim; defaults: GaussianMixture::rts_fig2().
MixtureSpec read_mixture(Config& config, nlohmann::json& desc) {
  auto m = config.section("model");
  m.check_known({"type", "weights", "means", "covariances", "dim"});
  const nlohmann::json& raw = config.raw()["model"];
  const nlohmann::json weights = list_of(m, raw, "weights", {3.0, 7.0});
  const nlohmann::json means = list_of(m, raw, "means", {-2.0, 2.0});
  const nlohmann::json covs = list_of(m, raw, "covariances", {1.0, 0.5});
  const std::size_t n = weights.size();
  if (means.size() != n) m.fail("means", fmt::format("one mean per weight ({})", n));
  if (covs.size() != n) m.fail("covariances", fmt::format("one covariance per weight ({})", n));
  // The dimension: [model] dim, else the length of the first mean given as an array, else 10.
  int inferred = 0;
  for (const auto& mu : means)
    if (mu.is_array() && inferred == 0) inferred = static_cast<int>(mu.size());
  const int d = static_cast<int>(m.get_int("dim", inferred > 0 ? inferred : 10, 1, 4096));
  MixtureSpec s;
  for (std::size_t j = 0; j < n; ++j) {
    if (!is_number(weights[j]) || !(weights[j].get<double>() > 0.0))
      m.fail("weights", fmt::format("finite masses > 0 (component {})", j));
    s.weights.push_back(weights[j].get<double>());
    s.means.push_back(read_mean(m, means[j], d, j));
    s.covariances.push_back(read_covariance(m, covs[j], d, j));
  }
  nlohmann::json mu = nlohmann::json::array(), cov = nlohmann::json::array();
  for (std::size_t j = 0; j < n; ++j) {
    mu.push_back(compact_vector(s.means[j]));
    cov.push_back(compact_covariance(s.covariances[j]));
  }
  desc = {{"type", "gaussian_mixture"}, {"dim", d},          {"num_components", n},
          {"weights", s.weights},       {"means", mu},       {"covariances", cov},
          {"energy", "U(x) = -log sum_j w_j N(x; mu_j, Sigma_j); Z = sum_j w_j"},
          {"notation", "a mean c is c (1, ..., 1); a covariance s is s I, a list its diagonal"}};
  return s;
}

}  // namespace

ExperimentResult run_gaussian_mixture_experiment(Config& config, const ProgressFn& progress) {
  nlohmann::json desc;
  const MixtureSpec spec = read_mixture(config, desc);
  const GaussianMixture mixture(spec.weights, spec.means, spec.covariances, "[model]");
  const int d = mixture.dim();

  auto b = config.section("base");
  b.check_known({"type", "sigma"});
  b.get_string("type", "gaussian", {"gaussian"});
  const double sigma = b.get_double("sigma", 3.0, 1e-100, 1e100);
  const GaussianBase base = GaussianBase::isotropic(d, sigma);
  continuous::KernelSettings ks = continuous::read_kernel(config, {"hmc", 10, 0.5});
  const std::string method = read_run_method(config);
  if (method != "annealing" && method != "tempering")
    config.section("run").fail("method", "\"annealing\" or \"tempering\" for this model");
  if (method == "tempering" && ks.pilot)
    config.section("kernel").fail("step_size_adaptation", "\"fixed\" for [run] method = \"tempering\"");

  ExperimentResult result;
  desc["base"] = {{"type", "gaussian"}, {"sigma", sigma}, {"energy", "|x|^2 / (2 sigma^2)"}};
  desc["path"] = "geometric: (1 - t) U_base + t U_mixture";
  result.model = desc;
  result.base_log_z = base.log_z();
  result.reference = Reference{exact::gaussian_mixture_log_z(spec.weights), "exact: log of the sum of the masses"};
  const GeometricPath<GaussianBase, GaussianMixture> path(base, mixture);

  if (method == "tempering") {
    result.kernel = continuous::kernel_json(ks);
    continuous::with_kernel(ks, [&](const auto& kernel) { temper_and_estimate(path, kernel, config, progress, result); });
    auto& t = result.details["tempering"];
    if (mixture.num_components() == 1) {
      // Every level of the path to one Gaussian is Gaussian: exact log(Z_k / Z_1) at each.
      const exact::GaussianSpec g0{Eigen::VectorXd::Zero(d), sigma * sigma * Eigen::MatrixXd::Identity(d, d)};
      const exact::GaussianSpec g1{spec.means[0], spec.covariances[0]};
      std::vector<double> levels;
      for (double beta : t["betas"].get<std::vector<double>>())
        levels.push_back(exact::gaussian_geometric_log_z(g0, spec.weights[0], g1, beta) -
                         exact::gaussian_geometric_log_z(g0, spec.weights[0], g1, 0.0));
      t["exact_evidence"] = levels;
    }
    return result;
  }
  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, {"exact"});
  continuous::run_pilot(path, ks, schedule, run.seed, run.num_paths);
  result.kernel = continuous::kernel_json(ks);
  auto exact_start = [&](ContinuousBatch& batch, const ChunkStreams& streams) {
    mixture.sample(batch.X, streams.random(0));
    path.sample_momentum(batch, streams.random(1));
    batch.parts.invalidate();
  };
  continuous::with_kernel(ks, [&](const auto& kernel) {
    anneal_and_estimate(path, kernel, schedule, run, exact_start, progress, result);
  });
  return result;
}

}  // namespace logz
