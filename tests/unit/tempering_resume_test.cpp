// SimulatedTempering in pieces (begin_run / continue_run / finish_run) and from saved chains
// (chains / restore): any split of a run, and a run continued in a fresh tempering from its
// saved chains, give the bits of one uninterrupted run.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {
namespace {

const IsingModel kModel(4, 4, 1.0, 0.7);
const SpinFlipMetropolis kKernel(SiteOrder::random, 8);
const TemperingLadder kLadder(linear_schedule(7));

TemperingOptions options(int threads) {
  TemperingOptions o;
  o.num_chains = 10;
  o.seed = 5;
  o.chunk_size = 3;
  o.threads = threads;
  o.record_samples = true;
  return o;
}

std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(std::bit_cast<std::uint64_t>(x));
  return out;
}

void expect_same(const TemperingStats& a, const TemperingStats& b) {
  EXPECT_EQ(bits(a.log_c()), bits(b.log_c()));
  EXPECT_EQ(bits(a.sample_delta), bits(b.sample_delta));
  EXPECT_EQ(a.sample_level, b.sample_level);
  EXPECT_EQ(a.kernel_accepted, b.kernel_accepted);
  EXPECT_EQ(a.level_accepted, b.level_accepted);
  EXPECT_EQ(a.level_attempted, b.level_attempted);
  ASSERT_EQ(a.chains.size(), b.chains.size());
  for (std::size_t c = 0; c < a.chains.size(); ++c) {
    EXPECT_EQ(bits(a.chains[c].rb_delta_sum), bits(b.chains[c].rb_delta_sum)) << c;
    EXPECT_EQ(a.chains[c].counts, b.chains[c].counts) << c;
  }
}

// The tempering holds its model and kernel by reference: a temporary would dangle.
using IsingTempering = SimulatedTempering<IsingModel, SpinFlipMetropolis>;
static_assert(std::is_constructible_v<IsingTempering, const IsingModel&, const SpinFlipMetropolis&,
                                      TemperingLadder, TemperingOptions>);
static_assert(!std::is_constructible_v<IsingTempering, IsingModel&&, const SpinFlipMetropolis&,
                                       TemperingLadder, TemperingOptions>);
static_assert(!std::is_constructible_v<IsingTempering, const IsingModel&, SpinFlipMetropolis&&,
                                       TemperingLadder, TemperingOptions>);

TEST(TemperingResume, ARunInPiecesGivesTheBitsOfOneRun) {
  const std::vector<double> log_z_hat(kLadder.size(), 0.0);
  SimulatedTempering whole(kModel, kKernel, kLadder, options(1));
  const TemperingStats expected = whole.run(25, log_z_hat);
  SimulatedTempering split(kModel, kKernel, kLadder, options(2));
  TemperingRun r = split.begin_run(25);
  for (std::size_t piece : {1, 7, 3, 100}) split.continue_run(r, piece, log_z_hat);
  EXPECT_EQ(r.sweeps_done, 25u);
  expect_same(split.finish_run(std::move(r)), expected);
}

TEST(TemperingResume, SavedChainsContinueInAFreshTempering) {
  const std::vector<double> log_z_hat(kLadder.size(), 0.0);
  SimulatedTempering whole(kModel, kKernel, kLadder, options(2));
  whole.run(10, log_z_hat);
  whole.redraw_levels_uniform();
  const TemperingStats expected = whole.run(20, log_z_hat);

  SimulatedTempering first(kModel, kKernel, kLadder, options(1));
  first.run(10, log_z_hat);
  first.redraw_levels_uniform();
  TemperingRun r = first.begin_run(20);
  first.continue_run(r, 8, log_z_hat);
  const TemperingChains saved = first.chains();

  SimulatedTempering resumed(kModel, kKernel, kLadder, options(3));
  ASSERT_TRUE(resumed.restore(saved));
  resumed.continue_run(r, 12, log_z_hat);
  expect_same(resumed.finish_run(std::move(r)), expected);
}

TEST(TemperingResume, ChainsThatDoNotFitAreRefused) {
  SimulatedTempering t(kModel, kKernel, kLadder, options(1));
  TemperingChains saved = t.chains();
  TemperingChains short_state = saved;
  short_state.chunk_states[1].pop_back();
  EXPECT_FALSE(t.restore(short_state));
  TemperingChains bad_level = saved;
  bad_level.level[3] = static_cast<std::uint32_t>(kLadder.size());
  EXPECT_FALSE(t.restore(bad_level));
  TemperingChains missing = saved;
  missing.level.pop_back();
  EXPECT_FALSE(t.restore(missing));
  EXPECT_TRUE(t.restore(saved));
}

}  // namespace
}  // namespace logz
