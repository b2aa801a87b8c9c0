// Drivers split over ranks (parallel/ranks.hpp), without MPI: R "ranks" are R threads of this
// process that gather through shared memory. The annealer (both directions, with end states for
// resampled starts), simulated tempering and parallel tempering must give the bits of one rank,
// each rank must run only its block of chunks, and a rank that fails must not leave the others
// waiting.
#include "logz/parallel/ranks.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <bit>
#include <functional>
#include <thread>
#include <vector>

#include "logz/anneal/anneal_journal.hpp"
#include "logz/anneal/annealer.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "logz/models/potts_field_path.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/smc/adaptive_smc.hpp"
#include "logz/smc/population_annealing.hpp"
#include "logz/smc/smc_journal.hpp"
#include "logz/tempering/parallel_tempering.hpp"
#include "logz/tempering/pt_journal.hpp"
#include "logz/tempering/simulated_tempering.hpp"
#include "support/keeping_smc_journal.hpp"

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

  // body(ranks, rank) on every rank, each on its own thread; a rank whose body throws reports
  // code 2 to the others' next collective, as the tool's main does.
  void run(const std::function<void(Ranks&, int)>& body) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        Rank rank(*this, r);
        try {
          body(rank, r);
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

// ranks, journal: nullptr for none.
AnnealOptions anneal_options(int threads, Ranks* ranks = nullptr,
                             AnnealJournal* journal = nullptr) {
  AnnealOptions o;
  o.ranks = ranks;
  o.journal = journal;
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
Phase anneal_both(int threads, Ranks* ranks = nullptr) {
  Phase p;
  AnnealOptions o = anneal_options(threads, ranks);
  o.progress = [&](std::size_t, std::size_t) {
    ++p.chunks_run;
  };  // one call per chunk this rank runs
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
  EXPECT_EQ(one.chunks_run, 16u);
  for (int size : {2, 3, 4}) {
    std::vector<Phase> ranks(size);
    InProcessWorld(size).run(
        [&](Ranks& world, int r) { ranks[r] = anneal_both(r % 2 + 1, &world); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(ranks[r].forward, one.forward);
      expect_same(ranks[r].reverse, one.reverse);
      EXPECT_EQ(ranks[r].final_states, one.final_states);
      // Each rank ran its own block only, in each direction (progress counts this rank's chunks).
      EXPECT_EQ(ranks[r].chunks_run, 2 * chunks_of_rank(8, r, size).size());
    }
  }
}

TEST(Ranks, TemperingOverRanksGivesTheBitsOfOneRank) {
  const TemperingLadder ladder(linear_schedule(6));
  auto temper = [&](int threads, Ranks* ranks) {
    TemperingOptions o;
    o.ranks = ranks;
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
  const TemperingStats one = temper(1, nullptr);
  for (int size : {2, 3, 5}) {
    std::vector<TemperingStats> ranks(size);
    InProcessWorld(size).run([&](Ranks& world, int r) { ranks[r] = temper(r % 2 + 1, &world); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      EXPECT_EQ(bits(ranks[r].log_c()), bits(one.log_c()));
      EXPECT_EQ(bits(ranks[r].sample_delta), bits(one.sample_delta));
      EXPECT_EQ(ranks[r].sample_chain, one.sample_chain);
      EXPECT_EQ(ranks[r].kernel_accepted, one.kernel_accepted);
      EXPECT_EQ(ranks[r].level_accepted, one.level_accepted);
      ASSERT_EQ(ranks[r].chains.size(), one.chains.size());
      for (std::size_t c = 0; c < one.chains.size(); ++c) {
        EXPECT_EQ(bits(ranks[r].chains[c].rb_delta_sq_sum), bits(one.chains[c].rb_delta_sq_sum))
            << c;
        EXPECT_EQ(bits(ranks[r].chains[c].q_scaled), bits(one.chains[c].q_scaled)) << c;
        EXPECT_EQ(ranks[r].chains[c].counts, one.chains[c].counts) << c;
      }
    }
  }
}

ParallelTemperingResult temper(int threads, Ranks* ranks, PtJournal* journal = nullptr) {
  ParallelTemperingOptions o;
  o.ranks = ranks;
  o.journal = journal;
  o.num_chains = 7;
  o.chunk_size = 2;
  o.rounds = 5;
  o.seed = 5;
  o.threads = threads;
  return parallel_tempering(kModel, pt_level_move(kModel, kKernel), o);
}

void expect_same(const ParallelTemperingResult& got, const ParallelTemperingResult& one) {
  ASSERT_EQ(got.rounds.size(), one.rounds.size());
  for (std::size_t i = 0; i < one.rounds.size(); ++i) {
    EXPECT_EQ(bits(got.rounds[i].schedule), bits(one.rounds[i].schedule)) << i;
    EXPECT_EQ(bits(got.rounds[i].rejection), bits(one.rounds[i].rejection)) << i;
    EXPECT_EQ(got.rounds[i].round_trips, one.rounds[i].round_trips) << i;
  }
  EXPECT_EQ(bits(got.stats.sample_delta), bits(one.stats.sample_delta));
  EXPECT_EQ(got.stats.sample_chain, one.stats.sample_chain);
  EXPECT_EQ(got.stats.level_accepted, one.stats.level_accepted);
  EXPECT_EQ(bits(got.swap_acceptance), bits(one.swap_acceptance));
  EXPECT_EQ(got.index_process, one.index_process);
  EXPECT_EQ(got.updates, one.updates);
  ASSERT_EQ(got.stats.chains.size(), one.stats.chains.size());
  for (std::size_t c = 0; c < one.stats.chains.size(); ++c)
    EXPECT_EQ(bits(got.stats.chains[c].delta_sum), bits(one.stats.chains[c].delta_sum)) << c;
}

// Parallel tempering's chunks split over ranks: the adapted ladders, the last round's samples,
// sums and index process are those of one process, on every rank.
TEST(Ranks, ParallelTemperingOverRanksGivesTheBitsOfOneRank) {
  const ParallelTemperingResult one = temper(1, nullptr);
  ASSERT_FALSE(one.index_process.empty());
  for (int size : {2, 3, 5}) {
    std::vector<ParallelTemperingResult> ranks(size);
    InProcessWorld(size).run([&](Ranks& world, int r) { ranks[r] = temper(r % 2 + 1, &world); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(ranks[r], one);
    }
  }
}

// A journal (tempering/pt_journal.hpp) that keeps every record a run hands it, or hands one back
// as the run to resume.
class KeepingPtJournal final : public PtJournal {
 public:
  KeepingPtJournal() = default;
  explicit KeepingPtJournal(PtRecord resume) : resume_(std::move(resume)), resuming_(true) {}
  const PtRecord* begin_pt(const PtShape&) override { return resuming_ ? &resume_ : nullptr; }
  bool wants_record() const override { return true; }
  void record(PtRecord record) override { kept.push_back(std::move(record)); }
  std::vector<PtRecord> kept;

 private:
  PtRecord resume_;
  bool resuming_ = false;
};

// Parallel tempering journaled between pieces of its rounds: the run is unchanged, every rank
// hands over the same records (every rank's chunks), and a record saved on some number of ranks
// resumes on any other number, and thread count, with the bits of an uninterrupted run: at the
// start, within a round, at a round's end and at the run's end.
TEST(Ranks, ParallelTemperingResumedFromAnyRecordOnAnyRankCountGivesTheSameBits) {
  const ParallelTemperingResult one = temper(1, nullptr);
  for (int size : {1, 3}) {
    std::vector<KeepingPtJournal> journals(size);
    std::vector<ParallelTemperingResult> journaled(size);
    InProcessWorld(size).run(
        [&](Ranks& world, int r) { journaled[r] = temper(r % 2 + 1, &world, &journals[r]); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "journaled, rank " << r << " of " << size);
      expect_same(journaled[r], one);
      ASSERT_EQ(journals[r].kept.size(), journals[0].kept.size());
      for (std::size_t i = 0; i < journals[r].kept.size(); ++i)
        EXPECT_EQ(journals[r].kept[i].chunks, journals[0].kept[i].chunks) << i;
    }
    const std::vector<PtRecord>& kept = journals[0].kept;
    ASSERT_GE(kept.size(), 6u) << "records within rounds";
    EXPECT_EQ(kept.front().scans_done, 0u);
    EXPECT_EQ(kept.back().round, 5u);
    EXPECT_EQ(kept.back().scans_done, 32u);
    // The first record, one inside the last round, the end of round 3 and the run's last.
    std::vector<const PtRecord*> picks = {&kept.front(), &kept.back()};
    for (const PtRecord& k : kept)
      if ((k.round == 5 && k.scans_done == 7) || (k.round == 3 && k.scans_done == 8))
        picks.push_back(&k);
    ASSERT_EQ(picks.size(), 4u) << "records 7 scans into round 5 and at round 3's end";
    for (const PtRecord* saved : picks)
      for (int resume_size : {1, 2}) {
        SCOPED_TRACE(testing::Message()
                     << size << " ranks saved round " << saved->round << ", " << saved->scans_done
                     << " scans, resumed on " << resume_size);
        std::vector<ParallelTemperingResult> resumed(resume_size);
        InProcessWorld(resume_size).run([&](Ranks& world, int r) {
          KeepingPtJournal journal(*saved);
          resumed[r] = temper(2 - r % 2, &world, &journal);
        });
        for (const ParallelTemperingResult& got : resumed) expect_same(got, one);
      }
  }
}

// Adaptive tempered SMC on a correlated Gaussian from N(0, I) in d = 4: 203 particles in 13
// chunks of 16, the last of 11.
SmcResult smc_run(int threads, Ranks* ranks, SmcJournal* journal = nullptr,
                  std::size_t waste_free_chain_length = 0) {
  Eigen::MatrixXd cov(4, 4);
  cov << 1.0, 0.6, 0.2, 0.0, 0.6, 2.0, 0.3, 0.1, 0.2, 0.3, 0.5, 0.0, 0.0, 0.1, 0.0, 1.5;
  const GeometricPath path(GaussianBase::isotropic(4, 3.0),
                           GaussianBase(Eigen::Vector4d(1.0, -2.0, 0.5, 0.0), cov));
  SmcOptions o;
  o.num_particles = waste_free_chain_length > 0 ? 400 : 203;
  o.waste_free_chain_length = waste_free_chain_length;
  o.seed = 13;
  o.threads = threads;
  o.ranks = ranks;
  o.journal = journal;
  return adaptive_smc(path, o);
}

void expect_same(const SmcResult& a, const SmcResult& b) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.log_z.log_z),
            std::bit_cast<std::uint64_t>(b.log_z.log_z));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.log_z.std_error),
            std::bit_cast<std::uint64_t>(b.log_z.std_error));
  EXPECT_EQ(bits(a.temperatures()), bits(b.temperatures()));
  EXPECT_EQ(a.particles, b.particles);
  EXPECT_EQ(a.eves, b.eves);
  EXPECT_EQ(a.energy_evaluations, b.energy_evaluations);
  EXPECT_EQ(a.gradient_evaluations, b.gradient_evaluations);
}

using test_support::KeepingSmcJournal;

// Each rank moves its block of particles and every rank ends with every particle: the bits of one
// rank, on 2, 3 and 5 ranks; a record saved on 3 ranks resumes on 1 and 2 with the same bits.
TEST(Ranks, SmcOverRanksGivesTheBitsOfOneRankAndResumesOnAnyRankCount) {
  const SmcResult one = smc_run(1, nullptr);
  ASSERT_GE(one.stages.size(), 4u);
  for (int size : {2, 3, 5}) {
    std::vector<SmcResult> got(size);
    std::vector<KeepingSmcJournal> journals(size);
    InProcessWorld(size).run(
        [&](Ranks& world, int r) { got[r] = smc_run(r % 2 + 1, &world, &journals[r]); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(got[r], one);
      ASSERT_EQ(journals[r].kept.size(), one.stages.size() + 1);
      for (std::size_t i = 0; i < journals[r].kept.size(); ++i)
        EXPECT_EQ(journals[r].kept[i].state, journals[0].kept[i].state) << i;
    }
    if (size != 3) continue;
    for (const std::size_t at : {std::size_t{0}, std::size_t{2}})
      for (int resume_size : {1, 2}) {
        SCOPED_TRACE(testing::Message() << "record " << at << " resumed on " << resume_size);
        std::vector<SmcResult> resumed(resume_size);
        InProcessWorld(resume_size).run([&](Ranks& world, int r) {
          KeepingSmcJournal journal(journals[0].kept[at]);
          resumed[r] = smc_run(2 - r % 2, &world, &journal);
        });
        for (const SmcResult& r : resumed) expect_same(r, one);
      }
  }
}

// Waste-free: 40 chains of 10 in chunks of 16, the states of each move shared after the moves.
TEST(Ranks, WasteFreeSmcOverRanksGivesTheBitsOfOneRank) {
  const SmcResult one = smc_run(1, nullptr, nullptr, 10);
  ASSERT_GE(one.stages.size(), 3u);
  for (int size : {2, 3}) {
    std::vector<SmcResult> got(size);
    InProcessWorld(size).run(
        [&](Ranks& world, int r) { got[r] = smc_run(r % 2 + 1, &world, nullptr, 10); });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(got[r], one);
    }
  }
}

// Population annealing of 203 replicas in chunks of 16 on a geometric path (the Ising model of
// the tests above) and on one that is not (the field path around the Potts transition).
template <class Path>
PopulationAnnealingResult population_run(const Path& path, int threads, Ranks* ranks,
                                         SmcJournal* journal = nullptr) {
  PopulationAnnealingOptions o;
  o.num_replicas = 203;
  o.chunk_size = 16;
  o.seed = 17;
  o.threads = threads;
  o.ranks = ranks;
  o.journal = journal;
  return population_annealing(path, HeatBath(SiteOrder::checkerboard, 1), o);
}

void expect_same(const PopulationAnnealingResult& a, const PopulationAnnealingResult& b) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.log_z.log_z),
            std::bit_cast<std::uint64_t>(b.log_z.log_z));
  EXPECT_EQ(bits(a.temperatures()), bits(b.temperatures()));
  EXPECT_EQ(bits(a.energies), bits(b.energies));
  EXPECT_EQ(bits(a.log_weights), bits(b.log_weights));
  EXPECT_EQ(a.families, b.families);
  EXPECT_EQ(a.updates, b.updates);
}

// Every rank steps its block of replicas and ends with every replica: the bits of one rank on 2,
// 3 and 5 ranks; records saved on 3 ranks (after the base draws, within the run, at its end)
// resume on 1 and 2 ranks with the same bits.
template <class Path>
void population_annealing_over_ranks(const Path& path) {
  const PopulationAnnealingResult one = population_run(path, 1, nullptr);
  ASSERT_GE(one.stages.size(), 4u);
  for (int size : {2, 3, 5}) {
    std::vector<PopulationAnnealingResult> got(size);
    std::vector<KeepingSmcJournal> journals(size);
    InProcessWorld(size).run([&](Ranks& world, int r) {
      got[r] = population_run(path, r % 2 + 1, &world, &journals[r]);
    });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(got[r], one);
      ASSERT_EQ(journals[r].kept.size(), one.stages.size() + 1);
      EXPECT_EQ(journals[r].kept.back().state, journals[0].kept.back().state);
    }
    if (size != 3) continue;
    for (const std::size_t at : {std::size_t{0}, std::size_t{2}, one.stages.size()})
      for (int resume_size : {1, 2}) {
        SCOPED_TRACE(testing::Message() << "record " << at << " resumed on " << resume_size);
        std::vector<PopulationAnnealingResult> resumed(resume_size);
        InProcessWorld(resume_size).run([&](Ranks& world, int r) {
          KeepingSmcJournal journal(journals[0].kept[at]);
          resumed[r] = population_run(path, 2 - r % 2, &world, &journal);
        });
        for (const PopulationAnnealingResult& r : resumed) expect_same(r, one);
      }
  }
  // A record of another run (cut short) is refused by every rank alike.
  KeepingSmcJournal first;
  population_run(path, 1, nullptr, &first);
  SmcRecord broken = first.kept[1];
  broken.state.resize(broken.state.size() - 3);
  for (int size : {1, 3}) {
    std::vector<int> refused(size, 0);
    InProcessWorld(size).run([&](Ranks& world, int r) {
      KeepingSmcJournal journal(broken);
      try {
        population_run(path, 1, &world, &journal);
      } catch (const InputError&) {
        refused[r] = 1;
      }
    });
    EXPECT_EQ(refused, std::vector<int>(size, 1)) << size << " ranks";
  }
}

TEST(Ranks, PopulationAnnealingOverRanksGivesTheBitsOfOneRankAndResumesOnAnyRankCount) {
  population_annealing_over_ranks(kModel);
  const PottsModel potts(3, 4, 10, 2.0, 1.0);
  population_annealing_over_ranks(PottsFieldPath(potts, 2.0));
}

// A record whose last chunk (the last rank's) does not restore: every rank refuses it with the
// same InputError, so that the tool prints one error line, not one rank's error and the others'
// RankFailed.
TEST(Ranks, AParallelTemperingRecordOneRankCannotRestoreIsRefusedByEveryRank) {
  KeepingPtJournal journal;
  temper(1, nullptr, &journal);
  ASSERT_FALSE(journal.kept.empty());
  PtRecord broken = journal.kept.back();
  broken.chunks.back().resize(broken.chunks.back().size() / 2);
  for (int size : {1, 3}) {
    std::vector<std::string> errors(size);
    InProcessWorld(size).run([&](Ranks& world, int r) {
      KeepingPtJournal resume(broken);
      try {
        temper(1, &world, &resume);
      } catch (const InputError& e) {
        errors[r] = e.what();
      }
    });
    for (int r = 0; r < size; ++r)
      EXPECT_NE(errors[r].find("do not fit"), std::string::npos) << "rank " << r << " of " << size;
  }
}

// A journal (anneal/anneal_journal.hpp) that keeps the phase as it stood after every merge, or
// hands a record back as the phase to resume.
class KeepingJournal final : public AnnealJournal {
 public:
  KeepingJournal() = default;
  explicit KeepingJournal(AnnealPhaseRecord resume) : resume_(std::move(resume)), resuming_(true) {}
  const AnnealPhaseRecord* begin_phase(const AnnealPhaseShape&, bool) override {
    return resuming_ ? &resume_ : nullptr;
  }
  void merged(const AnnealPhaseView& view) override { kept.push_back(AnnealPhaseRecord::of(view)); }
  void end_phase(const AnnealPhaseView& view) override { ended = AnnealPhaseRecord::of(view); }
  std::vector<AnnealPhaseRecord> kept;
  AnnealPhaseRecord ended;

 private:
  AnnealPhaseRecord resume_;
  bool resuming_ = false;
};

bool same_record(const AnnealPhaseRecord& a, const AnnealPhaseRecord& b) {
  return a.shape == b.shape && a.chunks_done == b.chunks_done && bits(a.works) == bits(b.works) &&
         bits(a.energy_sum) == bits(b.energy_sum) && a.attempted == b.attempted &&
         a.accepted == b.accepted;
}

// Checkpointed runs over ranks (docs/scaling.md#checkpoints): a journaled phase runs in waves
// whose merged chunks are a prefix of the phase, with the sums one rank has after as many chunks;
// a record saved by some number of ranks resumes on any other number with the bits of one rank.
TEST(Ranks, JournaledAnnealingMergesPrefixesAndResumesOnAnotherRankCount) {
  std::vector<AnnealPhaseRecord> serial;  // after each chunk, on one rank
  Works whole;
  {
    KeepingJournal journal;
    whole =
        anneal_forward(kModel, kKernel, linear_schedule(30), anneal_options(1, nullptr, &journal));
    serial = journal.kept;
  }
  ASSERT_EQ(serial.size(), 8u);
  for (int size : {2, 3}) {
    std::vector<KeepingJournal> journals(size);
    std::vector<Works> works(size);
    InProcessWorld(size).run([&](Ranks& world, int r) {
      const AnnealOptions o = anneal_options(r % 2 + 1, &world, &journals[r]);
      works[r] = anneal_forward(kModel, kKernel, linear_schedule(30), o);
    });
    for (int r = 0; r < size; ++r) {
      SCOPED_TRACE(testing::Message() << "rank " << r << " of " << size);
      expect_same(works[r], whole);
      ASSERT_GE(journals[r].kept.size(), 2u) << "more than one wave";
      for (const AnnealPhaseRecord& k : journals[r].kept) {
        ASSERT_GE(k.chunks_done, 1u);
        EXPECT_TRUE(same_record(k, serial[k.chunks_done - 1]))
            << "after " << k.chunks_done << " chunks";
      }
      EXPECT_TRUE(journals[r].ended.complete());
    }
    // End states (for resampled reverse starts) cross ranks wave by wave too.
    std::vector<std::vector<std::string>> finals(size);
    InProcessWorld(size).run([&](Ranks& world, int r) {
      KeepingJournal journal;
      std::vector<SpinBatch> batches;
      expect_same(anneal_forward(kModel, kKernel, linear_schedule(30),
                                 anneal_options(r % 2 + 1, &world, &journal), &batches),
                  whole);
      for (const SpinBatch& b : batches) finals[r].push_back(batch_state_bytes(b));
    });
    const std::vector<std::string> one_rank_finals = anneal_both(1).final_states;
    for (int r = 0; r < size; ++r) EXPECT_EQ(finals[r], one_rank_finals) << "rank " << r;
    // Resumed from what one rank had after 3 chunks, and from what these ranks had after their
    // first wave, on 1, 2 and 3 ranks.
    for (const AnnealPhaseRecord& saved : {serial[2], journals[0].kept.front()})
      for (int resume_size : {1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << size << " ranks saved " << saved.chunks_done
                                        << " chunks, resumed on " << resume_size);
        std::vector<Works> resumed(resume_size);
        InProcessWorld(resume_size).run([&](Ranks& world, int r) {
          KeepingJournal journal(saved);
          resumed[r] = anneal_forward(kModel, kKernel, linear_schedule(30),
                                      anneal_options(1, &world, &journal));
        });
        for (const Works& w : resumed) expect_same(w, whole);
      }
  }
}

// Tempering records over ranks: chains() and whole_run() gather every rank's part, and a
// tempering restored from them on another number of ranks (own_part) continues with the bits
// of one rank.
TEST(Ranks, TemperingChainsSavedOnSomeRanksContinueOnOthers) {
  const TemperingLadder ladder(linear_schedule(6));
  TemperingOptions o;
  o.num_chains = 11;
  o.chunk_size = 2;
  o.seed = 5;
  o.record_samples = true;
  const std::vector<double> log_z_hat(ladder.size(), 0.0);
  struct Saved {
    TemperingChains chains;
    TemperingRun run;
  };
  // 4 of 10 sweeps, then a record.
  auto start = [&](int threads, Ranks* ranks) {
    TemperingOptions with = o;
    with.threads = threads;
    with.ranks = ranks;
    SimulatedTempering t(kModel, kKernel, ladder, with);
    TemperingRun r = t.begin_run(10);
    t.continue_run(r, 4, log_z_hat);
    return Saved{t.chains(), t.whole_run(r)};
  };
  auto finish = [&](const Saved& saved, int threads, Ranks* ranks) {
    TemperingOptions with = o;
    with.threads = threads;
    with.ranks = ranks;
    SimulatedTempering t(kModel, kKernel, ladder, with);
    EXPECT_TRUE(t.restore(saved.chains));
    TemperingRun r = t.own_part(saved.run);
    t.continue_run(r, 10, log_z_hat);
    return t.finish_run(std::move(r));
  };
  const Saved one = start(1, nullptr);
  const TemperingStats whole = finish(one, 2, nullptr);
  for (int size : {2, 3}) {
    std::vector<Saved> saved(size);
    InProcessWorld(size).run([&](Ranks& world, int r) { saved[r] = start(r % 2 + 1, &world); });
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(saved[r].chains.level, one.chains.level);
      EXPECT_EQ(saved[r].chains.chunk_states, one.chains.chunk_states);
      EXPECT_EQ(saved[r].chains.next_step, one.chains.next_step);
      EXPECT_EQ(saved[r].run.chunks.size(), one.run.chunks.size());
    }
    for (int resume_size : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message()
                   << "saved on " << size << " ranks, resumed on " << resume_size);
      std::vector<TemperingStats> stats(resume_size);
      InProcessWorld(resume_size).run([&](Ranks& world, int r) {
        stats[r] = finish(saved[0], 1, &world);
      });
      for (const TemperingStats& s : stats) {
        EXPECT_EQ(bits(s.log_c()), bits(whole.log_c()));
        EXPECT_EQ(bits(s.sample_delta), bits(whole.sample_delta));
        EXPECT_EQ(s.sample_chain, whole.sample_chain);
        EXPECT_EQ(s.kernel_accepted, whole.kernel_accepted);
        EXPECT_EQ(s.level_accepted, whole.level_accepted);
      }
    }
  }
}

TEST(Ranks, AFailedRankStopsTheOthersAtTheirNextCollective) {
  std::vector<int> failed_rank(3, -1);
  InProcessWorld(3).run([&](Ranks& world, int r) {
    if (r == 1) throw InputError("bad.npz: not a zip archive");
    try {
      anneal_forward(kModel, kKernel, linear_schedule(10), anneal_options(1, &world));
    } catch (const RankFailed& e) {
      failed_rank[r] = e.rank;
      EXPECT_EQ(e.code, 2);
    }
  });
  EXPECT_EQ(failed_rank[0], 1);
  EXPECT_EQ(failed_rank[2], 1);
}

// The ranks reach a driver only through its options: one given none, as the drivers nested in
// a chunk body are, runs every chunk itself and talks to no other rank, inside a world too.
TEST(Ranks, ADriverGivenNoRanksRunsAloneInsideAWorld) {
  const Phase one = anneal_both(1);
  std::vector<Phase> alone(2);
  InProcessWorld(2).run([&](Ranks&, int r) { alone[r] = anneal_both(r + 1); });
  for (const Phase& p : alone) {
    EXPECT_EQ(p.chunks_run, one.chunks_run) << "every chunk of both directions on this rank";
    expect_same(p.forward, one.forward);
    expect_same(p.reverse, one.reverse);
  }
}

}  // namespace
}  // namespace logz
