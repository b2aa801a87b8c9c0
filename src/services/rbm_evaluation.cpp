#include "logz/services/rbm_evaluation.hpp"

#include <fmt/format.h>

#include "logz/services/model_runners.hpp"

namespace logz {

RbmAisSettings read_rbm_ais_settings(ConfigSection& e, const std::string& prefix) {
  RbmAisSettings s;
  s.num_paths = e.get_int(prefix + "num_paths", 100, 1, 1 << 24);
  s.num_steps = e.get_int(prefix + "num_steps", 10000, 1, 100000000);
  s.schedule = e.get_string(prefix + "schedule", "linear", {"linear", "salakhutdinov"});
  s.path = e.get_string(prefix + "path", "marginal_v", {"marginal_v", "marginal_h", "full"});
  s.seed = e.get_int(prefix + "seed", 1, 0);
  return s;
}

ExperimentResult rbm_ais_evaluation(const RbmParameters& rbm, const Eigen::MatrixXd& train,
                                    const Eigen::MatrixXd& held_out, const RbmAisSettings& s) {
  Config config = Config::from_toml(
      fmt::format("[model]\ntype = \"rbm\"\npath = \"{}\"\nbase = \"base_rate\"\nexact_max_units = {}\n"
                  "[kernel]\ntype = \"gibbs\"\n[schedule]\ntype = \"{}\"\nnum_steps = {}\n"
                  "[run]\nnum_paths = {}\ndirections = [\"forward\"]\nseed = {}\n"
                  "[estimators]\nmethods = [\"ais\"]\n",
                  s.path, s.exact_max_units, s.schedule, s.num_steps, s.num_paths, s.seed),
      "[evaluate]");
  RbmData data;
  data.train = train;
  if (held_out.cols() > 0) data.test = held_out;
  data.parameters = rbm;
  ExperimentResult r = run_rbm_experiment_with_data(config, {}, data);
  r.config = config.resolved();
  return r;
}

std::string rbm_ais_summary(const ExperimentResult& r, const RbmAisSettings& s) {
  const Estimate& ais = r.estimates.front();
  std::string text = fmt::format("AIS log Z = {:.4f} +- {:.4f} ({} paths, {} schedule, {} steps, ESS {:.1f})\n",
                                 ais.log_z + r.base_log_z, ais.std_error, s.num_paths, s.schedule,
                                 s.schedule == "linear" ? s.num_steps : 14501, ais.diagnostics.ess);
  if (r.reference)
    text += fmt::format("exact log Z = {:.4f} (enumeration); AIS - exact = {:+.4f} ({:+.1f} SE)\n",
                        r.reference->log_z, ais.log_z + r.base_log_z - r.reference->log_z,
                        (ais.log_z + r.base_log_z - r.reference->log_z) / ais.std_error);
  if (r.model.contains("test_log_likelihood") && r.model["test_log_likelihood"].is_number())
    text += fmt::format("validation log-likelihood = {:.4f} +- {:.4f} nats per example ({} examples, {} log Z)\n",
                        r.model["test_log_likelihood"].get<double>(),
                        r.model["test_log_likelihood_std_error"].get<double>(),
                        r.model["test_examples"].get<std::int64_t>(),
                        r.model["test_log_likelihood_log_z"].get<std::string>());
  return text;
}

}  // namespace logz
