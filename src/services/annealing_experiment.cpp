#include "logz/services/annealing_experiment.hpp"

#include <filesystem>

namespace logz {

std::string read_run_method(Config& config) {
  auto run = config.section("run");
  run.check_known({"method", "num_paths", "directions", "seed", "threads", "chunk_size", "reverse_start",
                   "equilibration_sweeps", "repetitions"});
  return run.get_string("method", "annealing", {"annealing", "tempering", "ground_state_integration"});
}

RunSettings read_run_settings(Config& config, const std::vector<std::string>& model_starts) {
  RunSettings r;
  auto run = config.section("run");
  run.check_known({"method", "num_paths", "directions", "seed", "threads", "chunk_size", "reverse_start",
                   "equilibration_sweeps", "repetitions"});
  // Runners that reach here anneal; other methods exist only for some models.
  if (read_run_method(config) != "annealing")
    run.fail("method", "\"annealing\" for this model (tempering is for ising, potts and gaussian_mixture, ground_state_integration for ising and potts)");
  r.num_paths = static_cast<std::size_t>(run.get_int("num_paths", 100, 1, 1LL << 31));
  const auto dirs = run.get_string_list("directions", {"forward", "reverse"}, {"forward", "reverse"});
  r.forward = std::find(dirs.begin(), dirs.end(), "forward") != dirs.end();
  r.reverse = std::find(dirs.begin(), dirs.end(), "reverse") != dirs.end();
  r.seed = static_cast<std::uint64_t>(run.get_int("seed", 1, 0));
  r.threads = static_cast<int>(run.get_int("threads", 0, 0, 4096));
  r.chunk_size = static_cast<std::size_t>(run.get_int("chunk_size", 8, 1, 1 << 20));
  std::vector<std::string> starts = model_starts;
  starts.push_back("resampled");
  r.reverse_start = run.get_string("reverse_start", starts.front(), starts);
  r.equilibration_sweeps = static_cast<std::size_t>(run.get_int("equilibration_sweeps", 1000, 0));

  auto est = config.section("estimators");
  est.check_known({"methods", "posterior_draws", "posterior_burn_in", "histogram_bins"});
  std::vector<std::string> fallback;
  for (const auto& m : default_estimator_names())
    if (estimator_requirements({m}, r.forward, r.reverse).empty()) fallback.push_back(m);
  r.methods = est.get_string_list("methods", fallback, estimator_names());
  const std::string missing = estimator_requirements(r.methods, r.forward, r.reverse);
  if (!missing.empty()) est.fail("methods", "methods that [run] directions allow: " + missing);
  r.posterior_draws =
      static_cast<std::size_t>(est.get_int("posterior_draws", 2000, 2, 1LL << 30));
  r.posterior_burn_in =
      static_cast<std::size_t>(est.get_int("posterior_burn_in", 200, 0, 1LL << 30));
  r.histogram_bins = static_cast<std::size_t>(est.get_int("histogram_bins", 0, 0, 1LL << 30));
  return r;
}

Schedule read_schedule(Config& config) {
  auto s = config.section("schedule");
  s.check_known({"type", "num_steps", "beta_min", "steepness", "file"});
  const std::string type =
      s.get_string("type", "linear", {"linear", "geometric", "sigmoid", "salakhutdinov", "file"});
  if (type == "salakhutdinov") return salakhutdinov_schedule();
  if (type == "file") {
    std::filesystem::path file = s.get_string("file", std::nullopt);
    // Relative paths are relative to the config file.
    if (file.is_relative()) file = std::filesystem::path(config.source()).parent_path() / file;
    return schedule_from_file(file.string());
  }
  const auto k = static_cast<std::size_t>(s.get_int("num_steps", 1000, 1, 100000000));
  if (type == "linear") return linear_schedule(k);
  if (type == "geometric") return geometric_schedule(k, s.get_double("beta_min", 1e-4, 1e-300, 0.999999));
  return sigmoid_schedule(k, s.get_double("steepness", 4.0, 1e-6, 1e3));
}

}  // namespace logz
