#include "logz/services/tempering_experiment.hpp"

#include "logz/services/annealing_experiment.hpp"

#include <algorithm>
#include <cmath>

namespace logz {

const std::vector<std::string>& tempering_estimator_names() {
  static const std::vector<std::string> names = {"rts", "ts", "ti_riemann", "ti_trapezoid",
                                                 "ti_corrected", "ti_rb", "mbar"};
  return names;
}

TemperingSettings read_tempering_settings(Config& config, Schedule& ladder_out) {
  TemperingSettings s;
  auto t = config.section("tempering");
  t.check_known({"num_temperatures", "num_chains", "prior", "prior_slope", "initialization",
                 "initial_update", "max_initial_iterations", "sweeps_per_iteration", "tolerance",
                 "num_sweeps", "chunk_size"});
  const auto k = t.get_int("num_temperatures", 100, 2, 1000000);
  if (!config.section("schedule").has("num_steps")) config.set("schedule.num_steps=" + std::to_string(k - 1));
  s.options.num_chains = static_cast<std::size_t>(t.get_int("num_chains", 100, 1, 1 << 24));
  s.options.chunk_size = static_cast<std::size_t>(t.get_int("chunk_size", 4, 1, 1 << 20));
  s.prior = t.get_string("prior", "uniform", {"uniform", "exponential"});
  s.prior_slope = t.get_double("prior_slope", 2.0, -1e3, 1e3);
  s.initialization = t.get_string("initialization", "iterations", {"iterations", "wang_landau", "none"});
  s.initial_update = t.get_string("initial_update", "rts", {"rts", "tan"});
  s.max_initial_iterations = static_cast<int>(t.get_int("max_initial_iterations", 50, 1, 1000000));
  s.sweeps_per_iteration = static_cast<std::size_t>(t.get_int("sweeps_per_iteration", 50, 1));
  s.tolerance = t.get_double("tolerance", 0.0, 0.0, 1.0);
  s.num_sweeps = static_cast<std::size_t>(t.get_int("num_sweeps", 1000, 1));

  auto run = config.section("run");
  s.options.seed = static_cast<std::uint64_t>(run.get_int("seed", 1, 0));
  s.options.threads = static_cast<int>(run.get_int("threads", 0, 0, 4096));

  auto est = config.section("estimators");
  s.methods = est.get_string_list("methods", {"rts", "ts", "ti_trapezoid", "ti_rb"}, tempering_estimator_names());
  s.options.record_samples = std::find(s.methods.begin(), s.methods.end(), "mbar") != s.methods.end();

  ladder_out = read_schedule(config);
  return s;
}

void tempering_estimates(const TemperingStats& stats, const TemperingLadder& ladder,
                         std::span<const double> log_z_hat, const std::vector<std::string>& methods,
                         ExperimentResult& result) {
  nlohmann::json levels = nlohmann::json::object();
  // RTS is cheap from the statistics; it is also MBAR's warm start (fewer Newton steps than
  // from log Z = 0 on ladders that span hundreds of nats).
  const LadderEstimates rts = rts_ladder(stats, log_z_hat, ladder.log_prior());
  for (const auto& m : methods) {
    LadderEstimates e;
    if (m == "rts") {
      e = rts;
    } else if (m == "ts") {
      e = ts_ladder(stats, log_z_hat, ladder.log_prior());
    } else if (m == "mbar") {
      MbarOptions o;
      o.initial_log_z = rts.log_z;
      for (double& x : o.initial_log_z)
        if (!std::isfinite(x)) x = 0.0;
      e = mbar_tempered(stats, ladder.fractions(), o);
    } else
      e = thermodynamic_integration(stats, ladder.fractions(), m);
    result.estimates.push_back(e.last);
    auto clean = [](const std::vector<double>& v) {
      nlohmann::json a = nlohmann::json::array();
      for (double x : v) a.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
      return a;
    };
    levels[m] = {{"evidence", clean(e.log_z)}, {"std_error", clean(e.std_error)}, {"bias", clean(e.bias)}};
  }
  const auto log_c = stats.log_c();
  const auto counts = stats.counts();
  result.details["tempering"]["betas"] = std::vector<double>(ladder.fractions().begin(), ladder.fractions().end());
  result.details["tempering"]["levels"] = levels;
  result.details["tempering"]["log_c"] = log_c;
  result.details["tempering"]["counts"] = counts;
  result.details["tempering"]["max_level_deviation"] = max_level_deviation(log_c, ladder.log_prior());
  if (stats.kernel_attempted > 0)
    result.details["tempering"]["kernel_acceptance"] =
        static_cast<double>(stats.kernel_accepted) / static_cast<double>(stats.kernel_attempted);
}

}  // namespace logz
