// What a checkpoint needs from parallel tempering (parallel_tempering.hpp), with no file format in
// the core (as tempering_journal.hpp is for simulated tempering): where a run stands (the round
// under way, the scans of it done, its ladder, the rounds complete and every chunk's replicas and
// sums of the round so far), handed to the journal a run is given (ParallelTemperingOptions::
// journal) between pieces of a round's scans, and taken back from it on resume. Replicas draw from
// streams addressed by (seed, replica, scan) and every chunk's sums add scans in order, so a
// resumed run, on any number of threads and ranks, ends with the bits of an uninterrupted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

// One round's schedule and what its swaps measured.
struct PtRound {
  std::size_t scans = 0;
  std::vector<double> schedule;   // t_0 = 0 .. t_N = 1
  std::vector<double> rejection;  // expected rejection r_k of pair (k, k + 1)
  double global_barrier = kNaN;   // Lambda = sum r_k
  std::uint64_t round_trips = 0;  // over all chains
};

// The size of a parallel tempering run, which a saved record must match.
struct PtShape {
  std::size_t num_chains = 0, chunk_size = 0, rounds = 0;
  bool operator==(const PtShape&) const = default;
};

struct PtRecord {
  PtShape shape;
  std::size_t round = 1;                      // the round under way, 1 .. rounds
  std::size_t scans_done = 0;                 // of it: 2^round once the run is complete
  std::vector<double> schedule;               // its fractions
  std::vector<PtRound> rounds;                // the rounds before it
  std::uint64_t updates = 0, non_finite = 0;  // over the rounds before it
  bool capped_by_memory = false;
  // Every chunk's replicas and its sums of the round so far, as bytes (the driver's layout;
  // checked when they are restored).
  std::vector<std::string> chunks;

  // Scans of every replica done over all rounds.
  std::size_t total_scans() const {
    std::size_t n = scans_done;
    for (const PtRound& r : rounds) n += r.scans;
    return n;
  }
};

class PtJournal {
 public:
  virtual ~PtJournal() = default;
  // A parallel tempering run begins: its saved record when resuming one that was begun, else
  // nullptr.
  virtual const PtRecord* begin_pt(const PtShape& shape) = 0;
  // Whether the run should hand over its record now (copying every replica costs time): when a
  // checkpoint is due, and often enough that a stop loses little.
  virtual bool wants_record() const = 0;
  // The run's record at a point between scans (the last one stands for the run if it stops).
  // Taken by value: a record holds every sample of the round so far, which a run moves in.
  virtual void record(PtRecord record) = 0;
};

}  // namespace logz
