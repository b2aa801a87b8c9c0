// The annealing driver: reproducible for any thread count, works accumulated
// with the documented signs, non-finite energies reported with their place.
#include "logz/anneal/annealer.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"

namespace {

logz::Works forward_with_threads(int threads, logz::AnnealJournal* journal = nullptr) {
  const logz::IsingModel model(6, 6, 1.0, 0.6);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 20);
  logz::AnnealOptions o;
  o.journal = journal;
  o.num_paths = 37;  // not a multiple of the chunk size
  o.seed = 99;
  o.threads = threads;
  o.chunk_size = 4;
  return logz::anneal_forward(model, kernel, logz::linear_schedule(50), o);
}

TEST(Annealer, BitwiseIdenticalForAnyThreadCount) {
  const auto one = forward_with_threads(1);
  for (int t : {2, 3, 8}) {
    const auto other = forward_with_threads(t);
    EXPECT_EQ(one.works, other.works) << t << " threads";
    ASSERT_EQ(one.mean_energy.size(), other.mean_energy.size());
    for (std::size_t k = 0; k + 1 < one.mean_energy.size(); ++k)
      EXPECT_EQ(one.mean_energy[k], other.mean_energy[k]);
    for (std::size_t k = 1; k + 1 < one.acceptance.size(); ++k)
      EXPECT_EQ(one.acceptance[k], other.acceptance[k]);
  }
}

TEST(Annealer, WorkOfAQuenchIsTheTargetEnergy) {
  // K = 1: W_f = beta * E(x_0) for a base sample x_0, with no kernel step at all.
  const logz::IsingModel model(4, 4, 1.0, 0.7);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 10);
  logz::AnnealOptions o;
  o.num_paths = 5;
  o.seed = 3;
  o.threads = 1;
  const auto w = logz::anneal_forward(model, kernel, logz::linear_schedule(1), o);
  auto batch = model.make_batch(5);
  model.sample_base(batch, logz::BatchRandom{3, logz::Purpose::base_sample, 0, 0});
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_DOUBLE_EQ(w.works[p], 0.7 * model.energy(batch.bond_sum(p)));
  EXPECT_TRUE(std::isnan(w.acceptance[0]));
  EXPECT_TRUE(std::isnan(w.acceptance[1]));
}

TEST(Annealer, ReverseWorkFromAGroundStateQuench) {
  // K = 1 in reverse from the all-up state: W_r = U_0 - U_1 = -beta E(ground) = beta J 2N.
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 10);
  logz::AnnealOptions o;
  o.num_paths = 3;
  auto start = [&](logz::SpinBatch& b, const logz::ChunkStreams& streams) {
    model.ground_state(b, streams.random(0));
  };
  const auto w = logz::anneal_reverse(model, kernel, logz::linear_schedule(1), start, o);
  for (double x : w.works) EXPECT_DOUBLE_EQ(x, 0.5 * 32.0);
  EXPECT_DOUBLE_EQ(w.mean_energy[1], -32.0);
  EXPECT_TRUE(std::isnan(w.mean_energy[0]));
}

// A path whose energy is NaN for one particle, to check the error names it.
struct NanPath : logz::IsingModel {
  NanPath() : logz::IsingModel(2, 2, 1.0, 1.0) {}
  void work_increment(double, double, const Batch& b, std::span<double> out) const {
    for (std::size_t p = 0; p < b.num_particles(); ++p) out[p] = p == 1 ? std::nan("") : 0.0;
  }
};

TEST(Annealer, NonFiniteWorkIsReportedWithItsPlace) {
  const NanPath path;
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 1);
  logz::AnnealOptions o;
  o.num_paths = 4;
  o.threads = 2;
  o.chunk_size = 2;
  try {
    logz::anneal_forward(path, kernel, logz::linear_schedule(3), o);
    FAIL() << "expected a NumericalError";
  } catch (const logz::NumericalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("path 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("temperature index 1"), std::string::npos) << msg;
  }
}

}  // namespace

// ---------------------------------------------------------------- the one-step transition

namespace logz_step_test {

const logz::IsingModel model(5, 5, 1.0, 0.6);
const logz::HeatBath kernel(logz::SiteOrder::checkerboard,
                            1);  // not reversible: reversed() matters

logz::AnnealOptions one_chunk(std::size_t n) {
  logz::AnnealOptions o;
  o.num_paths = n;
  o.chunk_size = n;
  o.seed = 41;
  o.threads = 1;
  return o;
}

}  // namespace logz_step_test

TEST(AnnealStep, AHandWrittenForwardLoopIsTheDriver) {
  using namespace logz_step_test;
  const auto schedule = logz::linear_schedule(12);
  const auto w = logz::anneal_forward(model, kernel, schedule, one_chunk(6));
  // The driver's stream addresses (random/philox.hpp): base draws, then the kernel at k.
  auto batch = model.make_batch(6);
  model.sample_base(batch, logz::BatchRandom{41, logz::Purpose::base_sample, 0, 0});
  auto state = logz::anneal_init(model, std::move(batch));
  EXPECT_EQ(state.t, 0.0);
  for (std::size_t k = 1; k < schedule.size(); ++k)
    logz::anneal_step(
        model, kernel, state, schedule[k],
        logz::BatchRandom{41, logz::Purpose::forward_kernel, static_cast<std::uint32_t>(k), 0});
  EXPECT_EQ(state.work, w.works);
  EXPECT_EQ(state.t, 1.0);
  EXPECT_EQ(state.steps, schedule.num_steps());
}

TEST(AnnealStep, AHandWrittenReverseLoopIsTheDriver) {
  using namespace logz_step_test;
  const auto schedule = logz::linear_schedule(9);
  auto start = [&](logz::SpinBatch& b, const logz::ChunkStreams& streams) {
    model.ground_state(b, streams.random(0));
  };
  const auto w = logz::anneal_reverse(model, kernel, schedule, start, one_chunk(5));
  auto batch = model.make_batch(5);
  start(batch, logz::ChunkStreams(41, logz::Purpose::reverse_start, logz::chunk_range(0, 5, 5)));
  auto state = logz::anneal_init(model, std::move(batch), logz::Direction::reverse);
  EXPECT_EQ(state.t, 1.0);
  const auto reverse_kernel = kernel.reversed();
  for (std::size_t k = schedule.num_steps(); k-- > 0;)
    logz::anneal_step(
        model, reverse_kernel, state, schedule[k],
        logz::BatchRandom{41, logz::Purpose::reverse_kernel, static_cast<std::uint32_t>(k), 0});
  EXPECT_EQ(state.work, w.works);
  // The forward kernel in reverse gives other works: the driver did apply the reversal.
  auto other = model.make_batch(5);
  start(other, logz::ChunkStreams(41, logz::Purpose::reverse_start, logz::chunk_range(0, 5, 5)));
  auto unreversed = logz::anneal_init(model, std::move(other), logz::Direction::reverse);
  for (std::size_t k = schedule.num_steps(); k-- > 0;)
    logz::anneal_step(
        model, kernel, unreversed, schedule[k],
        logz::BatchRandom{41, logz::Purpose::reverse_kernel, static_cast<std::uint32_t>(k), 0});
  EXPECT_NE(unreversed.work, w.works);
}

TEST(AnnealStep, NoKernelMoveAtTheEndOfThePath) {
  using namespace logz_step_test;
  auto batch = model.make_batch(3);
  model.sample_base(batch, logz::BatchRandom{2, logz::Purpose::base_sample, 0, 0});
  auto state = logz::anneal_init(model, std::move(batch));
  const auto moved =
      logz::anneal_step(model, kernel, state, 0.5, logz::BatchRandom{2, logz::Purpose::test, 1, 0});
  EXPECT_EQ(moved.attempted, 3u * 25u);
  const auto before = state.trace;
  const auto last =
      logz::anneal_step(model, kernel, state, 1.0, logz::BatchRandom{2, logz::Purpose::test, 2, 0});
  EXPECT_EQ(last.attempted, 0u);
  EXPECT_EQ(state.trace, before);  // the states did not change
  // The last increment, (1 - 0.5) beta E(x), is taken at the states the first step left.
  for (std::size_t p = 0; p < 3; ++p) EXPECT_DOUBLE_EQ(state.increment[p], 0.5 * 0.6 * before[p]);
}

// A journal (anneal/anneal_journal.hpp) that keeps the phase as it stood after `keep_after`
// chunks, or hands a kept record back as the phase to resume.
class RecordingJournal final : public logz::AnnealJournal {
 public:
  explicit RecordingJournal(std::size_t keep_after) : keep_after_(keep_after) {}
  explicit RecordingJournal(logz::AnnealPhaseRecord resume)
      : kept(std::move(resume)), resuming_(true) {}
  const logz::AnnealPhaseRecord* begin_phase(const logz::AnnealPhaseShape& shape, bool) override {
    shape_ = shape;
    return resuming_ ? &kept : nullptr;
  }
  void merged(const logz::AnnealPhaseView& view) override {
    ++merges;
    EXPECT_TRUE(view.shape == shape_);
    if (!resuming_ && view.chunks_done == keep_after_) kept = logz::AnnealPhaseRecord::of(view);
  }
  void end_phase(const logz::AnnealPhaseView& view) override {
    ended = logz::AnnealPhaseRecord::of(view);
  }

  logz::AnnealPhaseRecord kept, ended;
  std::size_t merges = 0;

 private:
  std::size_t keep_after_ = 0;
  bool resuming_ = false;
  logz::AnnealPhaseShape shape_;
};

TEST(Annealer, AResumedPhaseEndsWithTheBitsOfAnUninterruptedOne) {
  const auto whole = forward_with_threads(2);  // 37 paths in 10 chunks
  for (std::size_t done : {0u, 1u, 4u, 9u}) {
    RecordingJournal first(done);
    EXPECT_EQ(forward_with_threads(3, &first).works, whole.works);
    ASSERT_EQ(first.merges, 10u);
    if (done == 0)
      first.kept = logz::AnnealPhaseRecord{.shape = first.ended.shape,
                                           .energy_sum = std::vector<double>(51, 0.0),
                                           .attempted = std::vector<std::uint64_t>(51, 0),
                                           .accepted = std::vector<std::uint64_t>(51, 0)};
    EXPECT_EQ(first.kept.chunks_done, done);
    EXPECT_EQ(first.kept.works.size(), done * 4);
    EXPECT_TRUE(first.ended.complete());
    RecordingJournal second(first.kept);
    const logz::Works resumed = forward_with_threads(1, &second);
    EXPECT_EQ(second.merges, 10 - done) << "only the chunks after the saved ones run";
    EXPECT_EQ(resumed.works, whole.works) << done;
    for (std::size_t k = 0; k + 1 < whole.mean_energy.size(); ++k)
      EXPECT_EQ(resumed.mean_energy[k], whole.mean_energy[k]);
    for (std::size_t k = 1; k + 1 < whole.acceptance.size(); ++k)
      EXPECT_EQ(resumed.acceptance[k], whole.acceptance[k]);
  }
}
