// What a checkpoint needs from simulated tempering, with no file format in the core (as
// anneal/anneal_journal.hpp is for annealing): where a tempering run stands (its stage, the
// initial iterations' or Wang-Landau's state, every chain, the final run's statistics so far),
// handed to the journal a run is given between initial iterations and between
// pieces of the final run, and taken back from it on resume. Chains draw from streams addressed
// by (seed, chain, step) and statistics add sweeps in order, so a resumed run, on any number of
// threads, ends with the bits of an uninterrupted one.
#pragma once

#include <cstddef>
#include <string>

#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace logz {

// The size of a tempering run, which a saved record must match.
struct TemperingShape {
  std::size_t num_chains = 0, chunk_size = 0, num_levels = 0, num_sweeps = 0;
  std::string initialization;  // "iterations", "wang_landau" or "none"
  bool operator==(const TemperingShape&) const = default;
};

enum class TemperingStage { initialization, final_run, complete };

struct TemperingRecord {
  TemperingShape shape;
  TemperingStage stage = TemperingStage::initialization;
  // The initial iterations so far; from the final run on, whichever initialization ran, its
  // result (the final run's log Zhat).
  InitialIterationsResult initial;
  WangLandauState wang_landau;  // while Wang-Landau runs
  TemperingChains chains;       // every chain at this point (none once complete)
  TemperingRun final_run;       // from the final run on: its statistics so far
};

class TemperingJournal {
 public:
  virtual ~TemperingJournal() = default;
  // A tempering run begins: its saved record when resuming one that was begun, else nullptr.
  virtual const TemperingRecord* begin_tempering(const TemperingShape& shape) = 0;
  // Whether the run should hand over its record now (copying every chain costs time): when a
  // checkpoint is due, and often enough that a stop loses little.
  virtual bool wants_record() const = 0;
  // The run's record at a point between sweeps (the last one stands for the run if it stops).
  // Taken by value: a record may hold every sample so far, which a run moves in where it can.
  virtual void record(TemperingRecord record) = 0;
};

}  // namespace logz
