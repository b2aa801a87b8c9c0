// Sums of the Fermi function f(x) = 1 / (1 + exp(x)) over x_i = a_i + shift: the sums of
// Bennett's acceptance ratio and of the histogram (WHAM) estimator. sum f, sum f^2 and
// sum f(x) f(-x) = -d/dshift sum f come from one pass with one exp per term, vectorised with
// Highway and dispatched at run time to the processor's instruction set (the last bits may differ
// between instruction sets, never between runs on one machine). Every sum is scaled by exp(c),
// c = max(0, min_i x_i): the largest scaled term is then in [1/2, 1], so the sums neither
// overflow nor underflow for terms of any size (works of 1e5 and beyond).
#pragma once

#include <cmath>
#include <span>

namespace logz {

struct FermiSums {
  double log_scale = 0.0;  // c: the true sums are these times exp(-c) (f_squared: exp(-2c))
  double f = 0.0;          // exp(c) sum_i w_i f(x_i)
  double f_squared = 0.0;  // exp(2c) sum_i w_i f(x_i)^2
  double f_f_minus = 0.0;  // exp(c) sum_i w_i f(x_i) f(-x_i)

  // log sum_i w_i f(x_i).
  double log_f() const { return std::log(f) - log_scale; }
  // -d/dshift log sum_i w_i f(x_i), in (0, 1): the f-weighted mean of f(-x_i).
  double slope() const { return f_f_minus / f; }
};

// The terms of Fermi sums taken at many shifts: values a_i, positive weights w_i (all 1 when
// weights is empty), and min_i a_i, found once. Views the spans: they must outlive it.
class FermiTerms {
 public:
  explicit FermiTerms(std::span<const double> a, std::span<const double> weights = {});

  // The sums over x_i = a_i + shift.
  FermiSums at(double shift) const;

  std::size_t size() const { return a_.size(); }
  double lowest() const { return lowest_; }  // min_i a_i (+inf when empty)

 private:
  std::span<const double> a_, weights_;
  double lowest_;
};

}  // namespace logz
