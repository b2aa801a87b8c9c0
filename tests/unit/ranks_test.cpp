// Drivers split over ranks (parallel/ranks.hpp), without MPI: R "ranks" are R threads of this
// process that gather through shared memory. The annealer (both directions, with end states for
// resampled starts) and simulated tempering must give the bits of one rank, each rank must run
// only its block of chunks, and a rank that fails must not leave the others waiting.
#include "logz/parallel/ranks.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <bit>
#include <functional>
#include <thread>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {
namespace {

// The ranks of one in-process run: every collective meets at a barrier of all R threads.
class InProcessWorld {
 public:
  explicit InProcessWorld(int size) : size_(size), slots_(size), codes_(size), barrier_(size) {}

  class Rank final : public Ranks {
   public:
    Rank(InProcessWorld& world, int rank) : world_(world), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return world_.size_; }
    std::vector<std::string> all_gather(std::string_view mine) override {
      if (const RankStatus s = agree(0); s.failed()) throw RankFailed(s.rank, s.code);
      world_.slots_[rank_].assign(mine);
      world_.barrier_.arrive_and_wait();
      std::vector<std::string> all = world_.slots_;
      world_.barrier_.arrive_and_wait();  // nobody writes a slot before everyone has read them
      return all;
    }
    RankStatus agree(int code) override {
      world_.codes_[rank_] = code;
      world_.barrier_.arrive_and_wait();
      RankStatus s;
      for (int r = 0; r < world_.size_; ++r)
        if (world_.codes_[r] != 0) {
          s = {r, world_.codes_[r]};
          break;
        }
      world_.barrier_.arrive_and_wait();
      return s;
    }

   private:
    InProcessWorld& world_;
    int rank_;
  };

  // body(rank) on every rank, each on its own thread with its Ranks installed; a rank whose body
  // throws reports code 2 to the others' next collective, as the tool's main does.
  void run(const std::function<void(int)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        Rank rank(*this, r);
        const ScopedRanks scoped(&rank);
        try {
          body(r);
        } catch (const RankFailed& e) {
          ADD_FAILURE() << "rank " << r << ": " << e.what();
        } catch (...) {
          rank.agree(2);
        }
      });
    for (auto& t : threads) t.join();
  }

 private:
  int size_;
  std::vector<std::string> slots_;
  std::vector<int> codes_;
  std::barrier<> barrier_;
};

std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(std::bit_cast<std::uint64_t>(x));
  return out;
}

const IsingModel kModel(5, 5, 1.0, 0.6);
const SpinFlipMetropolis kKernel(SiteOrder::random, 25);

AnnealOptions anneal_options(int threads) {
  AnnealOptions o;
  o.num_paths = 23;  // 8 chunks of 3, the last of 2
  o.chunk_size = 3;
  o.seed = 11;
  o.threads = threads;
  return o;
}

struct Phase {
  Works forward, reverse;
  std::vector<std::string> final_states;
  std::size_t chunks_run = 0;
};

// Forward with end states, then reverse from them (as resampled starts use them).
Phase anneal_both(int threads) {
  Phase p;
  AnnealOptions o = anneal_options(threads);
  o.progress = [&](std::size_t, std::size_t total) { p.chunks_run = total; };
  std::vector<SpinBatch> finals;
  p.forward = anneal_forward(kModel, kKernel, linear_schedule(30), o, &finals);
  for (const SpinBatch& b : finals) p.final_states.push_back(batch_state_bytes(b));
  auto start = [&](SpinBatch& batch, const ChunkStreams& streams) {
    const ChunkRange& c = streams.range();
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::size_t src = (c.begin + i * 7) % o.num_paths;  // paths of other chunks (and ranks)
      batch.copy_particle(finals[src / o.chunk_size], src % o.chunk_size, i);
    }
  };
  p.reverse = anneal_reverse(kModel, kKernel, linear_schedule(30), start, o);
  return p;
}

void expect_same(const Works& a, const Works& b) {
  EXPECT_EQ(bits(a.works), bits(b.works));
  EXPECT_EQ(bits(a.mean_energy), bits(b.mean_energy));
  EXPECT_EQ(bits(a.acceptance), bits(b.acceptance));
}

TEST(Ranks, BlocksCoverEveryChunkOnceInRankOrder) {
  for (std::size_t chunks : {0u, 1u, 5u, 8u, 13u})
    for (int size : {1, 2, 3, 4, 7}) {
      std::size_t next = 0, smallest = chunks, largest = 0;
      for (int r = 0; r < size; ++r) {
        const ChunkBlock b = chunks_of_rank(chunks, r, size);
        EXPECT_EQ(b.first, next) << chunks << " chunks, rank " << r << " of " << size;
        next = b.last;
        smallest = std::min(smallest, b.size());
        largest = std::max(largest, b.size());
      }
      EXPECT_EQ(next, chunks);
      EXPECT_LE(largest - std::min(smallest, largest), 1u);
    }
  EXPECT_THROW(chunks_of_rank(4, 2, 2), InvalidArgument);
}

TEST(Ranks, AnnealingOverRanksGivesTheBitsOfOneRank) {
  const Phase one = anneal_both(1);
  EXPECT_EQ(one.chunks_run, 8u);
  for (int size : {2, 3, 4}) {
    std::vector<Phase> ranks(size);
    InProcessWorld(size).run([&](int r) { ranks[r] = anneal_both(r % 2 + 1); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(ranks[r].forward, one.forward);
      expect_same(ranks[r].reverse, one.reverse);
      EXPECT_EQ(ranks[r].final_states, one.final_states);
      // Each rank ran its own block only (progress counts this rank's chunks).
      EXPECT_EQ(ranks[r].chunks_run, chunks_of_rank(8, r, size).size());
    }
  }
}

TEST(Ranks, TemperingOverRanksGivesTheBitsOfOneRank) {
  const TemperingLadder ladder(linear_schedule(6));
  auto temper = [&](int threads) {
    TemperingOptions o;
    o.num_chains = 11;
    o.chunk_size = 2;
    o.seed = 7;
    o.threads = threads;
    o.record_samples = true;
    SimulatedTempering t(kModel, kKernel, ladder, o);
    std::vector<double> log_z_hat(ladder.size(), 0.0);
    t.run(5, log_z_hat);
    t.redraw_levels_uniform();
    return t.run(10, log_z_hat);
  };
  const TemperingStats one = temper(1);
  for (int size : {2, 3, 5}) {
    std::vector<TemperingStats> ranks(size);
    InProcessWorld(size).run([&](int r) { ranks[r] = temper(r % 2 + 1); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      EXPECT_EQ(bits(ranks[r].log_c()), bits(one.log_c()));
      EXPECT_EQ(bits(ranks[r].sample_delta), bits(one.sample_delta));
      EXPECT_EQ(ranks[r].sample_chain, one.sample_chain);
      EXPECT_EQ(ranks[r].kernel_accepted, one.kernel_accepted);
      ASSERT_EQ(ranks[r].chains.size(), one.chains.size());
      for (std::size_t c = 0; c < one.chains.size(); ++c) {
        EXPECT_EQ(bits(ranks[r].chains[c].rb_delta_sq_sum), bits(one.chains[c].rb_delta_sq_sum)) << c;
        EXPECT_EQ(bits(ranks[r].chains[c].q_scaled), bits(one.chains[c].q_scaled)) << c;
        EXPECT_EQ(ranks[r].chains[c].counts, one.chains[c].counts) << c;
      }
    }
  }
}

TEST(Ranks, AFailedRankStopsTheOthersAtTheirNextCollective) {
  std::vector<int> failed_rank(3, -1);
  InProcessWorld(3).run([&](int r) {
    if (r == 1) throw InputError("bad.npz: not a zip archive");
    try {
      anneal_forward(kModel, kKernel, linear_schedule(10), anneal_options(1));
    } catch (const RankFailed& e) {
      failed_rank[r] = e.rank;
      EXPECT_EQ(e.code, 2);
    }
  });
  EXPECT_EQ(failed_rank[0], 1);
  EXPECT_EQ(failed_rank[2], 1);
}

TEST(Ranks, DriversNestedInAChunkRunOnOneRank) {
  InProcessWorld(2).run([&](int) {
    EXPECT_EQ(current_ranks().size(), 2);
    run_chunks(4, 1, 2, [](const ChunkRange&) {
      EXPECT_EQ(current_ranks().size(), 1);
      return 0;
    });
  });
  EXPECT_EQ(current_ranks().size(), 1);
}

}  // namespace
}  // namespace logz
