// What a checkpoint needs from adaptive tempered SMC (smc/adaptive_smc.hpp) and population
// annealing (smc/population_annealing.hpp), with no file format in the core (as
// tempering/pt_journal.hpp is for parallel tempering): where a run stands after a temperature
// (its particles or replicas, energies, weights, ancestors, log Z so far and the temperatures
// reached; SMC's whitening and step size), handed to the journal a run is given
// (SmcOptions::journal, PopulationAnnealingOptions::journal) and taken back from it on resume.
// Every draw comes from streams addressed by (seed, temperature, move, particle), so a resumed
// run, on any number of threads and ranks, ends with the bits of an uninterrupted one.
#pragma once

#include <cstddef>
#include <string>

namespace logz {

// The size of a run, which a saved record must match.
struct SmcShape {
  std::size_t num_particles = 0;
  int dim = 0;  // of a particle; 0: a population of discrete replicas (population annealing)
  std::size_t chunk_size = 0;
  bool operator==(const SmcShape&) const = default;
};

struct SmcRecord {
  SmcShape shape;
  std::size_t temperatures = 0;  // reached: t_1 .. t_k (0: the base draws alone)
  double temperature = 0.0;      // t_k (1: the run is complete)
  // Everything the run needs to go on, as bytes (the driver's layout; checked when restored).
  std::string state;
};

class SmcJournal {
 public:
  virtual ~SmcJournal() = default;
  // An SMC or population annealing run begins (a run with a pilot begins two): its saved record
  // when resuming one that was begun, else nullptr.
  virtual const SmcRecord* begin_smc(const SmcShape& shape) = 0;
  // Whether the run should hand over its record now (copying every particle costs time).
  virtual bool wants_record() const = 0;
  // The run's record after a temperature (the last one stands for the run if it stops).
  virtual void record(SmcRecord record) = 0;
};

}  // namespace logz
