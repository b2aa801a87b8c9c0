#include "logz/parallel/thread_trial.hpp"

#include <algorithm>

#include "logz/parallel/parallel_for.hpp"

namespace logz {

ThreadTrial::ThreadTrial(int requested, bool enabled)
    : requested_(requested), decided_(!enabled || resolve_threads(requested) == 1) {}

int ThreadTrial::threads() const {
  if (decided_) return requested_;
  return trials_ % 2 == 0 ? requested_ : 1;
}

void ThreadTrial::took(double seconds) {
  if (decided_) return;
  // The fastest of each: a region slowed by another process's burst says little.
  double& best = trials_ % 2 == 0 ? best_all_ : best_one_;
  best = std::min(best, seconds);
  if (++trials_ < kTrials) return;
  decided_ = true;
  if (best_one_ < best_all_) requested_ = 1;
}

}  // namespace logz
