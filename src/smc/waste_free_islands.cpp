#include "logz/smc/waste_free_islands.hpp"

#include <algorithm>
#include <cmath>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

std::size_t waste_free_islands(std::size_t chains) {
  for (std::size_t b = std::min<std::size_t>(20, chains / 2); b >= 2; --b)
    if (chains % b == 0) return b;
  return 1;
}

namespace {

// Island b's particles' indices, in increasing order.
std::vector<std::size_t> island_members(std::size_t n, std::size_t chains, std::size_t islands,
                                        std::size_t b) {
  const std::size_t per = chains / islands;
  std::vector<std::size_t> out;
  out.reserve(n / islands);
  for (std::size_t start = 0; start < n; start += chains)
    for (std::size_t c = b * per; c < (b + 1) * per; ++c) out.push_back(start + c);
  return out;
}

}  // namespace

void add_island_increments(std::span<const double> log_increments, std::size_t chains,
                           std::vector<double>& island_log_z) {
  const std::size_t n = log_increments.size(), islands = island_log_z.size();
  if (islands == 0 || chains % islands != 0 || n % chains != 0)
    fail_argument("logz::add_island_increments", "chains",
                  "a divisor of the particles and a multiple of the islands");
  std::vector<double> values;
  for (std::size_t b = 0; b < islands; ++b) {
    values.clear();
    for (std::size_t i : island_members(n, chains, islands, b)) values.push_back(log_increments[i]);
    island_log_z[b] += log_mean_exp(values);
  }
}

std::vector<std::size_t> island_ancestors(SmcResampling scheme, std::span<const double> log_weights,
                                          std::size_t chains, std::size_t islands,
                                          RandomStream& rng) {
  const std::size_t n = log_weights.size(), per = chains / islands;
  std::vector<std::size_t> ancestors;
  ancestors.reserve(chains);
  std::vector<double> weights;
  for (std::size_t b = 0; b < islands; ++b) {
    const std::vector<std::size_t> members = island_members(n, chains, islands, b);
    weights.clear();
    for (std::size_t i : members) weights.push_back(log_weights[i]);
    // An island whose particles all lost their weight keeps Z_b = 0: any starting points do.
    if (!std::isfinite(log_sum_exp(weights))) std::fill(weights.begin(), weights.end(), 0.0);
    for (std::size_t a : resample_ancestors(scheme, weights, rng, per))
      ancestors.push_back(members[a]);
  }
  return ancestors;
}

IslandEstimate island_estimate(std::span<const double> island_log_z) {
  const std::size_t islands = island_log_z.size();
  const double log_z = log_mean_exp(island_log_z);
  if (islands < 2 || !std::isfinite(log_z)) return {log_z, kNaN, kNaN};
  double squares = 0.0, raw_squares = 0.0;
  for (double l : island_log_z) {
    const double ratio = std::exp(l - log_z);  // Z_b / mean
    squares += (ratio - 1.0) * (ratio - 1.0), raw_squares += ratio * ratio;
  }
  const double b = static_cast<double>(islands);
  const double relative_variance = squares / (b - 1.0) / b;
  return {log_z, relative_variance > 0.0 ? std::sqrt(std::log1p(relative_variance)) : kNaN,
          b / raw_squares};
}

}  // namespace logz
