#include "logz/anneal/adaptive_schedule.hpp"

#include <algorithm>

namespace logz {

double thermodynamic_length(std::span<const double> increment_sd) {
  double total = 0.0;
  for (double sd : increment_sd)
    if (std::isfinite(sd) && sd > 0) total += sd;
  return total;
}

Schedule constant_length_schedule(std::span<const double> fractions,
                                  std::span<const double> increment_sd, std::size_t num_steps) {
  const std::size_t steps = increment_sd.size();
  if (fractions.size() != steps + 1 || steps == 0)
    fail_argument("logz::constant_length_schedule", "increment_sd",
                  "one spread per step of the pilot's schedule");
  if (num_steps < 1) fail_argument("logz::constant_length_schedule", "num_steps", "at least 1");
  const double total = thermodynamic_length(increment_sd);
  if (!(total > 0) || !std::isfinite(total)) return linear_schedule(num_steps);
  // Cumulative length at the pilot's temperatures, each step at least 1e-3 of the mean step.
  const double floor = 1e-3 * total / static_cast<double>(steps);
  std::vector<double> cumulative(steps + 1, 0.0);
  for (std::size_t j = 0; j < steps; ++j) {
    const double sd = increment_sd[j];
    cumulative[j + 1] = cumulative[j] + std::max(std::isfinite(sd) ? sd : 0.0, floor);
  }
  std::vector<double> t(num_steps + 1);
  t.front() = 0.0;
  t.back() = 1.0;
  std::size_t j = 0;  // the pilot step holding the k-th point
  for (std::size_t k = 1; k < num_steps; ++k) {
    const double target =
        cumulative.back() * static_cast<double>(k) / static_cast<double>(num_steps);
    while (j + 1 < steps && cumulative[j + 1] < target) ++j;
    const double within = (target - cumulative[j]) / (cumulative[j + 1] - cumulative[j]);
    t[k] = fractions[j] + std::clamp(within, 0.0, 1.0) * (fractions[j + 1] - fractions[j]);
  }
  // Rounding can tie neighbours where the length is dense: nudge them apart by an ulp.
  for (std::size_t k = 1; k < num_steps; ++k)
    if (!(t[k] > t[k - 1])) t[k] = std::nextafter(t[k - 1], 2.0);
  if (num_steps > 1 && !(t[num_steps - 1] < 1.0))
    fail_argument("logz::constant_length_schedule", "num_steps",
                  "fewer steps than doubles between 0 and 1");
  return Schedule(std::move(t), "adaptive schedule");
}

PilotRun combine_pilots(const PilotRun& forward, const PilotRun& reverse) {
  if (forward.increment_sd.size() != reverse.increment_sd.size())
    fail_argument("logz::combine_pilots", "reverse",
                  "a pilot on the same schedule as the forward one");
  PilotRun r = forward;
  for (std::size_t j = 0; j < r.increment_sd.size(); ++j) {
    const double f = forward.increment_sd[j], b = reverse.increment_sd[j];
    r.increment_sd[j] = std::sqrt(0.5 * (f * f + b * b));
  }
  r.kernel_updates += reverse.kernel_updates;
  return r;
}

std::uint64_t pilot_seed(std::uint64_t seed) {
  // splitmix64's finaliser of seed + a constant: a different key for Philox.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace logz
