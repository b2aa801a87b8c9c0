// ThreadTrial (parallel/thread_trial.hpp): regions timed alternately on all threads and on one,
// the faster kept. The regions here wait longer on the slower choice (4 ms against none), far
// beyond a timer's or a scheduler's noise.
#include "logz/parallel/thread_trial.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

// Runs timed regions that take `slow_ms` on `slow_threads` threads and no time otherwise until
// the trial decides (at most 20), and returns the threads it kept.
int kept_threads(logz::ThreadTrial& trial, int slow_threads) {
  for (int i = 0; i < 20 && !trial.decided(); ++i)
    trial.timed([&] {
      if (trial.threads() == slow_threads)
        std::this_thread::sleep_for(std::chrono::milliseconds(4));
    });
  EXPECT_TRUE(trial.decided());
  return trial.threads();
}

TEST(ThreadTrial, KeepsOneThreadWhereTheRegionsRunFasterOnOne) {
  logz::ThreadTrial trial(4, true);
  EXPECT_EQ(kept_threads(trial, 4), 1);
}

TEST(ThreadTrial, KeepsTheRequestedThreadsWhereTheyRunFaster) {
  logz::ThreadTrial trial(4, true);
  EXPECT_EQ(kept_threads(trial, 1), 4);
}

TEST(ThreadTrial, KeepsTheRequestWhenOffOrOneThread) {
  logz::ThreadTrial off(3, false), one(1, true);
  EXPECT_TRUE(off.decided());
  EXPECT_EQ(off.threads(), 3);
  EXPECT_TRUE(one.decided());
  EXPECT_EQ(one.threads(), 1);
}

}  // namespace
