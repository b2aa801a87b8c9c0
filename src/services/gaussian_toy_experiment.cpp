// `logz run` for [model] type = "gaussian_toy": the Gaussian toy of Habeck (2017),
// section 4, annealed from N(mu_start, sigma_start^2) to N(mu_end, sigma_end^2) along
// the geometric bridge, with the paper's autoregressive Gaussian kernels; reverse runs
// start from exact draws of the target. The exact log Z, the exact expected bounds
// -E[W_f] and E[W_r] and the exact mean trace energy per temperature are reported.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "logz/exact/gaussian_toy_marginals.hpp"
#include "logz/kernels/gaussian_autoregressive.hpp"
#include "logz/models/gaussian_toy.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/model_runners.hpp"

namespace logz {

namespace {

constexpr double kMaxDouble = 1.7976931348623157e308;

double get_sigma(ConfigSection& m, const std::string& key, double fallback) {
  const double s = m.get_double(key, fallback, 0.0);
  if (!(s > 0.0) || !std::isfinite(1.0 / (s * s)))
    m.fail(key, "a finite number > 0 whose 1/sigma^2 is finite, got " + fmt::format("{}", s));
  return s;
}

// A relative variance for the report: the number, or "infinite" where E[exp(-2W)] diverges.
nlohmann::json relative_variance(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("infinite");
}

}  // namespace

ExperimentResult run_gaussian_toy_experiment(Config& config, const ProgressFn& progress) {
  auto m = config.section("model");
  m.check_known(
      {"type", "mu_start", "sigma_start", "mu_end", "sigma_end", "tau", "tau_start", "tau_end"});
  const double mu_start = m.get_double("mu_start", 20.0, -kMaxDouble);
  const double sigma_start = get_sigma(m, "sigma_start", 10.0);
  const double mu_end = m.get_double("mu_end", 0.0, -kMaxDouble);
  const double sigma_end = get_sigma(m, "sigma_end", 1.0);
  // The author's script (michaelhabeck/paths, scripts/gaussian.py) interpolates tau linearly
  // from 0.9 at the base to 0.995 at the target; `tau` sets one value for the whole path.
  double tau_start = 0.9, tau_end = 0.995;
  if (m.has("tau")) {
    if (m.has("tau_start") || m.has("tau_end"))
      m.fail("tau", "either tau or tau_start and tau_end, not both");
    tau_start = tau_end = m.get_double("tau", std::nullopt, 0.0, 1.0);
  } else {
    tau_start = m.get_double("tau_start", 0.9, 0.0, 1.0);
    tau_end = m.get_double("tau_end", 0.995, 0.0, 1.0);
  }
  const GaussianToy model(mu_start, sigma_start, mu_end, sigma_end, tau_start, tau_end);

  auto k = config.section("kernel");
  k.check_known({"type", "steps_per_temperature"});
  k.get_string("type", "autoregressive", {"autoregressive"});
  const auto steps = static_cast<std::size_t>(k.get_int("steps_per_temperature", 1, 1));
  const GaussianAutoregressive kernel(steps);

  const Schedule schedule = read_schedule(config);
  const RunSettings run = read_run_settings(config, {"exact"});

  const exact::GaussianToySpec spec{mu_start,  sigma_start, mu_end, sigma_end,
                                    tau_start, tau_end,     steps};
  const auto truth = exact::gaussian_toy_marginals(spec, schedule.fractions());

  ExperimentResult result;
  result.model = {{"type", "gaussian_toy"},
                  {"mu_start", mu_start},
                  {"sigma_start", sigma_start},
                  {"mu_end", mu_end},
                  {"sigma_end", sigma_end},
                  {"tau_start", tau_start},
                  {"tau_end", tau_end},
                  {"path", "geometric bridge"},
                  {"base", "N(mu_start, sigma_start^2)"},
                  // Evidences log(Z / Z_0) of the exactly propagated process (exact reverse start).
                  {"exact_lower_bound", truth.lower_bound},
                  {"exact_upper_bound", truth.upper_bound},
                  {"exact_forward_work_sd", std::sqrt(truth.forward_work.variance)},
                  {"exact_reverse_work_sd", std::sqrt(truth.reverse_work.variance)},
                  {"exact_ais_weight_relative_variance",
                   relative_variance(truth.forward_work.weight_relative_variance)},
                  {"exact_raise_weight_relative_variance",
                   relative_variance(truth.reverse_work.weight_relative_variance)}};
  result.base_log_z = model.base_log_z();
  result.reference = Reference{model.target_log_z(), "analytic"};
  result.equilibrium_energy = truth.equilibrium_energy;
  result.kernel = {{"type", "autoregressive"},
                   {"steps_per_temperature", steps},
                   {"step_unit", "AR(1) draw x <- mu + tau (x - mu) + sqrt(1 - tau^2) sigma z"}};

  auto exact_start = [&](GaussianBatch& batch, const ChunkStreams& streams) {
    model.sample_target(batch, streams.random(0));
  };
  anneal_and_estimate(model, kernel, schedule, run, exact_start, progress, result);
  return result;
}

}  // namespace logz
