// Annealing schedules: a validated ladder of path fractions
// 0 = t_0 < t_1 < ... < t_K = 1 (K >= 1 steps, K + 1 temperatures). A path's at(t) maps a
// fraction to its tempered target (for a lattice model, inverse temperature t * beta).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace logz {

// The defaults of a schedule's parameters, which the [schedule] keys share: K where none is
// given, a geometric schedule's smallest t > 0 and a sigmoid's steepness.
inline constexpr std::size_t kDefaultNumSteps = 1000;
inline constexpr double kDefaultGeometricTMin = 1e-4;
inline constexpr double kDefaultSigmoidSteepness = 4.0;

// An adaptive schedule's plan (anneal/adaptive_schedule.hpp): a pilot of pilot_paths forward
// (and reverse) paths on a linear schedule of pilot_steps steps, then num_steps steps placed at
// equal thermodynamic length.
struct AdaptivePlan {
  std::size_t num_steps = kDefaultNumSteps;
  std::size_t pilot_paths = 32;
  std::size_t pilot_steps = 200;  // as [schedule] pilot_steps
  // Also run the pilot in reverse from the run's own reverse start (where it has one).
  bool reverse_pilot = true;
};

// What is wrong with `fractions` as a schedule: the entry ("fractions[3]") and what it should be;
// nothing when they rise strictly from 0 to 1 (at least 2 of them, all finite).
struct ScheduleFault {
  std::string entry, expectation;
};
std::optional<ScheduleFault> schedule_fault(std::span<const double> fractions);

class Schedule {
 public:
  // Validates: at least 2 values, all finite, strictly increasing, first 0, last 1.
  // `source` names where the values came from for error messages.
  explicit Schedule(std::vector<double> fractions, const std::string& source = "schedule");

  std::span<const double> fractions() const { return fractions_; }
  double operator[](std::size_t k) const { return fractions_[k]; }
  std::size_t num_steps() const { return fractions_.size() - 1; }  // K
  std::size_t size() const { return fractions_.size(); }           // K + 1

  // An adaptive schedule is the pilot's (linear) schedule carrying its plan; the annealing
  // services replace it by the schedule the pilot places (anneal/adaptive_schedule.hpp).
  const std::optional<AdaptivePlan>& adaptive() const { return adaptive_; }
  static Schedule adaptive(const AdaptivePlan& plan);

 private:
  std::vector<double> fractions_;
  std::optional<AdaptivePlan> adaptive_;
};

// t_k = k / K.
Schedule linear_schedule(std::size_t num_steps);
// t_0 = 0, t_k = t_min^((K - k) / (K - 1)) for k >= 1: geometric from
// t_min (default 1e-4) to 1, the usual choice when most change happens near 0.
Schedule geometric_schedule(std::size_t num_steps, double t_min = kDefaultGeometricTMin);
// Sigmoid of Grosse et al. (2015): t_k proportional to sigma(delta (2k/K - 1)),
// rescaled to run exactly from 0 to 1; steepness delta (default 4).
Schedule sigmoid_schedule(std::size_t num_steps, double steepness = kDefaultSigmoidSteepness);
// Salakhutdinov & Murray (2008)'s RBM ladder: 0 to 0.5 in steps of 1e-3, 0.5
// to 0.9 in steps of 1e-4, 0.9 to 1 in steps of 1e-5: 14,501 distinct values
// (their published count, 14,503, repeats 0.5 and 0.9 where the pieces meet).
Schedule salakhutdinov_schedule();
// One path fraction per line (blank lines and '#' comments skipped); errors name file and line.
Schedule schedule_from_file(const std::string& path);

}  // namespace logz
