#include "logz/kernels/random_walk_metropolis.hpp"

#include "logz/core/error.hpp"

namespace logz {

RandomWalkMetropolis::RandomWalkMetropolis(double proposal_sd, int steps)
    : proposal_sd_(proposal_sd), steps_(steps) {
  if (!(std::isfinite(proposal_sd) && proposal_sd > 0.0))
    fail_argument("logz::RandomWalkMetropolis", "proposal_sd", "a finite number > 0");
  if (steps < 1) fail_argument("logz::RandomWalkMetropolis", "steps", "at least 1");
}

}  // namespace logz
