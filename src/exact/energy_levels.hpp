#pragma once
// The last step of the enumerations: log Z and the mean energy from every energy level's log
// weight, log(count) - beta E, shifted by the largest so that no weight overflows.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace logz::exact {

struct LogZAndEnergy {
  double log_z;
  double mean_energy;
};

// Levels of log weight -inf (no states) are left out.
inline LogZAndEnergy sum_energy_levels(std::span<const double> log_w,
                                       std::span<const double> energy) {
  double top = -INFINITY;
  for (double w : log_w) top = std::max(top, w);
  double sum = 0.0, energy_sum = 0.0;
  for (std::size_t k = 0; k < log_w.size(); ++k) {
    if (log_w[k] == -INFINITY) continue;
    const double w = std::exp(log_w[k] - top);
    sum += w;
    energy_sum += w * energy[k];
  }
  return {top + std::log(sum), energy_sum / sum};
}

}  // namespace logz::exact
