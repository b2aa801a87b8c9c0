#include "logz/estimators/chain_jackknife.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "logz/core/error.hpp"
#include "logz/parallel/run_chunks.hpp"

namespace logz {

TemperingStats without_chains(const TemperingStats& stats, std::size_t first, std::size_t last) {
  const std::size_t n = stats.sample_delta.size(), k = stats.num_levels;
  if (stats.sample_chain.size() != n)
    fail_argument("logz::without_chains", "stats",
                  "the chain of every recorded sample (sample_chain)");
  const bool energies = !stats.sample_energies.empty();
  TemperingStats out;
  out.num_levels = k;
  out.linear_in_t = stats.linear_in_t;
  out.has_integrands = stats.has_integrands;
  for (std::size_t c = 0; c < stats.chains.size(); ++c)
    if (c < first || c >= last) out.chains.push_back(stats.chains[c]);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t c = stats.sample_chain[j];
    if (c >= first && c < last) continue;
    out.sample_delta.push_back(stats.sample_delta[j]);
    out.sample_level.push_back(stats.sample_level[j]);
    out.sample_chain.push_back(c);
    if (energies)
      out.sample_energies.insert(
          out.sample_energies.end(),
          stats.sample_energies.begin() + static_cast<std::ptrdiff_t>(j * k),
          stats.sample_energies.begin() + static_cast<std::ptrdiff_t>((j + 1) * k));
  }
  return out;
}

std::vector<double> chain_jackknife_std_error(
    const TemperingStats& stats, std::size_t groups, int threads,
    const std::function<std::vector<double>(const TemperingStats&)>& estimate, StopToken stop) {
  const std::size_t chains = stats.chains.size(), g = std::min(groups, chains);
  const std::size_t k = stats.num_levels;
  if (g < 2) return std::vector<double>(k, std::numeric_limits<double>::quiet_NaN());
  // Group i: chains [i * chains / g, (i + 1) * chains / g), as even as integers allow.
  const std::vector<std::vector<double>> leave_out = run_chunks(
      g, 1, threads,
      [&](const ChunkRange& c) {
        return estimate(without_chains(stats, c.index * chains / g, (c.index + 1) * chains / g));
      },
      {}, stop);
  for (const auto& e : leave_out)
    if (e.size() != k)
      fail_argument("logz::chain_jackknife_std_error", "estimate", "one value per level");
  std::vector<double> se(k);
  for (std::size_t l = 0; l < k; ++l) {
    double mean = 0.0;
    for (const auto& e : leave_out) mean += e[l] / static_cast<double>(g);
    double ss = 0.0;
    for (const auto& e : leave_out) ss += (e[l] - mean) * (e[l] - mean);
    se[l] = std::sqrt(static_cast<double>(g - 1) / static_cast<double>(g) * ss);
  }
  return se;
}

}  // namespace logz
