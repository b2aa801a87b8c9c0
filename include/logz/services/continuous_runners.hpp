// The services of the continuous models (src/services/continuous_experiment.cpp and, for the
// image models, src/services/image_model_experiment.cpp): `logz run` for [model] type = "poe"
// (product of experts, log Z), "mcrbm" (mean-covariance RBM, log Z), "linear_generative" and
// "bilinear_generative" (log p(x) of one data point), `logz loglik` (average log-likelihood of
// a data set) and `logz sample` (the standalone HMC sampler). Config keys: docs/hais.md and
// docs/hmc.md.
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logz/core/estimate.hpp"
#include "logz/samplers/hmc_sampler.hpp"
#include "logz/services/config.hpp"
#include "logz/services/experiment.hpp"

namespace logz {

// `logz run`, [model] type = "poe": log Z of a product of experts annealed from [base].
ExperimentResult run_poe_experiment(Config& config, const ProgressFn& progress);
// `logz run`, [model] type = "linear_generative": log p(x) of the data point [data] index,
// annealed from [base] to the posterior energy (the evidence is log p(x) - log Z_0).
ExperimentResult run_linear_generative_experiment(Config& config, const ProgressFn& progress);
// `logz run`, [model] type = "bilinear_generative": log p(x) of the data point [data] index,
// annealed from the prior (base "prior": Laplace c, exponential d) to the posterior over (c, d).
ExperimentResult run_bilinear_generative_experiment(Config& config, const ProgressFn& progress);
// `logz run`, [model] type = "mcrbm": log Z of the mcRBM's marginal energy annealed from [base].
ExperimentResult run_mcrbm_experiment(Config& config, const ProgressFn& progress);

// One data point's log-likelihood (generative models).
struct PointLoglik {
  double log_likelihood = kNaN;  // the estimate of log p(x_i)
  double std_error = kNaN;       // its Monte Carlo error
  double exact = kNaN;           // exact log p(x_i) where known
  double ess = kNaN;             // Kish ESS of its AIS weights
};

// The average log-likelihood L of a data set: analysis models L = -mean E(x) - log Z with one
// log Z for the whole set; generative models L = mean_i log p(x_i), one AIS run per point.
struct LoglikResult {
  std::string model_type;              // "poe", "mcrbm", "linear_generative" or "bilinear_generative"
  nlohmann::json model, kernel;        // descriptions
  std::size_t num_points = 0;
  double log_likelihood = kNaN;        // L
  double std_error_data = kNaN;        // sd over data points / sqrt(N): the spread of the test set
  double std_error_monte_carlo = kNaN; // the estimator's own error (of log Z, or of the mean of log p(x_i))
  double exact = kNaN;                 // exact L where known
  double mean_energy = kNaN;           // analysis models: mean E(x)
  Estimate log_z;                      // analysis models: the log Z estimate (absolute)
  std::vector<PointLoglik> points;     // generative models
  double runtime_s = 0.0;
  nlohmann::json config;               // the resolved config
};

// `logz loglik CONFIG.toml`.
LoglikResult run_loglik(Config& config, const ProgressFn& progress);
nlohmann::json loglik_to_json(const LoglikResult& r);
std::string loglik_table(const LoglikResult& r);

// `logz sample CONFIG.toml`: [model] (type "gaussian" with inline mean and covariance, "poe",
// "mcrbm", or "linear_generative" / "bilinear_generative": the posterior of [data] index) and
// [sampler].
struct SampleRun {
  HmcSamplerResult result;
  nlohmann::json model, sampler;
  std::vector<double> mean, sd;  // per dimension over all kept draws
  double runtime_s = 0.0;
  nlohmann::json config;
};
SampleRun run_sample(Config& config);
std::string sample_table(const SampleRun& r);
nlohmann::json sample_to_json(const SampleRun& r);

}  // namespace logz
