#include "logz/math/running_moments.hpp"

#include <cmath>

#include "logz/core/estimate.hpp"

namespace logz {

void RunningMoments::add(double x) {
  ++n_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

void RunningMoments::merge(const RunningMoments& other) {
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(other.n_);
  const double n = na + nb;
  const double delta = other.mean_ - mean_;
  mean_ += delta * nb / n;
  m2_ += other.m2_ + delta * delta * na * nb / n;
  n_ += other.n_;
}

double RunningMoments::mean() const { return n_ > 0 ? mean_ : kNaN; }

double RunningMoments::variance() const {
  return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : kNaN;
}

double RunningMoments::std_error_of_mean() const {
  return n_ > 1 ? std::sqrt(variance() / static_cast<double>(n_)) : kNaN;
}

}  // namespace logz
