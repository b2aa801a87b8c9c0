// Parallel tempering (replica exchange; Geyer 1991) with the non-reversible swaps and the
// round-based adaptive schedule of Syed, Bouchard-Cote, Deligiannidis & Doucet (2021, JRSS-B),
// as Pigeons.jl runs it, on a tempering path (core/tempering_path.hpp: geometric, U_t = U_0 + t g
// with g = U_1 - U_0, or one that gives every level's energy, the RBM's marginal path) with the
// annealing kernels (core/kernel_for.hpp):
//   - num_chains independent PT runs ("chains"), each of N + 1 replicas at path fractions
//     0 = t_0 < ... < t_N = 1. A scan moves every replica with the kernel at its t_k, then
//     proposes to swap the states of adjacent replicas, accepted with probability
//     alpha_k = min(1, exp(U_k(x) + U_{k+1}(y) - U_k(y) - U_{k+1}(x))) (x at t_k, y at t_{k+1};
//     on a geometric path exp((t_{k+1} - t_k) (g(y) - g(x))));
//   - non-reversible swaps (deterministic even-odd, DEO: the pairs (0,1), (2,3), ... on even
//     scans, (1,2), (3,4), ... on odd ones), under which a state's index travels ballistically, or
//     reversible ones (stochastic even-odd, SEO: a fair coin picks the parity of every scan);
//   - rounds r = 1..R of 2^r scans. After each, the expected rejection r_k = mean(1 - alpha_k) of
//     every pair (averaged over all scans, swapped or not) estimates the local barrier; the
//     cumulative barrier Lambda(t_k) = sum_{j<k} r_j, interpolated linearly, places the next
//     round's fractions at equal increments of Lambda = Lambda(1); with num_replicas = 0 the next
//     round also takes max(kMinAutoReplicas, ceil(2 Lambda) + 1) replicas (Syed et al.'s advice,
//     N about 2 Lambda), its states copied from the nearest fraction of the last round;
//   - the last round's samples, g (or every level's energy) of every replica after every scan, go
//     into TemperingStats
//     (tempering/tempering_stats.hpp) for the tempered estimators (stepping stone, TI, MBAR),
//     as pseudo-chains (chain, block of consecutive scans) whose delete-a-group jackknife gives
//     the error bars;
//   - diagnostics: Lambda, the profile lambda(t) = r_k / (t_{k+1} - t_k), the swap acceptance of
//     every pair, the round trips (a state's index going 0 -> N -> 0) and their rate per scan
//     and chain, beside the rate Syed et al. predict from the r_k,
//     1 / (2 + 2 sum r_k / (1 - r_k)) (DEO) or 1 / (2N + 2 sum r_k / (1 - r_k)) (SEO), and
//     DEO's limit 1 / (2 + 2 Lambda) for many replicas.
//
// Reproducible for any thread and rank count: chains live in fixed chunks (chunk_size chains, one
// batch per level), run a round (or a piece of its scans) each on one thread; replica k of chain
// c draws from its own Philox streams: the kernel at scan s from (pt_kernel, step s) of particle
// k C + c (C chains), its start from (pt_start, 0); chain c's swaps at scan s from (pt_swap,
// step s) of particle c; every sum is merged in chunk order. Under several ranks
// (parallel/ranks.hpp) each holds a block of chunks, and after every round each chunk's sums (the
// last round's samples too) go to every rank, which merges them in chunk order: the ladder, the
// samples and the estimates are the bits of one process. Replicas of a chain never cross ranks, so
// a scan exchanges nothing.
//
// Checkpoints (options.journal, pt_journal.hpp): with a journal a round runs in pieces of scans,
// after which the journal may take the run's record (every chunk's replicas and sums so far,
// gathered from every rank); a run resumed from it, on any number of threads and ranks, gives the
// bits of an uninterrupted one.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logz/core/batch_state.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/chunk_range.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/random/philox.hpp"
#include "logz/tempering/pt_journal.hpp"
#include "logz/tempering/tempering_stats.hpp"

namespace logz {

LOGZ_NAMED_ENUM(SwapScheme, nonreversible, reversible);

// The fewest replicas an automatic choice takes.
inline constexpr std::size_t kMinAutoReplicas = 8;
// The last round's first scans whose index process (chain 0's) the result keeps.
inline constexpr std::size_t kIndexProcessScans = 500;

struct ParallelTemperingOptions {
  // Replicas per chain, both ends included (>= 2); 0: chosen after every round from Lambda,
  // starting from initial_replicas, at most max_replicas.
  std::size_t num_replicas = 0;
  std::size_t initial_replicas = 10;
  std::size_t max_replicas = 512;
  std::size_t rounds = 10;      // round r has 2^r scans; the last one's samples give the estimates
  std::size_t num_chains = 20;  // independent PT runs, whose spread the error bars measure
  // Blocks of consecutive scans per chain in the last round: the jackknife's pseudo-chains.
  std::size_t blocks_per_chain = 1;
  SwapScheme scheme = SwapScheme::nonreversible;
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;             // 0: every hardware thread
  std::size_t chunk_size = 1;  // chains per chunk (one batch per level; fixes the sums' order)
  Ranks* ranks = nullptr;      // the ranks the chunks are split over; nullptr: this process alone
  // Positions of the target replica (t = 1) kept from the last round, about this many at most:
  // every chain's after every k-th scan, k = ceil(scans x chains / target_samples); on paths whose
  // batches hold positions X (d x P: the continuous models and a Python Target); 0: none.
  std::size_t target_samples = 0;
  // The most bytes the last round's samples may take (0: no bound): with num_replicas = 0 the
  // last ladder then takes no more replicas than fit (ParallelTemperingResult::capped_by_memory).
  double max_sample_bytes = 0.0;
  // Where the run's record goes between pieces of a round, and comes back from on resume
  // (pt_journal.hpp); nullptr: none. A journal needs a batch that can be saved
  // (core/batch_state.hpp).
  PtJournal* journal = nullptr;
  // Called after every round: (round, rounds).
  std::function<void(std::size_t, std::size_t)> progress;
  StopToken stop;  // the run stops (logz::Stopped) within a scan once it is requested
};

// InvalidArgument naming the first field out of range.
void validate(const ParallelTemperingOptions& options);

struct ParallelTemperingResult {
  std::vector<PtRound> rounds;  // the last one's samples are in stats
  // The last round: swaps accepted / attempted per pair, and the scans' samples and the kernel's
  // acceptance per level (chains: chain c's block b is pseudo-chain c B + b).
  std::vector<double> swap_acceptance;
  TemperingStats stats;
  // Chain 0's index process over the last round's first min(scans, kIndexProcessScans) scans:
  // the level of every state (numbered by its level when the round began) after every scan,
  // scan-major (N + 1 per scan).
  std::vector<std::uint32_t> index_process;
  // options.target_samples: the kept positions of the target replica, one row of `dim` each
  // (chunk order, then scan, then chain).
  std::vector<double> target_positions;
  std::size_t dim = 0;
  bool capped_by_memory = false;  // the last ladder took fewer replicas than Lambda asked for
  std::uint64_t updates = 0;      // the kernel's attempted updates over all rounds
  std::uint64_t non_finite = 0;   // replica-scans whose g was NaN or infinite
  double base_log_z = kNaN;

  const PtRound& last() const { return rounds.back(); }
  // The last round's round trips per scan and chain, Syed et al.'s prediction from its r_k for
  // the scheme, and DEO's limit 1 / (2 + 2 Lambda).
  double round_trip_rate(std::size_t num_chains) const;
  double predicted_round_trip_rate(SwapScheme scheme) const;
  double limit_round_trip_rate() const;
  // lambda(t) at the midpoints of the last round's pairs: r_k / (t_{k+1} - t_k).
  std::vector<double> barrier_profile() const;
};

namespace detail {

// The fractions at equal increments of the cumulative barrier sum_{j<k} rejection[j] over
// `schedule`, interpolated linearly: num_levels of them, from 0 to 1; `schedule` itself
// resampled linearly in k when every rejection is 0.
std::vector<double> equal_barrier_schedule(std::span<const double> schedule,
                                           std::span<const double> rejection,
                                           std::size_t num_levels);
// The first round's fractions: linear, num_replicas (or initial_replicas) of them.
std::vector<double> initial_schedule(const ParallelTemperingOptions& options);
// The replicas of the next round: `options.num_replicas`, or the automatic choice from Lambda.
std::size_t next_num_replicas(const ParallelTemperingOptions& options, double global_barrier);
// The bytes the last round's samples take: `replicas` per chain over `scans`, each sample a g,
// a level and a chain (16 bytes) and, on a path with level energies, every level's energy.
double last_round_sample_bytes(const ParallelTemperingOptions& options, std::size_t replicas,
                               std::size_t scans, bool level_energies);
// Which old level each new fraction copies its state from: the nearest old fraction.
std::vector<std::size_t> nearest_levels(std::span<const double> from, std::span<const double> to);

// A round's per-chunk sums, merged in chunk order.
struct PtRoundSums {
  std::vector<double> rejection_sum;  // per pair
  std::vector<std::uint64_t> swaps_attempted, swaps_accepted;
  std::vector<std::uint64_t> level_attempted, level_accepted;
  std::uint64_t round_trips = 0, non_finite = 0;
  std::vector<ChainTemperingStats> chains;  // the last round's pseudo-chains
  std::vector<double> sample_delta, sample_energies;
  std::vector<std::uint32_t> sample_level, sample_chain;
  std::vector<std::uint32_t> index_process;  // ParallelTemperingResult's (chain 0's chunk only)
  std::vector<double> target_positions;      // ParallelTemperingResult's

  explicit PtRoundSums(std::size_t levels = 0);
  void merge(PtRoundSums&& other);
  // As bytes (parallel/bytes.hpp) and back, for the chunks' sums that cross ranks.
  void append_to(std::string& out) const;
  static PtRoundSums read(ByteReader& in, std::size_t levels);
};

// Every rank's chunks' sums (`mine`: this rank's, appended in chunk order) merged in rank and
// chunk order, on every rank (a collective).
PtRoundSums gather_round_sums(Ranks& ranks, const std::string& mine, std::size_t levels);

// Round trips: each state carries where it last was, an end of the ladder or neither.
enum class PtEnd : std::uint8_t { none, bottom, top };

}  // namespace detail

// The kernel's move of one level's batch at path fraction t, type-erased so that the driver is
// compiled once per path (as tempering's ChainMoves).
template <class Path>
using PtLevelMove =
    std::function<KernelInfo(double t, typename Path::Batch&, const BatchRandom&, StopToken)>;

template <class Path, class Kernel>
PtLevelMove<Path> pt_level_move(const Path& path, const Kernel& kernel) {
  return [&path, &kernel](double t, typename Path::Batch& batch, const BatchRandom& random,
                          StopToken stop) {
    const auto info = step_kernel(kernel, path.at(t), batch, random, stop);
    return KernelInfo{static_cast<std::uint64_t>(info.attempted),
                      static_cast<std::uint64_t>(info.accepted)};
  };
}

namespace detail {

// One chunk of chains: a batch per level (particle p is chain begin + p), every replica's
// energies, the index of the state (which start it came from) and where each state last was.
// The energies: on a geometric path g = U_1 - U_0 (one per replica: e[k][p]); on a path with level
// energies U_{t_j} - U_{t_0} at every fraction of the ladder (e[k][p K + j]) and, in the last
// round, the slopes -dU_t/dt at t_j (slope[k], the same layout).
template <class Batch>
struct PtChunk {
  std::vector<Batch> levels;
  std::vector<std::vector<double>> e, slope;
  std::vector<std::vector<std::uint32_t>> state;  // state[k][p]: the state at level k
  std::vector<std::vector<PtEnd>> end;            // end[p][state]
};

// A chunk and its sums of the round so far as bytes (PtRecord::chunks), and back into a chunk of
// n chains over `levels` levels made by make_batch(n): false, when the bytes are not such a
// chunk's.
template <class Batch>
std::string pt_chunk_bytes(const PtChunk<Batch>& c, const PtRoundSums& sums) {
  std::string out;
  const std::uint64_t n = c.state.empty() ? 0 : c.state[0].size();
  append_bytes<std::uint64_t>(out, std::span<const std::uint64_t>(&n, 1));
  for (std::size_t k = 0; k < c.levels.size(); ++k) {
    append_blob(out, batch_state_bytes(c.levels[k]));
    for (const auto* v : {&c.e[k], &c.slope[k]}) {
      const std::uint64_t size = v->size();
      append_bytes<std::uint64_t>(out, std::span<const std::uint64_t>(&size, 1));
      append_bytes<double>(out, *v);
    }
    append_bytes<std::uint32_t>(out, c.state[k]);
  }
  for (const auto& ends : c.end) append_bytes<PtEnd>(out, ends);
  sums.append_to(out);
  return out;
}

template <class Batch, class MakeBatch>
bool restore_pt_chunk(std::string_view bytes, std::size_t n, std::size_t levels,
                      const MakeBatch& make_batch, PtChunk<Batch>& c, PtRoundSums& sums) {
  try {
    ByteReader in(bytes);
    std::uint64_t saved_n = 0;
    in.read<std::uint64_t>(std::span<std::uint64_t>(&saved_n, 1));
    if (saved_n != n) return false;
    c.levels.clear();
    c.e.assign(levels, {});
    c.slope.assign(levels, {});
    c.state.assign(levels, std::vector<std::uint32_t>(n));
    for (std::size_t k = 0; k < levels; ++k) {
      c.levels.push_back(make_batch(n));
      if (!restore_batch_state(c.levels[k], in.blob())) return false;
      for (auto* v : {&c.e[k], &c.slope[k]}) {
        std::uint64_t size = 0;
        in.read<std::uint64_t>(std::span<std::uint64_t>(&size, 1));
        v->resize(in.count(size, 8));
        in.read<double>(*v);
      }
      in.read<std::uint32_t>(c.state[k]);
      for (std::uint32_t s : c.state[k])
        if (s >= levels) return false;
    }
    c.end.assign(n, std::vector<PtEnd>(levels));
    for (auto& ends : c.end) {
      in.read<PtEnd>(ends);
      for (PtEnd e : ends)
        if (e > PtEnd::top) return false;
    }
    sums = PtRoundSums::read(in, levels);
    return in.done();
  } catch (const InvalidArgument&) {  // bytes that end early or count more than they hold
    return false;
  }
}

}  // namespace detail

template <class Path>
requires(is_geometric_path<Path> || uses_level_energies<Path>) ParallelTemperingResult
    parallel_tempering(const Path& path, const PtLevelMove<Path>& move,
                       const ParallelTemperingOptions& options) {
  using Batch = typename Path::Batch;
  using detail::PtEnd;
  using Clock = std::chrono::steady_clock;
  validate(options);
  constexpr bool checkpointable = CheckpointableBatch<Batch>;
  PtJournal* const journal = options.journal;
  if (!checkpointable && journal)
    fail_argument("logz::parallel_tempering", "journal",
                  "a batch with for_each_state_array (core/batch_state.hpp)");
  const std::size_t chains = options.num_chains, chunk = options.chunk_size;
  const std::uint64_t seed = options.seed;
  ParallelTemperingResult r;
  if constexpr (requires { path.base_log_z(); }) r.base_log_z = path.base_log_z();

  // This rank's block of chunks, their chains and their states (state[chunk - block.first]).
  Ranks& ranks = ranks_or_single(options.ranks);
  const std::size_t all_chunks = num_chunks(chains, chunk);
  const ChunkBlock block = chunks_of_rank(all_chunks, ranks.rank(), ranks.size());
  const ChunkRange my_chains = items_of_block(block, chains, chunk);
  auto for_my_chunks = [&](auto&& body) {
    run_chunks(
        my_chains.size(), chunk, options.threads,
        [&](const ChunkRange& local) { body(in_whole_run(local, my_chains)); }, {}, options.stop);
  };
  std::vector<double> schedule = detail::initial_schedule(options);
  std::vector<detail::PtChunk<Batch>> state(block.size());
  // Every chunk's sums of the round under way.
  std::vector<detail::PtRoundSums> part(block.size());

  constexpr bool geometric = is_geometric_path<Path>;
  // The energies of level k's batch (slopes too when asked); the count of non-finite values.
  auto measure = [&](detail::PtChunk<Batch>& c, std::size_t k, bool slopes) {
    const std::size_t n = c.levels[k].num_particles();
    if constexpr (geometric) {
      c.e[k].resize(n);
      path.work_increment(0.0, 1.0, c.levels[k], std::span<double>(c.e[k]));
    } else if (slopes || !LevelEnergiesOnlyPath<Path>) {
      path.level_energies(schedule, c.levels[k], c.e[k], c.slope[k]);
    } else {
      path.level_energies(schedule, c.levels[k], c.e[k]);
    }
    std::uint64_t bad = 0;
    for (double v : c.e[k]) bad += !std::isfinite(v);
    return bad;
  };
  // log of the swap's acceptance ratio for chain p's replicas at levels k and k + 1.
  auto log_swap_ratio = [&](const detail::PtChunk<Batch>& c, std::size_t k, std::size_t p) {
    if constexpr (geometric) {
      return (schedule[k + 1] - schedule[k]) * (c.e[k + 1][p] - c.e[k][p]);
    } else {
      const std::size_t m = schedule.size();
      const double* x = &c.e[k][p * m];
      const double* y = &c.e[k + 1][p * m];
      return (y[k + 1] - y[k]) - (x[k + 1] - x[k]);
    }
  };
  // Chain p's energies at levels k and k + 1 exchanged, with their states.
  auto swap_energies = [&](detail::PtChunk<Batch>& c, std::size_t k, std::size_t p) {
    if constexpr (geometric) {
      std::swap(c.e[k][p], c.e[k + 1][p]);
    } else {
      const std::size_t m = schedule.size();
      std::swap_ranges(c.e[k].begin() + p * m, c.e[k].begin() + (p + 1) * m,
                       c.e[k + 1].begin() + p * m);
      if (c.slope[k].size() == c.e[k].size() && c.slope[k + 1].size() == c.e[k + 1].size())
        std::swap_ranges(c.slope[k].begin() + p * m, c.slope[k].begin() + (p + 1) * m,
                         c.slope[k + 1].begin() + p * m);
    }
  };
  // Fresh round-trip bookkeeping: state k sits at level k.
  auto reset_states = [&](detail::PtChunk<Batch>& c, std::size_t n) {
    const std::size_t levels = c.levels.size();
    c.state.assign(levels, std::vector<std::uint32_t>(n));
    for (std::size_t k = 0; k < levels; ++k)
      std::fill(c.state[k].begin(), c.state[k].end(), static_cast<std::uint32_t>(k));
    c.end.assign(n, std::vector<PtEnd>(levels, PtEnd::none));
  };
  // Every chunk's sums of a round about to begin: zero, with the last round's pseudo-chains.
  auto begin_round_sums = [&](std::size_t round) {
    const bool last = round == options.rounds;
    const std::size_t levels = schedule.size(), scans = std::size_t{1} << round;
    for_my_chunks([&](const ChunkRange& cr) {
      detail::PtRoundSums s(levels);
      const std::size_t n = cr.size();
      if (last) {
        s.chains.assign(n * options.blocks_per_chain, ChainTemperingStats(levels));
        s.sample_delta.reserve(n * levels * scans);
        s.sample_level.reserve(n * levels * scans);
        s.sample_chain.reserve(n * levels * scans);
        if constexpr (!geometric) s.sample_energies.reserve(n * levels * scans * levels);
      }
      part[cr.index - block.first] = std::move(s);
    });
  };

  // Where the run stands, for a journal: the round under way and the scans of it done.
  PtRecord at;
  at.shape = {chains, chunk, options.rounds};
  const PtRecord* saved = journal ? journal->begin_pt(at.shape) : nullptr;
  // Hands the journal the run's record (every rank's chunks, gathered) when it asks for one.
  auto hand_over = [&](bool always) {
    if constexpr (checkpointable) {
      if (!journal || !decided_by_rank0(ranks, always || journal->wants_record())) return;
      // A record of its own, moved into the journal: its chunks are every replica and sample.
      PtRecord whole = at;
      whole.schedule = schedule;
      whole.rounds = r.rounds;
      whole.updates = r.updates;
      whole.non_finite = r.non_finite;
      whole.capped_by_memory = r.capped_by_memory;
      std::string mine;
      for (std::size_t j = 0; j < block.size(); ++j)
        append_blob(mine, detail::pt_chunk_bytes(state[j], part[j]));
      for (const std::string& bytes : ranks.all_gather(mine)) {
        ByteReader in(bytes);
        while (!in.done()) whole.chunks.emplace_back(in.blob());
      }
      journal->record(std::move(whole));
    }
  };

  if (saved) {
    if constexpr (checkpointable) {
      at.round = saved->round;
      at.scans_done = saved->scans_done;
      schedule = saved->schedule;
      r.rounds = saved->rounds;
      r.updates = saved->updates;
      r.non_finite = saved->non_finite;
      r.capped_by_memory = saved->capped_by_memory;
      bool fits = saved->chunks.size() == all_chunks && schedule.size() >= 2 &&
                  at.round <= options.rounds && at.scans_done <= (std::size_t{1} << at.round);
      for (std::size_t j = 0; fits && j < block.size(); ++j) {
        const ChunkRange cr = chunk_range(block.first + j, chains, chunk);
        fits = detail::restore_pt_chunk(
            saved->chunks[block.first + j], cr.size(), schedule.size(),
            [&](std::size_t n) { return path.make_batch(n); }, state[j], part[j]);
      }
      if (!true_on_every_rank(ranks, fits))  // every rank throws: one error line
        throw InputError(
            "--resume: the checkpoint's parallel tempering replicas do not fit the run its config "
            "gives");
    }
  } else {
    // The starts: exact base draws at every level.
    for_my_chunks([&](const ChunkRange& cr) {
      detail::PtChunk<Batch>& c = state[cr.index - block.first];
      c.levels.clear();
      c.e.assign(schedule.size(), {});
      c.slope.assign(schedule.size(), {});
      for (std::size_t k = 0; k < schedule.size(); ++k) {
        c.levels.push_back(path.make_batch(cr.size()));
        path.sample_base(c.levels[k],
                         BatchRandom{seed, Purpose::pt_start, 0, k * chains + cr.begin});
        measure(c, k, false);
      }
      reset_states(c, cr.size());
    });
    begin_round_sums(1);
    hand_over(true);  // a stop before the first scan leaves a run that resumes
  }

  // The first scan of the round (the kernel's and swaps' step): 2^round - 2.
  auto scan0 = static_cast<std::uint32_t>((std::size_t{1} << at.round) - 2);
  for (std::size_t round = at.round; round <= options.rounds; ++round) {
    const bool last = round == options.rounds;
    const std::size_t scans = std::size_t{1} << round, levels = schedule.size();
    const std::size_t blocks = last ? options.blocks_per_chain : 1;
    const std::size_t block_len = (scans + blocks - 1) / blocks;

    // The last round keeps the target replica's position every keep_every scans, if asked.
    [[maybe_unused]] const std::size_t keep_every =
        options.target_samples == 0
            ? scans + 1
            : std::max<std::size_t>(
                  1, (scans * chains + options.target_samples - 1) / options.target_samples);
    // Scans [from, to) of the round on a chunk, added to its sums.
    auto run_scans = [&](const ChunkRange& cr, std::size_t from, std::size_t to) {
      detail::PtChunk<Batch>& c = state[cr.index - block.first];
      detail::PtRoundSums& s = part[cr.index - block.first];
      const std::size_t n = cr.size();
      Batch scratch = path.make_batch(1);
      std::vector<double> alpha(levels - 1);
      for (std::size_t i = from; i < to; ++i) {
        options.stop.throw_if_requested();
        const auto scan = static_cast<std::uint32_t>(scan0 + i);
        for (std::size_t k = 0; k < levels; ++k) {
          const KernelInfo info = move(
              schedule[k], c.levels[k],
              BatchRandom{seed, Purpose::pt_kernel, scan, k * chains + cr.begin}, options.stop);
          s.level_attempted[k] += info.attempted;
          s.level_accepted[k] += info.accepted;
          s.non_finite += measure(c, k, last);
        }
        if (last)
          for (std::size_t p = 0; p < n; ++p) {
            const auto pseudo = static_cast<std::uint32_t>(p * blocks + i / block_len);
            for (std::size_t k = 0; k < levels; ++k) {
              // delta = -(U_1 - U_0); on a path with level energies every level's energy
              // and slope (the TI integrand) too.
              if constexpr (geometric) {
                s.chains[pseudo].add(-c.e[k][p], {}, k);
                s.sample_delta.push_back(-c.e[k][p]);
              } else {
                const auto row = std::span<const double>(c.e[k]).subspan(p * levels, levels);
                s.chains[pseudo].add(
                    std::span<const double>(c.slope[k]).subspan(p * levels, levels), {}, k);
                s.sample_delta.push_back(-row.back());
                s.sample_energies.insert(s.sample_energies.end(), row.begin(), row.end());
              }
              s.sample_level.push_back(static_cast<std::uint32_t>(k));
              s.sample_chain.push_back(static_cast<std::uint32_t>(cr.begin * blocks) + pseudo);
            }
          }
        for (std::size_t p = 0; p < n; ++p) {
          RandomStream rng(seed, cr.begin + p, Purpose::pt_swap, scan);
          const std::size_t parity = options.scheme == SwapScheme::nonreversible
                                         ? scan % 2
                                         : (rng.uniform() < 0.5 ? 0 : 1);
          for (std::size_t k = 0; k + 1 < levels; ++k) {
            const double log_a = log_swap_ratio(c, k, p);
            alpha[k] = log_a >= 0.0 ? 1.0 : std::isnan(log_a) ? 0.0 : std::exp(log_a);
            s.rejection_sum[k] += 1.0 - alpha[k];
          }
          for (std::size_t k = parity; k + 1 < levels; k += 2) {
            ++s.swaps_attempted[k];
            if (!(rng.uniform() < alpha[k])) continue;
            ++s.swaps_accepted[k];
            scratch.copy_particle(c.levels[k], p, 0);
            c.levels[k].copy_particle(c.levels[k + 1], p, p);
            c.levels[k + 1].copy_particle(scratch, 0, p);
            swap_energies(c, k, p);
            std::swap(c.state[k][p], c.state[k + 1][p]);
          }
          // A state at the top after the bottom, back at the bottom: a round trip.
          PtEnd& bottom = c.end[p][c.state[0][p]];
          if (bottom == PtEnd::top) ++s.round_trips;
          bottom = PtEnd::bottom;
          PtEnd& top = c.end[p][c.state[levels - 1][p]];
          if (top == PtEnd::bottom) top = PtEnd::top;
        }
        if constexpr (requires(const Batch& b) { b.X.col(0); }) {
          if (last && i % keep_every == 0)
            for (std::size_t p = 0; p < n; ++p) {
              const auto x =
                  c.levels[levels - 1].X.col(static_cast<decltype(c.levels[0].X.rows())>(p));
              s.target_positions.insert(s.target_positions.end(), x.data(), x.data() + x.size());
            }
        }
        if (last && cr.begin == 0 && i < kIndexProcessScans) {
          const std::size_t at_scan = s.index_process.size();
          s.index_process.resize(at_scan + levels);
          for (std::size_t k = 0; k < levels; ++k)
            s.index_process[at_scan + c.state[k][0]] = static_cast<std::uint32_t>(k);
        }
      }
    };
    at.round = round;
    // With a journal, the round runs in pieces of scans that double from one while they take
    // under 0.1 s, so that records come often without costing the run.
    std::size_t piece = 1;
    while (at.scans_done < scans) {
      const std::size_t from = at.scans_done, to = journal ? std::min(scans, from + piece) : scans;
      const auto start = Clock::now();
      for_my_chunks([&](const ChunkRange& cr) { run_scans(cr, from, to); });
      at.scans_done = to;
      if (journal) {
        const bool quick = std::chrono::duration<double>(Clock::now() - start).count() < 0.1;
        if (decided_by_rank0(ranks, quick)) piece *= 2;
        hand_over(last && to == scans);  // the last record holds the whole run
      }
    }

    // Every chunk's sums merged in chunk order (under several ranks: gathered from every rank).
    detail::PtRoundSums sums(levels);
    if (ranks.size() == 1) {
      for (auto& s : part) sums.merge(std::exchange(s, detail::PtRoundSums{}));
    } else {
      std::string mine;
      for (auto& s : part) std::exchange(s, detail::PtRoundSums{}).append_to(mine);
      sums = detail::gather_round_sums(ranks, mine, levels);
    }
    scan0 += static_cast<std::uint32_t>(scans);

    PtRound rd;
    rd.scans = scans;
    rd.schedule = schedule;
    rd.rejection.resize(levels - 1);
    const double draws = static_cast<double>(scans) * static_cast<double>(chains);
    rd.global_barrier = 0.0;
    for (std::size_t k = 0; k + 1 < levels; ++k) {
      rd.rejection[k] = sums.rejection_sum[k] / draws;
      rd.global_barrier += rd.rejection[k];
    }
    rd.round_trips = sums.round_trips;
    for (std::size_t k = 0; k < levels; ++k) r.updates += sums.level_attempted[k];
    r.non_finite += sums.non_finite;
    r.rounds.push_back(std::move(rd));
    if (options.progress) options.progress(round, options.rounds);
    if (last) {
      for (std::size_t k = 0; k + 1 < levels; ++k)
        r.swap_acceptance.push_back(sums.swaps_attempted[k] > 0
                                        ? static_cast<double>(sums.swaps_accepted[k]) /
                                              static_cast<double>(sums.swaps_attempted[k])
                                        : kNaN);
      r.stats.num_levels = levels;
      r.stats.linear_in_t = geometric;
      r.stats.sample_energies = std::move(sums.sample_energies);
      r.stats.chains = std::move(sums.chains);
      r.stats.sample_delta = std::move(sums.sample_delta);
      r.stats.sample_level = std::move(sums.sample_level);
      r.stats.sample_chain = std::move(sums.sample_chain);
      r.stats.kernel_attempted = r.stats.kernel_accepted = 0;
      for (std::size_t k = 0; k < levels; ++k) {
        r.stats.kernel_attempted += sums.level_attempted[k];
        r.stats.kernel_accepted += sums.level_accepted[k];
      }
      r.stats.level_attempted = std::move(sums.level_attempted);
      r.stats.level_accepted = std::move(sums.level_accepted);
      r.index_process = std::move(sums.index_process);
      r.target_positions = std::move(sums.target_positions);
      if constexpr (requires(const Batch& b) { b.X.rows(); })
        r.dim = static_cast<std::size_t>(path.make_batch(1).X.rows());  // a rank may hold no chunk
      break;
    }

    // The next round's schedule, and its states from the nearest old fraction.
    const PtRound& done = r.rounds.back();
    std::size_t replicas = detail::next_num_replicas(options, done.global_barrier);
    if (options.num_replicas == 0 && round + 1 == options.rounds && options.max_sample_bytes > 0) {
      // The last ladder's samples must fit: fewer replicas where Lambda asks for more.
      const std::size_t last_scans = std::size_t{1} << options.rounds;
      while (replicas > 2 &&
             detail::last_round_sample_bytes(options, replicas, last_scans, !geometric) >
                 options.max_sample_bytes) {
        --replicas;
        r.capped_by_memory = true;
      }
    }
    std::vector<double> next = detail::equal_barrier_schedule(schedule, done.rejection, replicas);
    const std::vector<std::size_t> from = detail::nearest_levels(schedule, next);
    for_my_chunks([&](const ChunkRange& cr) {
      detail::PtChunk<Batch>& c = state[cr.index - block.first];
      std::vector<Batch> moved;
      for (std::size_t j = 0; j < next.size(); ++j) {
        moved.push_back(path.make_batch(cr.size()));
        for (std::size_t p = 0; p < cr.size(); ++p) moved[j].copy_particle(c.levels[from[j]], p, p);
      }
      // The states' ends go with them (a round trip may span two rounds).
      std::vector<std::vector<PtEnd>> end(cr.size(), std::vector<PtEnd>(next.size()));
      for (std::size_t p = 0; p < cr.size(); ++p)
        for (std::size_t j = 0; j < next.size(); ++j) end[p][j] = c.end[p][c.state[from[j]][p]];
      c.levels = std::move(moved);
      c.e.assign(next.size(), {});
      c.slope.assign(next.size(), {});
      reset_states(c, cr.size());
      c.end = std::move(end);
    });
    schedule = std::move(next);
    for_my_chunks([&](const ChunkRange& cr) {
      for (std::size_t k = 0; k < schedule.size(); ++k)
        measure(state[cr.index - block.first], k, false);
    });
    at.scans_done = 0;
    begin_round_sums(round + 1);
  }
  return r;
}

}  // namespace logz
