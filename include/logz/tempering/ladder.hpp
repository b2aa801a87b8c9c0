// The temperature ladder of simulated tempering (Carlson et al. 2016, eq. 1-4):
// path fractions 0 = t_1 < ... < t_K = 1 (the paper's inverse temperatures beta_k) and a
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
  explicit TemperingLadder(const Schedule& fractions);
  // Any prior given as log r_k (normalised here); values must be finite.
  TemperingLadder(const Schedule& fractions, std::vector<double> log_prior);

  std::size_t size() const { return fractions_.size(); }  // K
  std::span<const double> fractions() const { return fractions_; }
  double fraction(std::size_t k) const { return fractions_[k]; }
  std::span<const double> log_prior() const { return log_prior_; }

 private:
  std::vector<double> fractions_;
  std::vector<double> log_prior_;
};

// r_k proportional to exp(slope * t_k) (the paper's training run uses slope 2).
TemperingLadder exponential_prior_ladder(const Schedule& fractions, double slope);

}  // namespace logz
