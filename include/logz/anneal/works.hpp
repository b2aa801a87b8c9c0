// What an annealing run returns: the work of every path and, per temperature,
// the mean energy of the particles there (the hysteresis trace) and the
// acceptance rate of the kernel run there. Estimates are made from these by
// the estimators, never by the driver.
//
// Forward work: W_f = sum_k [U_k(x_{k-1}) - U_{k-1}(x_{k-1})], so that
// E_f[exp(-W_f)] = Z_K / Z_0. Reverse work is accumulated along the reverse
// process with its own sign, W_r = sum_k [U_{k-1}(x_k) - U_k(x_k)], so that
// E_r[exp(-W_r)] = Z_0 / Z_K.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "logz/core/enum_names.hpp"

namespace logz {

LOGZ_NAMED_ENUM(Direction, forward, reverse);

struct Works {
  Direction direction = Direction::forward;
  std::vector<double> works;         // one per path
  std::vector<double> fractions;     // the schedule: path fractions t_0 = 0 .. t_K = 1
  std::vector<double> mean_energy;   // per temperature; NaN where this direction has no state
  std::vector<double> acceptance;    // per temperature; NaN where no kernel ran
  std::uint64_t kernel_updates = 0;  // the kernel's attempted updates, all paths and temperatures
};

}  // namespace logz
