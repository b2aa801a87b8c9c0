// One thread or all: a choice made by timing, for loops whose bodies call functions that hold a
// lock, such as Python callbacks under the GIL. There more threads can be slower than one: each
// call hands the lock from thread to thread, and a hand-off costs tens of microseconds, more than
// a cheap likelihood's call (measured with logz.evidence on 2 cores: 1.1 to 1.8 times the one
// thread's wall time on the suite's problems below d = 30; docs/evidence.md). A trial times
// repeated regions of the same work, alternating all threads and one, and keeps the faster.
// Results never depend on it: every driver gives the same bits for any thread count.
#pragma once

#include <chrono>
#include <limits>

namespace logz {

class ThreadTrial {
 public:
  // `requested` threads (0: all); `enabled` false keeps them throughout.
  ThreadTrial(int requested, bool enabled);

  // The threads for the next region.
  int threads() const;
  // Times a region run with threads() (its body the region) and learns from it.
  template <class Region>
  decltype(auto) timed(Region&& region) {
    if (decided_) return region();
    const auto start = std::chrono::steady_clock::now();
    struct Learn {
      ThreadTrial& trial;
      std::chrono::steady_clock::time_point start;
      ~Learn() {
        trial.took(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    } learn{*this, start};
    return region();
  }
  bool decided() const { return decided_; }

 private:
  void took(double seconds);

  static constexpr int kTrials = 6;  // regions timed: all threads, one, all, one, ...
  int requested_;
  bool decided_;
  int trials_ = 0;
  // The fastest region of each.
  double best_all_ = std::numeric_limits<double>::infinity();
  double best_one_ = std::numeric_limits<double>::infinity();
};

}  // namespace logz
