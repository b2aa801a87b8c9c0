// A stop request (Ctrl-C) ends a run early: chunks not yet begun throw logz::Stopped, the
// annealing loop stops within a step of the request and a lattice kernel inside a long step,
// with every thread count. A run reads only the token it was given: another run of the same
// process, given another source's token, is untouched.
#include "logz/core/stop_request.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "logz/anneal/annealer.hpp"
#include "logz/kernels/kernel_sequence.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/models/ising.hpp"
#include "logz/parallel/run_chunks.hpp"

namespace {

TEST(StopRequest, ChunksBegunAfterTheRequestThrowStopped) {
  for (int threads : {1, 3}) {
    logz::StopSource source;
    std::atomic<int> ran{0};
    EXPECT_THROW(logz::run_chunks(
                     100, 1, threads,
                     [&](const logz::ChunkRange& c) {
                       ++ran;
                       if (c.index == 3) source.request();
                     },
                     {}, source.token()),
                 logz::Stopped);
    // The chunks already begun on other threads finish; none begins after the request.
    EXPECT_LE(ran.load(), 3 + threads) << threads;
  }
}

// A body that reads a token of its own (an estimator's solve) and throws Stopped stops the
// chunks after it too: a jackknife of 12 solves must not run the other 11 to their first check.
TEST(StopRequest, ABodyThatThrowsStoppedStopsTheChunksNotBegun) {
  for (int threads : {1, 3}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(logz::run_chunks(100, 1, threads,
                                  [&](const logz::ChunkRange& c) {
                                    ++ran;
                                    if (c.index >= 3) throw logz::Stopped();
                                  }),
                 logz::Stopped);
    EXPECT_LE(ran.load(), 3 + threads) << threads;
  }
}

// A kernel that requests a stop of `source` at its n-th step and counts the steps it makes.
struct StoppingKernel {
  logz::SpinFlipMetropolis inner{logz::SiteOrder::random, 4};
  std::atomic<int>* steps;
  int stop_at;
  logz::StopSource* source;
  template <class Target, class Batch>
  auto step(const Target& target, Batch& batch, const logz::BatchRandom& random) const {
    if (++*steps == stop_at) source->request();
    return inner.step(target, batch, random);
  }
};

logz::AnnealOptions one_chunk_options(logz::StopToken stop) {
  logz::AnnealOptions o;
  o.num_paths = 8;
  o.chunk_size = 8;  // one chunk: the request must stop it mid-path
  o.threads = 1;
  o.stop = stop;
  return o;
}

TEST(StopRequest, AnnealingStopsWithinAStep) {
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  logz::StopSource source;
  std::atomic<int> steps{0};
  const StoppingKernel kernel{.steps = &steps, .stop_at = 10, .source = &source};
  EXPECT_THROW(logz::anneal_forward(model, kernel, logz::linear_schedule(1000),
                                    one_chunk_options(source.token())),
               logz::Stopped);
  EXPECT_EQ(steps.load(), 10);
}

// Two runs at once in one process: the first requests its own source's stop mid-path and
// throws Stopped; the second, given another source's token, runs to the end with the bits of a
// run given no token at all. With one process-wide request the second would have stopped too.
TEST(StopRequest, AStopRequestedForOneRunLeavesAnotherRunUntouched) {
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 4);
  const logz::Schedule schedule = logz::linear_schedule(2000);
  logz::AnnealOptions plain = one_chunk_options({});
  plain.num_paths = 32;
  const logz::Works expected = logz::anneal_forward(model, kernel, schedule, plain);

  logz::StopSource stopped_source, other_source;
  std::atomic<int> steps{0};
  const StoppingKernel stopping{.steps = &steps, .stop_at = 100, .source = &stopped_source};
  bool first_stopped = false;
  std::thread first([&] {
    try {
      logz::anneal_forward(model, stopping, schedule, one_chunk_options(stopped_source.token()));
    } catch (const logz::Stopped&) {
      first_stopped = true;
    }
  });
  logz::AnnealOptions other = plain;
  other.stop = other_source.token();
  logz::Works got;
  EXPECT_NO_THROW(got = logz::anneal_forward(model, kernel, schedule, other));
  first.join();
  EXPECT_TRUE(first_stopped);
  EXPECT_TRUE(stopped_source.requested());
  EXPECT_FALSE(other_source.requested());
  EXPECT_EQ(got.works, expected.works);
  EXPECT_EQ(got.kernel_updates, expected.kernel_updates);

  // A requested source stops every run given its token at once, and no run given another's.
  EXPECT_THROW(
      logz::anneal_forward(model, kernel, schedule, one_chunk_options(stopped_source.token())),
      logz::Stopped);
  EXPECT_EQ(logz::anneal_forward(model, kernel, schedule, other).works, expected.works);
}

// The process's source (the front ends' Ctrl-C) reaches only the runs given its token.
TEST(StopRequest, TheProcessSourceStopsOnlyTheRunsGivenItsToken) {
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 4);
  const logz::Schedule schedule = logz::linear_schedule(50);
  logz::StopSource& process = logz::process_stop_source();
  process.request();
  EXPECT_THROW(logz::anneal_forward(model, kernel, schedule, one_chunk_options(process.token())),
               logz::Stopped);
  EXPECT_NO_THROW(logz::anneal_forward(model, kernel, schedule, one_chunk_options({})));
  process.clear();
  EXPECT_NO_THROW(
      logz::anneal_forward(model, kernel, schedule, one_chunk_options(process.token())));
}

// A lattice kernel's one step of many updates sees the token it is given inside the step: every
// 2^20 updates in random order, every sweep after the first in checkerboard order, also inside
// a KernelSequence; one sweep, or no token, runs to the end.
TEST(StopRequest, ALatticeKernelSeesItsTokenInsideOneStep) {
  const logz::IsingModel model(8, 8, 1.0, 0.4);
  logz::StopSource source;
  source.request();
  const logz::BatchRandom random{1, logz::Purpose::test, 1, 0};
  auto batch = [&] {
    logz::SpinBatch b = model.make_batch(2);
    model.sample_base(b, random);
    return b;
  };
  const auto target = model.at(1.0);
  const logz::SpinFlipMetropolis many_updates(logz::SiteOrder::random, 1 << 21);
  const logz::SpinFlipMetropolis two_sweeps(logz::SiteOrder::checkerboard, 2);
  const logz::SpinFlipMetropolis one_sweep(logz::SiteOrder::checkerboard, 1);
  const logz::KernelSequence cluster_then_sweeps(logz::SwendsenWang(1), two_sweeps);
  {
    auto b = batch();
    EXPECT_THROW(many_updates.step(target, b, random, source.token()), logz::Stopped);
  }
  {
    auto b = batch();
    EXPECT_THROW(two_sweeps.step(target, b, random, source.token()), logz::Stopped);
  }
  {
    auto b = batch();
    EXPECT_THROW(logz::step_kernel(cluster_then_sweeps, target, b, random, source.token()),
                 logz::Stopped);
  }
  {
    auto b = batch();
    EXPECT_THROW(logz::SwendsenWang(2).step(target, b, random, source.token()), logz::Stopped);
  }
  auto b = batch();
  EXPECT_NO_THROW(one_sweep.step(target, b, random, source.token()));
  EXPECT_NO_THROW(two_sweeps.step(target, b, random));
  EXPECT_NO_THROW(two_sweeps.step(target, b, random, logz::StopSource().token()));
}

TEST(StopRequest, ASourceClearedIsNoLongerRequested) {
  logz::StopSource source;
  EXPECT_FALSE(source.token().requested());
  source.request();
  EXPECT_TRUE(source.token().requested());
  EXPECT_THROW(source.token().throw_if_requested(), logz::Stopped);
  source.clear();
  EXPECT_FALSE(source.requested());
  EXPECT_NO_THROW(source.token().throw_if_requested());
  EXPECT_FALSE(logz::StopToken().requested());  // a default token never stops
}

}  // namespace
