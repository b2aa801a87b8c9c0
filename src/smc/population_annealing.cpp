#include "logz/smc/population_annealing.hpp"

#include <cmath>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/smc/genealogy_variance.hpp"

namespace logz {

void validate(const PopulationAnnealingOptions& o) {
  auto fail = [](const char* field, const char* expected) {
    fail_argument("logz::population_annealing", field, expected);
  };
  if (o.num_replicas < 2 || o.num_replicas > (std::size_t{1} << 32))
    fail("num_replicas", "an integer in [2, 2^32]");
  if (!(o.cess_target > 0.0 && o.cess_target < 1.0)) fail("cess_target", "a number in (0, 1)");
  if (!(o.resample_threshold > 0.0 && o.resample_threshold <= 1.0))
    fail("resample_threshold", "a number in (0, 1] (1: resample at every temperature)");
  if (o.max_temperatures < 1 || o.max_temperatures >= (std::size_t{1} << 20))
    fail("max_temperatures", "an integer in [1, 2^20)");
  if (!(o.max_family_fraction > 0.0)) fail("max_family_fraction", "a number > 0");
  if (o.chunk_size < 1) fail("chunk_size", "an integer >= 1");
}

std::vector<double> PopulationAnnealingResult::temperatures() const {
  std::vector<double> t{0.0};
  for (const PopulationAnnealingStage& s : stages) t.push_back(s.temperature);
  return t;
}

namespace detail {

std::size_t count_families(std::span<const double> log_weights,
                           std::span<const std::size_t> families) {
  std::vector<char> seen(log_weights.size(), 0);
  std::size_t count = 0;
  for (std::size_t i = 0; i < log_weights.size(); ++i) {
    if (!(std::exp(log_weights[i]) > 0.0) || seen[families[i]]) continue;
    seen[families[i]] = 1;
    ++count;
  }
  return count;
}

double weighted_mean(std::span<const double> log_weights, std::span<const double> values) {
  double sum = 0.0, mass = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double w = std::exp(log_weights[i]);
    if (w > 0.0 && std::isfinite(values[i])) sum += w * values[i], mass += w;
  }
  return mass > 0.0 ? sum / mass : kNaN;
}

void finish_population_annealing(PopulationAnnealingResult& r, double log_z, bool capped,
                                 std::uint64_t invalid, const PopulationAnnealingOptions& options) {
  Estimate& e = r.log_z;
  e.method = "population_annealing";
  e.log_z = log_z;
  const bool genealogy = options.resampling == SmcResampling::multinomial;
  e.se_method = genealogy ? "genealogy" : "rho_f";
  const std::size_t n = r.log_weights.size();
  const GenealogyVariance g = genealogy_variance(r.log_weights, r.families, r.num_resamplings);
  r.relative_variance = g.relative_variance;
  r.num_families = g.num_eves;
  // rho_f = R sum_f S_f^2 over the families' final weights S_f.
  std::vector<double> family_weight(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) family_weight[r.families[i]] += std::exp(r.log_weights[i]);
  double sum_squares = 0.0;
  for (double s : family_weight) sum_squares += s * s;
  r.rho_f = static_cast<double>(n) * sum_squares;
  r.rho_f_std_error = std::sqrt(std::log1p(sum_squares));
  // One family left: neither estimate says anything (rho_f / R = 1 whatever the variance).
  if (g.collapsed())
    e.std_error = kNaN;
  else
    e.std_error = genealogy ? log_z_std_error(g.relative_variance) : r.rho_f_std_error;
  Diagnostics& diag = e.diagnostics;
  diag.ess = ess_fraction(r.log_weights) * static_cast<double>(n);
  if (g.collapsed())
    diag.add_flag("genealogy_collapsed");
  else if (genealogy && !(g.relative_variance > 0.0))
    diag.add_flag("variance_estimate_not_positive");
  if (sum_squares > options.max_family_fraction) diag.add_flag("families_dominate");
  if (capped) diag.add_flag("too_many_temperatures");
  if (invalid > 0) diag.add_flag("non_finite_energy");
  auto value = [&](const char* name, double v) { diag.values.emplace_back(name, v); };
  value("num_replicas", static_cast<double>(n));
  value("num_temperatures", static_cast<double>(r.stages.size()));
  value("num_resamplings", static_cast<double>(r.num_resamplings));
  value("num_families", static_cast<double>(r.num_families));
  value("relative_variance", r.relative_variance);
  value("rho_f", r.rho_f);
  value("rho_f_over_r", sum_squares);
  value("rho_f_std_error", r.rho_f_std_error);
  value("updates", static_cast<double>(r.updates));
  value("invalid_energies", static_cast<double>(invalid));
}

}  // namespace detail

}  // namespace logz
