#include "logz/estimators/rts.hpp"

#include <cmath>
#include <limits>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/tempering/log_z_hat_updates.hpp"

namespace logz {

namespace {

// Per-chain level frequencies f[j][k] (each chain's c_k) and the pooled log c_k.
struct ChainFrequencies {
  std::vector<std::vector<double>> per_chain;
  std::vector<double> log_c;
};

// The ratio estimator and its between-chain delta-method error (eq. 15-16):
// chains are independent replicates, so Var[c_k] = s_k^2 / J from their spread.
LadderEstimates ratio_estimates(const std::string& method, const ChainFrequencies& f,
                                std::span<const double> log_z_hat,
                                std::span<const double> log_prior) {
  const std::size_t k_levels = f.log_c.size(), chains = f.per_chain.size();
  LadderEstimates out;
  out.method = method;
  out.log_z.resize(k_levels);
  out.std_error.assign(k_levels, kNaN);
  out.bias.assign(k_levels, kNaN);
  for (std::size_t k = 0; k < k_levels; ++k)
    out.log_z[k] =
        log_z_hat[k] - log_z_hat[0] + log_prior[0] - log_prior[k] + f.log_c[k] - f.log_c[0];
  if (chains >= 2) {
    std::vector<double> mean(k_levels, 0.0);
    for (const auto& c : f.per_chain)
      for (std::size_t k = 0; k < k_levels; ++k) mean[k] += c[k] / static_cast<double>(chains);
    for (std::size_t k = 0; k < k_levels; ++k) {
      double v1 = 0, vk = 0, c1k = 0;
      for (const auto& c : f.per_chain) {
        v1 += (c[0] - mean[0]) * (c[0] - mean[0]);
        vk += (c[k] - mean[k]) * (c[k] - mean[k]);
        c1k += (c[0] - mean[0]) * (c[k] - mean[k]);
      }
      const double denom = static_cast<double>(chains - 1) * static_cast<double>(chains);
      v1 /= denom, vk /= denom, c1k /= denom;  // variances of the means over chains
      const double a = v1 / (mean[0] * mean[0]), b = vk / (mean[k] * mean[k]);
      const double var = a + b - 2.0 * c1k / (mean[0] * mean[k]);
      out.std_error[k] = var > 0 ? std::sqrt(var) : (k == 0 ? 0.0 : kNaN);
      out.bias[k] = 0.5 * (a - b);
    }
  }
  Estimate& e = out.summarise_last("between_chains");
  if (chains < 2) e.diagnostics.add_flag("too_few_chains");
  e.diagnostics.values.emplace_back("bias_eq15", out.bias.back());
  // c_k far from r_k means the Zhat_k were poor and some levels are rarely visited.
  const double deviation = max_level_deviation(f.log_c, log_prior);
  e.diagnostics.values.emplace_back("max_level_deviation", deviation);
  if (deviation > 0.5 / static_cast<double>(k_levels)) e.diagnostics.add_flag("uneven_levels");
  return out;
}

}  // namespace

Estimate& LadderEstimates::summarise_last(const std::string& se_method) {
  last.method = method;
  last.log_z = log_z.back();
  last.std_error = std_error.back();
  last.se_method = se_method;
  return last;
}

LadderEstimates rts_ladder(const TemperingStats& stats, std::span<const double> log_z_hat,
                           std::span<const double> log_prior) {
  if (log_z_hat.size() != stats.num_levels || log_prior.size() != stats.num_levels)
    fail_argument("logz::rts_ladder", "log_z_hat, log_prior", "one value per level");
  ChainFrequencies f;
  f.log_c = stats.log_c();
  for (const auto& c : stats.chains) {
    std::vector<double> row(stats.num_levels);
    for (std::size_t k = 0; k < stats.num_levels; ++k)
      row[k] = std::exp(c.log_q_sum(k) - std::log(static_cast<double>(c.num_samples)));
    f.per_chain.push_back(std::move(row));
  }
  return ratio_estimates("rts", f, log_z_hat, log_prior);
}

LadderEstimates ts_ladder(const TemperingStats& stats, std::span<const double> log_z_hat,
                          std::span<const double> log_prior) {
  if (log_z_hat.size() != stats.num_levels || log_prior.size() != stats.num_levels)
    fail_argument("logz::ts_ladder", "log_z_hat, log_prior", "one value per level");
  // The +0.1 rule keeps empty levels finite (Carlson et al. 2016, section 4.3).
  ChainFrequencies f;
  const auto n = stats.counts();
  double total = 0;
  for (auto v : n) total += static_cast<double>(v) + 0.1;
  for (auto v : n) f.log_c.push_back(std::log((static_cast<double>(v) + 0.1) / total));
  for (const auto& c : stats.chains) {
    std::vector<double> row(stats.num_levels);
    const double t =
        static_cast<double>(c.num_samples) + 0.1 * static_cast<double>(stats.num_levels);
    for (std::size_t k = 0; k < stats.num_levels; ++k)
      row[k] = (static_cast<double>(c.counts[k]) + 0.1) / t;
    f.per_chain.push_back(std::move(row));
  }
  return ratio_estimates("ts", f, log_z_hat, log_prior);
}

}  // namespace logz
