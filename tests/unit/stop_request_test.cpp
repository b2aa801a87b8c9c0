// A stop request (Ctrl-C) ends a run early: chunks not yet begun throw logz::Stopped, and the
// annealing loop stops within a step of the request, with every thread count.
#include "logz/core/stop_request.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "logz/anneal/annealer.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/parallel/run_chunks.hpp"

namespace {

// Clears the process-wide request after each test, whatever happened.
struct ClearedAfter {
  ~ClearedAfter() { logz::clear_stop_request(); }
};

TEST(StopRequest, ChunksBegunAfterTheRequestThrowStopped) {
  const ClearedAfter cleared;
  for (int threads : {1, 3}) {
    logz::clear_stop_request();
    std::atomic<int> ran{0};
    EXPECT_THROW(logz::run_chunks(100, 1, threads,
                                  [&](const logz::ChunkRange& c) {
                                    ++ran;
                                    if (c.index == 3) logz::request_stop();
                                  }),
                 logz::Stopped);
    // The chunks already begun on other threads finish; none begins after the request.
    EXPECT_LE(ran.load(), 3 + threads) << threads;
  }
}

// A kernel that requests a stop at its n-th step and counts the steps it makes.
struct StoppingKernel {
  logz::SpinFlipMetropolis inner{logz::SiteOrder::random, 4};
  std::atomic<int>* steps;
  int stop_at;
  template <class Target, class Batch>
  auto step(const Target& target, Batch& batch, const logz::BatchRandom& random) const {
    if (++*steps == stop_at) logz::request_stop();
    return inner.step(target, batch, random);
  }
};

TEST(StopRequest, AnnealingStopsWithinAStep) {
  const ClearedAfter cleared;
  logz::clear_stop_request();
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  std::atomic<int> steps{0};
  const StoppingKernel kernel{.steps = &steps, .stop_at = 10};
  logz::AnnealOptions o;
  o.num_paths = 8;
  o.chunk_size = 8;  // one chunk: the request must stop it mid-path
  o.threads = 1;
  EXPECT_THROW(logz::anneal_forward(model, kernel, logz::linear_schedule(1000), o), logz::Stopped);
  EXPECT_EQ(steps.load(), 10);
}

TEST(StopRequest, ARunAfterClearingIsUntouched) {
  logz::request_stop();
  logz::clear_stop_request();
  EXPECT_FALSE(logz::stop_requested());
  EXPECT_NO_THROW(logz::throw_if_stop_requested());
}

}  // namespace
