// The processes (ranks) that share one run, e.g. under MPI: which one this is, how many there
// are, and the one collective the drivers need: every rank's bytes, to every rank, in rank
// order. The core never includes MPI: a front end passes an implementation to the drivers it
// calls (AnnealOptions::ranks, TemperingOptions::ranks; the CLI passes MPI's when built with
// LOGZ_MPI); without one (nullptr) a run is one rank.
//
// A driver splits its fixed chunks into contiguous blocks of chunks, one per rank
// (chunks_of_rank), runs its block and gathers every chunk's output; reduced in chunk order
// they give the bits of a run on one rank, whatever the number of ranks.
//
// No rank may wait forever for one that failed: every collective first agrees on the ranks'
// status (agree), and a rank that fails between collectives takes part in the next agreement
// with its error code instead (the front end does this), so the others leave their collective
// with RankFailed.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/chunk_range.hpp"

namespace logz {

// The outcome of an agreement: the lowest rank that reported a failure and its code, or
// rank -1 (and code 0) when none failed.
struct RankStatus {
  int rank = -1;
  int code = 0;
  bool failed() const { return rank >= 0; }
};

// Thrown on the ranks that did not fail, from the collective at which they learn that `rank`
// failed with exit code `code` (that rank reports its own error).
class RankFailed : public Error {
 public:
  RankFailed(int rank, int code);
  int rank = -1, code = 0;
};

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's `mine`, indexed by rank, on every rank. Agrees first: throws RankFailed when
  // a rank has failed. Called by the same sequence of drivers on every rank.
  virtual std::vector<std::string> all_gather(std::string_view mine) = 0;
  // Every rank passes its exit code (0: no failure); all learn the lowest failed rank.
  virtual RankStatus agree(int code) = 0;
};

// One process: the ranks of a driver given none. A driver nested in a chunk body is given none,
// so it never talks across ranks: only the thread that drives the run does, in the same order
// on every rank.
Ranks& single_rank();
inline Ranks& ranks_or_single(Ranks* ranks) { return ranks ? *ranks : single_rank(); }

// Rank 0's `decision`, on every rank (a collective under several ranks): for choices that
// depend on a clock but must be alike on every rank.
bool decided_by_rank0(Ranks& ranks, bool decision);
// Whether `holds` on every rank (a collective under several ranks): for a check each rank makes
// of its own part that every rank must act on alike (one error, not one rank's alone).
bool true_on_every_rank(Ranks& ranks, bool holds);

// Every rank's `mine`, concatenated in rank order, on every rank (one rank: `mine` as it is): the
// per-chunk outputs of blocks of chunks, in chunk order.
template <class T>
requires std::is_trivially_copyable_v<T> std::vector<T> gather_in_rank_order(Ranks& ranks,
                                                                             std::vector<T> mine) {
  if (ranks.size() == 1) return mine;
  std::string bytes;
  append_bytes<T>(bytes, mine);
  std::vector<T> all;
  for (const std::string& theirs : ranks.all_gather(bytes)) {
    if (theirs.size() % sizeof(T) != 0)
      fail_argument("logz::gather_in_rank_order", "bytes", "whole values");
    const std::size_t at = all.size();
    all.resize(at + theirs.size() / sizeof(T));
    ByteReader(theirs).read<T>(std::span<T>(all).subspan(at));
  }
  return all;
}

// Chunks [first, last) of `rank` out of `size`: contiguous blocks in rank order, sizes differing
// by at most one (a rank may get none).
struct ChunkBlock {
  std::size_t first = 0, last = 0;
  std::size_t size() const { return last - first; }
};
ChunkBlock chunks_of_rank(std::size_t num_chunks, int rank, int size);

// The items [begin, end) of a block's chunks of num_items items in pieces of chunk_size (index:
// the block's first chunk), and a chunk of those items, numbered from the block's start as
// run_chunks over them numbers it, as the chunk of the whole run it is.
ChunkRange items_of_block(const ChunkBlock& block, std::size_t num_items, std::size_t chunk_size);
inline ChunkRange in_whole_run(const ChunkRange& local, const ChunkRange& block_items) {
  return {block_items.index + local.index, block_items.begin + local.begin,
          block_items.begin + local.end};
}

}  // namespace logz
