#include "logz/estimators/stepping_stone.hpp"

#include <algorithm>
#include <cmath>

#include "logz/core/error.hpp"
#include "logz/estimators/chain_jackknife.hpp"

namespace logz {

namespace {

// log sum_i exp(x_i) and log sum_i exp(2 x_i) of one rung's log weights, kept as a running
// maximum and sums scaled by it, so that no weight overflows or underflows.
struct LogWeightSums {
  double max = 0.0, sum = 0.0, sum_sq = 0.0;
  std::uint64_t count = 0;

  void add(double x) {
    if (count++ == 0 || x > max) {
      const double scale = count == 1 ? 0.0 : std::exp(max - x);
      sum = sum * scale + 1.0;
      sum_sq = sum_sq * scale * scale + 1.0;
      max = x;
    } else {
      const double w = std::exp(x - max);
      sum += w;
      sum_sq += w * w;
    }
  }
  double log_mean() const { return max + std::log(sum) - std::log(static_cast<double>(count)); }
  double ess() const { return sum * sum / sum_sq; }  // Kish: (sum w)^2 / sum w^2
};

// One sum per rung k -> k + 1 (K - 1 of them), over the samples that sat at level k.
std::vector<LogWeightSums> rung_sums(const TemperingStats& stats,
                                     std::span<const double> fractions) {
  const std::size_t k_levels = stats.num_levels, n = stats.sample_delta.size();
  std::vector<LogWeightSums> rungs(k_levels - 1);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = stats.sample_level[j];
    if (k + 1 >= k_levels) continue;  // the top level's samples serve no rung above it
    // -(u_{k+1}(x) - u_k(x)): with u_k = -t_k Delta on a path linear in t.
    const double x = stats.linear_in_t ? (fractions[k + 1] - fractions[k]) * stats.sample_delta[j]
                                       : stats.sample_energies[j * k_levels + k] -
                                             stats.sample_energies[j * k_levels + k + 1];
    rungs[k].add(x);
  }
  return rungs;
}

// log(Z_k / Z_1) by the sum of the rungs below k: NaN above the first rung without samples.
std::vector<double> ladder(const std::vector<LogWeightSums>& rungs) {
  std::vector<double> log_z(rungs.size() + 1, kNaN);
  log_z[0] = 0.0;
  for (std::size_t k = 0; k < rungs.size(); ++k)
    log_z[k + 1] = rungs[k].count > 0 ? log_z[k] + rungs[k].log_mean() : kNaN;
  return log_z;
}

void check_input(const TemperingStats& stats, std::span<const double> fractions) {
  const std::size_t k_levels = stats.num_levels, n = stats.sample_delta.size();
  const char* where = "logz::stepping_stone";
  if (k_levels < 2) fail_argument(where, "stats", "a ladder of at least two levels");
  if (n == 0)
    fail_argument(where, "stats", "recorded samples (TemperingOptions::record_samples = true)");
  if (stats.sample_level.size() != n || stats.sample_chain.size() != n)
    fail_argument(where, "stats", "the level and the chain of every recorded sample");
  for (const std::uint32_t k : stats.sample_level)
    if (k >= k_levels) fail_argument(where, "stats", "sample levels below num_levels");
  if (stats.linear_in_t) {
    if (fractions.size() != k_levels) fail_argument(where, "fractions", "one value per level");
    for (const double t : fractions)
      if (!std::isfinite(t)) fail_argument(where, "fractions", "finite path fractions");
    for (const double d : stats.sample_delta)
      if (!std::isfinite(d)) fail_argument(where, "stats", "finite sample deltas");
  } else {
    if (stats.sample_energies.size() != n * k_levels)
      fail_argument(where, "stats", "every level's energy of every recorded sample");
    for (const double e : stats.sample_energies)
      if (!std::isfinite(e)) fail_argument(where, "stats", "finite reduced energies");
  }
}

}  // namespace

LadderEstimates stepping_stone(const TemperingStats& stats, std::span<const double> fractions,
                               std::size_t num_groups, int threads, StopToken stop) {
  check_input(stats, fractions);
  const std::size_t k_levels = stats.num_levels;
  const std::vector<LogWeightSums> rungs = rung_sums(stats, fractions);
  LadderEstimates out;
  out.method = "stepping_stone";
  out.log_z = ladder(rungs);
  out.bias.assign(k_levels, kNaN);
  // The chains are independent replicates; the samples along one chain are not.
  const std::size_t groups = std::min(num_groups, stats.chains.size());
  out.std_error = chain_jackknife_std_error(
      stats, groups, threads,
      [&](const TemperingStats& part) { return ladder(rung_sums(part, fractions)); }, stop);
  out.std_error[0] = 0.0;  // log(Z_1 / Z_1) = 0 by construction
  for (std::size_t k = 1; k < k_levels; ++k)
    if (std::isnan(out.log_z[k])) out.std_error[k] = kNaN;

  Estimate& e = out.summarise_last("chain_jackknife");
  Diagnostics& d = e.diagnostics;
  std::size_t empty = 0;
  double bias = 0.0, min_ess = kNaN;
  bool low_ess = false;
  for (const LogWeightSums& r : rungs) {
    if (r.count == 0) {
      ++empty;
      continue;
    }
    const double n = static_cast<double>(r.count), ess = r.ess();
    bias -= 0.5 * (1.0 / ess - 1.0 / n);
    if (!(ess >= min_ess)) min_ess = ess;
    low_ess = low_ess || ess < std::max(10.0, 0.01 * n);
  }
  d.ess = min_ess;
  d.values.emplace_back("min_rung_ess", min_ess);
  d.values.emplace_back("log_mean_bias", empty > 0 ? kNaN : bias);
  d.values.emplace_back("empty_levels", static_cast<double>(empty));
  if (empty > 0) d.add_flag("empty_level");
  if (low_ess) d.add_flag("low_ess");
  if (groups < 2) d.add_flag("too_few_chains");
  if (!std::isfinite(e.std_error)) d.add_flag("no_error_estimate");
  return out;
}

}  // namespace logz
