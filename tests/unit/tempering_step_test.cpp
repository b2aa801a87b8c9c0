// The one-step transition of simulated tempering: a loop a user writes over tempering_init and
// tempering_step, with all chains in one batch, draws exactly what SimulatedTempering draws
// with its chains in chunks of four (streams are addressed by chain and step), the kernel's moves
// counted by level included; log Zhat must have one value per level.
#include "logz/tempering/tempering_step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {
namespace {

constexpr std::size_t kChains = 12, kSweeps = 30, kChunk = 4;
constexpr std::uint64_t kSeed = 77;

TEST(TemperingStep, UserLoopDrawsWhatTheDriverDraws) {
  const IsingModel model(4, 4, 1.0, 0.7);
  const SpinFlipMetropolis kernel(SiteOrder::random, 8);
  const TemperingLadder ladder(linear_schedule(7));
  const std::vector<double> log_z_hat(ladder.size(), 0.0);

  TemperingOptions o;
  o.num_chains = kChains;
  o.seed = kSeed;
  o.chunk_size = kChunk;
  o.threads = 2;
  o.record_samples = true;
  SimulatedTempering driver(model, kernel, ladder, o);
  const TemperingStats stats = driver.run(kSweeps, log_z_hat);
  ASSERT_EQ(stats.sample_delta.size(), kChains * kSweeps);

  // Steps as the driver numbers them: 1 drew the first levels, sweeps are 2, 3, ...
  auto state = tempering_init(model, kChains, 0, ladder.size(), kSeed, 1);
  std::vector<double> delta(kChains * kSweeps);
  std::vector<std::uint32_t> level(kChains * kSweeps);
  TemperingMoves all;
  for (std::uint32_t s = 0; s < kSweeps; ++s) {
    const auto moves = tempering_step(model, kernel, ladder, log_z_hat, state, kSeed, 2 + s,
                                      [&](const TemperingObservation& obs) {
                                        delta[s * kChains + obs.chain] = obs.delta;
                                        level[s * kChains + obs.chain] = obs.level;
                                        EXPECT_EQ(obs.log_q.size(), ladder.size());
                                      });
    all += moves;
  }
  EXPECT_EQ(all.attempted, stats.kernel_attempted);
  EXPECT_EQ(all.accepted, stats.kernel_accepted);
  // Moves by level: chain by chain here, so every count is the chain's own; the driver's chunks
  // add up to the same, and the levels to the whole.
  ASSERT_TRUE(all.by_level);
  all.level_attempted.resize(ladder.size());
  all.level_accepted.resize(ladder.size());
  EXPECT_EQ(all.level_attempted, stats.level_attempted);
  EXPECT_EQ(all.level_accepted, stats.level_accepted);
  std::uint64_t level_attempts = 0, level_accepts = 0;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    level_attempts += stats.level_attempted[k];
    level_accepts += stats.level_accepted[k];
    EXPECT_LE(stats.level_accepted[k], stats.level_attempted[k]);
  }
  EXPECT_EQ(level_attempts, stats.kernel_attempted);
  EXPECT_EQ(level_accepts, stats.kernel_accepted);
  // t = 0 is the uniform distribution, where Metropolis accepts every flip; t = 1 is not.
  ASSERT_GT(stats.level_attempted.front(), 0u);
  EXPECT_EQ(stats.level_accepted.front(), stats.level_attempted.front());
  EXPECT_LT(stats.level_accepted.back(), stats.level_attempted.back());
  // The driver records chunk by chunk, sweep by sweep within a chunk.
  for (std::size_t chain = 0; chain < kChains; ++chain)
    for (std::size_t s = 0; s < kSweeps; ++s) {
      const std::size_t at = (chain / kChunk) * kChunk * kSweeps + s * kChunk + chain % kChunk;
      ASSERT_EQ(delta[s * kChains + chain], stats.sample_delta[at])
          << "chain " << chain << " sweep " << s;
      ASSERT_EQ(level[s * kChains + chain], stats.sample_level[at])
          << "chain " << chain << " sweep " << s;
    }
  // Not a trivial agreement: chains visit more than one level.
  EXPECT_NE(*std::min_element(level.begin(), level.end()),
            *std::max_element(level.begin(), level.end()));
}

TEST(TemperingStep, WrongNumberOfLogZHatIsAnError) {
  const IsingModel model(3, 3, 1.0, 0.5);
  const SpinFlipMetropolis kernel(SiteOrder::random, 1);
  const TemperingLadder ladder(linear_schedule(3));
  auto state = tempering_init(model, 2, 0, ladder.size(), kSeed);
  const std::vector<double> too_few(ladder.size() - 1, 0.0);
  EXPECT_THROW(tempering_step(model, kernel, ladder, too_few, state, kSeed, 2,
                              [](const TemperingObservation&) {}),
               InvalidArgument);
}

}  // namespace
}  // namespace logz
