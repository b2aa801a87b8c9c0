// What a checkpoint needs from the annealing driver, with no file format in the core: the
// driver reports each phase of a run (one call of anneal_forward or anneal_reverse) to the
// journal it is given (AnnealOptions::journal), after every chunk it merges, and on resume takes
// the phase's merged chunks back from it. Chunks are merged in chunk order and every path draws
// from its own Philox streams, so a phase resumed after its first d chunks, on any number of
// threads, ends with the bits of an uninterrupted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace logz {

// The size of a phase, which a saved record must match.
struct AnnealPhaseShape {
  std::size_t num_paths = 0, chunk_size = 0, num_chunks = 0, num_temperatures = 0;
  bool operator==(const AnnealPhaseShape&) const = default;
};

// A phase after its first chunks_done chunks (views into the driver's memory): the works of
// those chunks' paths and the per-temperature sums over them.
struct AnnealPhaseView {
  AnnealPhaseShape shape;
  std::size_t chunks_done = 0;
  std::span<const double> works;  // of the first paths, those of the chunks done
  std::span<const double> energy_sum;
  std::span<const std::uint64_t> attempted, accepted;
};

// The same, owned: what a checkpoint holds of a phase.
struct AnnealPhaseRecord {
  AnnealPhaseShape shape;
  std::size_t chunks_done = 0;
  std::vector<double> works;
  std::vector<double> energy_sum;
  std::vector<std::uint64_t> attempted, accepted;

  static AnnealPhaseRecord of(const AnnealPhaseView& view);
  bool complete() const { return chunks_done == shape.num_chunks; }
};

class AnnealJournal {
 public:
  virtual ~AnnealJournal() = default;
  // The run's next phase begins. Returns its saved record when resuming one that was begun
  // (the driver then runs only the chunks after record->chunks_done), else nullptr. A phase
  // whose end states a later phase needs (resampled reverse starts) passes resumable = false:
  // states are not saved, so it is run again whole.
  virtual const AnnealPhaseRecord* begin_phase(const AnnealPhaseShape& shape, bool resumable) = 0;
  // After each merged chunk (calls never overlap): the journal may save the phase so far.
  virtual void merged(const AnnealPhaseView& view) = 0;
  // The phase ended, complete or stopped by a stop request (core/stop_request.hpp).
  virtual void end_phase(const AnnealPhaseView& view) = 0;
};

}  // namespace logz
