// Annealing schedules: a validated ladder of inverse temperatures
// 0 = beta_0 < beta_1 < ... < beta_K = 1 (K >= 1 steps, K + 1 temperatures).
// Paths scale it to the model's target temperature where that is not 1.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace logz {

class Schedule {
 public:
  // Validates: at least 2 values, all finite, strictly increasing, first 0, last 1.
  // `source` names where the values came from for error messages.
  explicit Schedule(std::vector<double> betas, const std::string& source = "schedule");

  std::span<const double> betas() const { return betas_; }
  double operator[](std::size_t k) const { return betas_[k]; }
  std::size_t num_steps() const { return betas_.size() - 1; }  // K
  std::size_t size() const { return betas_.size(); }           // K + 1

 private:
  std::vector<double> betas_;
};

// beta_k = k / K.
Schedule linear_schedule(std::size_t num_steps);
// beta_0 = 0, beta_k = beta_min^((K - k) / (K - 1)) for k >= 1: geometric from
// beta_min (default 1e-4) to 1, the usual choice when most change happens near 0.
Schedule geometric_schedule(std::size_t num_steps, double beta_min = 1e-4);
// Sigmoid of Grosse et al. (2015): beta_k proportional to sigma(delta (2k/K - 1)),
// rescaled to run exactly from 0 to 1; steepness delta (default 4).
Schedule sigmoid_schedule(std::size_t num_steps, double steepness = 4.0);
// Salakhutdinov & Murray (2008)'s RBM ladder: 0 to 0.5 in steps of 1e-3, 0.5
// to 0.9 in steps of 1e-4, 0.9 to 1 in steps of 1e-5: 14,501 distinct values
// (their published count, 14,503, repeats 0.5 and 0.9 where the pieces meet).
Schedule salakhutdinov_schedule();
// One beta per line (blank lines and '#' comments skipped); errors name file and line.
Schedule schedule_from_file(const std::string& path);

}  // namespace logz
