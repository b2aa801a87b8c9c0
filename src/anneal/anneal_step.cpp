#include "logz/anneal/anneal_step.hpp"

#include <fmt/format.h>

#include "logz/core/error.hpp"

namespace logz::detail {

void fail_non_finite_work(Direction d, std::size_t particle, std::size_t step, double t_from,
                          double t_to, double increment) {
  throw NumericalError(
      fmt::format("{} annealing: non-finite work increment {} for path {} at temperature index {} "
                  "of the run (path "
                  "fraction {} to {}): the model's energy is not finite there",
                  to_string(d), increment, particle, step, t_from, t_to));
}

void fail_in_step(const NumericalError& e, Direction d, std::size_t first_particle,
                  std::size_t num_particles, std::size_t step, double t) {
  throw NumericalError(fmt::format(
      "{} annealing, paths {} - {} (particle i of the batch is path {} + i), temperature "
      "index {} of the run (path fraction {}): {}",
      to_string(d), first_particle, first_particle + num_particles - 1, first_particle, step, t,
      e.what()));
}

}  // namespace logz::detail
