// The temperature ladder of simulated tempering (Carlson et al. 2016, eq. 1-4):
// inverse temperatures 0 = beta_1 < ... < beta_K = 1 (path fractions) and a
// prior r_k over them, stored as log r_k normalised to sum to one.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "logz/paths/schedule.hpp"

namespace logz {

class TemperingLadder {
 public:
  // Uniform prior r_k = 1/K.
  explicit TemperingLadder(const Schedule& betas);
  // Any prior given as log r_k (normalised here); values must be finite.
  TemperingLadder(const Schedule& betas, std::vector<double> log_prior);

  std::size_t size() const { return betas_.size(); }  // K
  std::span<const double> betas() const { return betas_; }
  double beta(std::size_t k) const { return betas_[k]; }
  std::span<const double> log_prior() const { return log_prior_; }

 private:
  std::vector<double> betas_;
  std::vector<double> log_prior_;
};

// r_k proportional to exp(slope * beta_k) (the paper's training run uses slope 2).
TemperingLadder exponential_prior_ladder(const Schedule& betas, double slope);

}  // namespace logz
