#include "logz/tempering/ladder.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

TemperingLadder::TemperingLadder(const Schedule& fractions)
    : TemperingLadder(fractions, std::vector<double>(fractions.size(), 0.0)) {}

TemperingLadder::TemperingLadder(const Schedule& fractions, std::vector<double> log_prior)
    : fractions_(fractions.fractions().begin(), fractions.fractions().end()),
      log_prior_(std::move(log_prior)) {
  if (log_prior_.size() != fractions_.size())
    fail_argument("logz::TemperingLadder", "log_prior",
                  "one value per temperature (" + std::to_string(fractions_.size()) + "), got " +
                      std::to_string(log_prior_.size()));
  for (std::size_t k = 0; k < log_prior_.size(); ++k)
    if (!std::isfinite(log_prior_[k]))
      fail_argument("logz::TemperingLadder", "log_prior[" + std::to_string(k) + "]",
                    "a finite number");
  const double norm = log_sum_exp(log_prior_);
  for (double& v : log_prior_) v -= norm;
}

TemperingLadder exponential_prior_ladder(const Schedule& fractions, double slope) {
  std::vector<double> lp(fractions.size());
  for (std::size_t k = 0; k < lp.size(); ++k) lp[k] = slope * fractions[k];
  return TemperingLadder(fractions, std::move(lp));
}

}  // namespace logz
