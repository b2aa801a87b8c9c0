#include "logz/services/ground_state_experiment.hpp"

#include <cmath>

namespace logz {

GroundStateSettings read_ground_state_settings(Config& config, double beta, double gap) {
  GroundStateSettings s;
  auto g = config.section("integration");
  g.check_known({"beta_max", "intervals", "num_chains", "start_steps", "equilibration_steps",
                 "measurement_steps", "chunk_size"});
  if (!(beta > 0)) config.section("model").fail("beta", "a positive beta (integration from the ground state)");
  const double beta_max = g.get_double("beta_max", beta + 20.0 / gap, beta * (1 + 1e-9), 1e6);
  const auto intervals = static_cast<std::size_t>(g.get_int("intervals", 64, 4, 1000000));
  if (intervals % 4 != 0) g.fail("intervals", "a multiple of 4 (Simpson's rule with Richardson's error)");
  s.betas = ground_state_grid(beta, beta_max, intervals);
  auto& o = s.options;
  o.num_chains = static_cast<std::size_t>(g.get_int("num_chains", 32, 2, 1 << 24));
  o.chunk_size = static_cast<std::size_t>(g.get_int("chunk_size", 1, 1, 1 << 20));
  o.start_steps = static_cast<std::size_t>(g.get_int("start_steps", 100, 0));
  o.equilibration_steps = static_cast<std::size_t>(g.get_int("equilibration_steps", 20, 0));
  o.measurement_steps = static_cast<std::size_t>(g.get_int("measurement_steps", 200, 1));
  auto run = config.section("run");
  o.seed = static_cast<std::uint64_t>(run.get_int("seed", 1, 0));
  o.threads = static_cast<int>(run.get_int("threads", 0, 0, 4096));
  return s;
}

void ground_state_report(const GroundStateIntegration& r, ExperimentResult& result) {
  result.estimates.push_back(r.estimate);
  auto clean = [](const std::vector<double>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (double x : v) a.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
    return a;
  };
  result.details["ground_state_integration"] = {
      {"betas", r.betas},
      {"mean_energy", clean(r.mean_energy)},
      {"energy_std_error", clean(r.energy_std_error)},
      {"chain_integrals", clean(r.chain_integrals)},
      {"ground_energy", r.ground_energy},
      {"log_degeneracy", r.log_degeneracy},
      {"integral", r.integral},
      {"integral_std_error", r.integral_std_error},
      {"trapezoid_integral", r.trapezoid_integral},
      {"quadrature_error", r.quadrature_error},
      {"tail", r.tail},
      {"log_z", r.log_z},
      {"formula", "log Z(beta) = log g_0 - beta E_0 + integral_beta^beta_max (<E> - E_0) + tail"}};
}

}  // namespace logz
