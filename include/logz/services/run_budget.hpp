// A run's budget said before it starts, so that a run of hours is known as one at once:
// "2 directions x 100 paths x 999 temperatures x 1000 kernel steps = 2e+08 kernel steps". The
// annealing, tempering and ground-state runners announce it to the run's listener
// (RunContext::budget, services/registry.hpp), which whoever started the run gives (`logz run`
// prints it on stderr). Without a listener nothing is said. The report's `budget` (results.hpp)
// counts what the run did afterwards; this is what it is about to do.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace logz {

struct PlannedBudget {
  struct Factor {
    std::uint64_t count;
    std::string what;  // "paths": a plural, made singular for a count of 1
  };
  std::vector<Factor> factors;
  std::string unit;  // what the product counts: "kernel steps", "chain-sweeps"
  std::string note;  // what the product leaves out ("" or "and a pilot of 32 paths x 200 steps")

  double total() const;
  // "2 directions x 100 paths x 999 temperatures = 2e+05 path-temperatures[, note]".
  std::string text() const;
};

using BudgetListener = std::function<void(const PlannedBudget&)>;

}  // namespace logz
