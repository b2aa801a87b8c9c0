// Running mean and variance (Welford), mergeable so that per-chunk moments
// combine in a fixed order into the same numbers whatever the thread count.
#pragma once

#include <cstdint>

namespace logz {

class RunningMoments {
 public:
  void add(double x);
  // Chan et al.'s pairwise combination; merging in a fixed order is deterministic.
  void merge(const RunningMoments& other);

  std::int64_t count() const { return n_; }
  double mean() const;               // NaN when empty
  double variance() const;           // unbiased (n - 1); NaN when n < 2
  double std_error_of_mean() const;  // sqrt(variance / n); NaN when n < 2

 private:
  std::int64_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

}  // namespace logz
