// Internal to the continuous models' services (not installed): the config readers, kernel
// dispatch and per-data-point loops that src/services/continuous_experiment.cpp (products of
// experts, linear generative model, `logz loglik`, `logz sample`) and
// src/services/image_model_experiment.cpp (bilinear generative model, mcRBM) share.
#pragma once

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/math/running_moments.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/parallel/parallel_for.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/random/philox.hpp"
#include "logz/samplers/hmc_sampler.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/config.hpp"
#include "logz/services/continuous_runners.hpp"
#include "logz/services/experiment.hpp"

namespace logz::continuous {

// A JSON number, or null where x is not finite.
nlohmann::json number(double x);
// x with `precision` decimals, or "nan".
std::string fixed(double x, int precision);

// ---------------------------------------------------------------- [data], [base]

// Exact draws of data points into the columns of X.
using DataSampler = std::function<void(Eigen::MatrixXd&, const BatchRandom&)>;

// The data points (d x N, one column per point) from a file or drawn from the model.
struct DataSet {
  Eigen::MatrixXd X;
  nlohmann::json description;
  std::size_t index = 0;  // [data] index (the point `logz run` uses)
};

// [data]: source = "file" (.npy or .npz with key) or "model" (needs `sampler`; point i from
// the stream (seed, i, Purpose::base_sample, step 1)); index. Without a sampler, source =
// "model" is an error that ends with `no_sampler_note`.
DataSet read_data(Config& config, int dim, const DataSampler& sampler,
                  const std::string& no_sampler_note = "draws need a complete Phi");

// [base]: type = "gaussian" (isotropic, sigma) or, where `data` is given, "fitted".
GaussianBase read_base(Config& config, int dim, const std::function<DataSet()>& data, nlohmann::json& desc);

// ---------------------------------------------------------------- [kernel]

struct KernelSettings {
  std::string type;
  double step_size = 0.2;
  int leapfrog_steps = 1;
  double gamma = 1.0;
  std::optional<double> half_life;  // the refresh rule, when gamma is not given
  double proposal_sd = 0.1;
  int steps = 1;
  bool pilot = false;
  std::size_t pilot_paths = 32;
  StepSizeAdaptation rule;
  nlohmann::json pilot_report;
};

// Defaults where [kernel] is silent; models differ (HAIS with one leapfrog step for the
// image models, HMC with ten for the Gaussian mixture).
struct KernelDefaults {
  std::string type = "hais";
  int leapfrog_steps = 1;
  double proposal_sd = 0.1;
};

KernelSettings read_kernel(Config& config, const KernelDefaults& defaults = {});
Hais make_hais(const KernelSettings& s, double eps);
nlohmann::json kernel_json(const KernelSettings& s);

// Calls f with the configured kernel.
template <class F>
void with_kernel(const KernelSettings& s, F&& f) {
  if (s.type == "hais")
    f(make_hais(s, s.step_size));
  else if (s.type == "hmc")
    f(Hmc(s.step_size, s.leapfrog_steps));
  else
    f(RandomWalkMetropolis(s.proposal_sd, s.steps));
}

// The pilot: `pilot_paths` particles (particle words first_particle, ... of the run's seed,
// which the run itself does not use) annealed along the schedule with the tutorial's rule
// applied after every temperature. Its end step size is used, fixed, for the whole run;
// the pilot's works are discarded (adapting inside a run would bias its weights).
template <class Path>
void run_pilot(const Path& path, KernelSettings& s, const Schedule& schedule, std::uint64_t seed,
               std::uint64_t first_particle) {
  if (!s.pilot) return;
  auto batch = path.make_batch(s.pilot_paths);
  path.sample_base(batch, BatchRandom{seed, Purpose::base_sample, 0, first_particle});
  double eps = s.step_size, avg = s.rule.target_acceptance;
  std::uint64_t attempted = 0, accepted = 0;
  const auto betas = schedule.fractions();
  for (std::size_t k = 1; k + 1 < betas.size(); ++k) {
    const BatchRandom r{seed, Purpose::forward_kernel, static_cast<std::uint32_t>(k), first_particle};
    const ContinuousKernelInfo info = s.type == "hais" ? make_hais(s, eps).step(path.at(betas[k]), batch, r)
                                                       : Hmc(eps, s.leapfrog_steps).step(path.at(betas[k]), batch, r);
    attempted += info.attempted;
    accepted += info.accepted;
    s.rule.update(eps, avg, static_cast<double>(info.accepted) / static_cast<double>(info.attempted));
  }
  s.pilot_report = {{"initial_step_size", s.step_size}, {"pilot_paths", s.pilot_paths},
                    {"mean_acceptance", number(attempted ? static_cast<double>(accepted) / attempted : kNaN)},
                    {"final_average_acceptance", avg}, {"target_acceptance", s.rule.target_acceptance}};
  s.step_size = eps;
  if (s.half_life) s.gamma = Hais::half_life_refresh(eps, s.leapfrog_steps, *s.half_life);
}

// ---------------------------------------------------------------- `logz loglik`

// An independent key per data point: one Philox block keyed by the run seed with counter
// (i low, i high, 0, "dpnt"). No seed arithmetic; the same seed gives the same key.
std::uint64_t data_point_seed(std::uint64_t seed, std::size_t i);

// Analysis models: L = -mean E(x) - log Z, log Z from the first estimator of the annealing
// result `e` (evidence plus base log Z), `energies` E(x) of the data points.
void analysis_loglik(Config& config, const ExperimentResult& e, const Eigen::VectorXd& energies,
                     const nlohmann::json& data_description, LoglikResult& r);

// Generative models: one forward AIS run per data point (column of X), [run] num_paths
// particles each, data points in parallel, each run on one thread with the key
// data_point_seed(run.seed, i), so that results do not depend on the thread count.
// make_path(x) returns the (base -> posterior of x) path; exact(x) the exact log p(x) or
// nullopt. Fills r.points, r.num_points and the averages and their errors.
template <class MakePath>
void generative_logliks(const Eigen::MatrixXd& X, const KernelSettings& ks, const Schedule& schedule,
                        const RunSettings& run, const MakePath& make_path,
                        const std::function<std::optional<double>(const Eigen::VectorXd&)>& exact,
                        const ProgressFn& progress, LoglikResult& r) {
  const std::size_t n = static_cast<std::size_t>(X.cols());
  r.num_points = n;
  r.points.assign(n, PointLoglik{});
  std::atomic<std::size_t> done{0};
  parallel_for_chunks(n, 1, run.threads, [&](const ChunkRange& c) {
    const std::size_t i = c.begin;
    const Eigen::VectorXd x = X.col(static_cast<Eigen::Index>(i));
    const auto path = make_path(x);
    AnnealOptions o = run.anneal_options();
    o.seed = data_point_seed(run.seed, i);
    o.threads = 1;
    with_kernel(ks, [&](const auto& kernel) {
      const Works w = anneal_forward(path, kernel, schedule, o);
      const Estimate e = ais(w.works);
      PointLoglik& p = r.points[i];
      p.log_likelihood = e.log_z + path.base_log_z();
      p.std_error = e.std_error;
      p.ess = e.diagnostics.ess;
      if (auto z = exact(x)) p.exact = *z;
    });
    if (progress) progress("data points", ++done, n);
  });
  RunningMoments m;
  double var_mc = 0.0, exact_sum = 0.0;
  for (const auto& p : r.points) {
    m.add(p.log_likelihood);
    var_mc += p.std_error * p.std_error;
    exact_sum += p.exact;
  }
  r.log_likelihood = m.mean();
  r.std_error_data = m.std_error_of_mean();
  r.std_error_monte_carlo = std::sqrt(var_mc) / static_cast<double>(n);
  r.exact = exact_sum / static_cast<double>(n);  // NaN unless every point has an exact value
}

// ---------------------------------------------------------------- `logz sample`

// Chain m starts at N(0, sd^2 I) from the stream (seed, m, Purpose::base_sample, 0).
Eigen::MatrixXd normal_chain_starts(int dim, Eigen::Index chains, std::uint64_t seed, double sd);

// ---------------------------------------------------------------- image models
// (src/services/image_model_experiment.cpp)

// `logz loglik` for [model] type = "bilinear_generative" (one run per point) and "mcrbm"
// (analysis model): fill r except runtime and config.
void bilinear_generative_loglik(Config& config, const ProgressFn& progress, LoglikResult& r);
void mcrbm_loglik(Config& config, const ProgressFn& progress, LoglikResult& r);

// `logz sample` for "bilinear_generative" (the posterior of [data] index; chains start at
// prior draws, satisfying d >= 0) and "mcrbm" (chains start at N(0, initial_sd^2 I)).
HmcSamplerResult sample_bilinear_generative(Config& config, const HmcSamplerOptions& o, Eigen::Index chains,
                                            nlohmann::json& model);
HmcSamplerResult sample_mcrbm(Config& config, const HmcSamplerOptions& o, Eigen::Index chains, double initial_sd,
                              nlohmann::json& model);

}  // namespace logz::continuous
