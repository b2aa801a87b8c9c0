// Bennett acceptance ratio (BAR) over forward and reverse works, in units of kT, with the
// conventions of jarzynski.hpp (E_f[exp(-W_f)] = Z, E_r[exp(-W_r)] = 1/Z). With
// DeltaF = -log Z, f(x) = 1/(1 + exp(x)) and M = log(N_f / N_r), BAR solves Bennett's equation
//   sum_i f(M + W_f_i - DeltaF) = sum_j f(-M + W_r_j + DeltaF),
// exactly as pymbar's BAR(w_F, w_R) (which returns DeltaF); Estimate::log_z is -DeltaF.
#pragma once

#include <span>
#include <string_view>

#include "logz/core/estimate.hpp"
#include "logz/math/fermi_sums.hpp"

namespace logz {

struct BarOptions {
  double tolerance = 1e-12;  // absolute tolerance on DeltaF = -log Z (nats), must be > 0
  int max_iterations = 200;  // solver iterations (Newton steps or fixed-point updates), >= 1
};

// Solves g(DeltaF) = log sum_i f(x_i) - log sum_j f(y_j) = 0 (x = M + W_f - DeltaF,
// y = -M + W_r + DeltaF; g is increasing with slope in (0, 2) and overflow-free for works of 1e5)
// by Newton's method from the mean of the AIS and RAISE estimates, safeguarded by bisection on
// the bracket of points where g has been seen negative and positive, and by doubling steps
// beyond the range of the AIS, RAISE and bound estimates when the root lies outside it; until a
// Newton step is below tolerance + 4 eps |DeltaF|. Each step is one vectorised pass over the
// works for g and its slope (fermi_sums.hpp), three or four in all on well-overlapping works.
// std_error ("bar_asymptotic") is pymbar 3's 'BAR' asymptotic standard deviation (Shirts et al.,
// PRL 2003), var = (<f^2>_F/<f>_F^2 - 1)/N_f + (<f^2>_R/<f>_R^2 - 1)/N_r, a large-sample error
// that is too small when overlap is poor. diagnostics: overlap = O_01 + O_10 of the 2-state MBAR
// overlap matrix (1 = identical, -> 0 = none), values "delta_f" (-log Z) and
// "bracket_expansions"; flags "poor_overlap" (overlap < 0.03), "not_converged" (converged false,
// max_iterations hit), "too_few_samples" (N_f or N_r < 2) and "zero_variance" (both sides
// constant), the last two with std_error NaN. Throws InvalidArgument on an empty span, a NaN/inf
// work (naming the first bad index) or bad options.
Estimate bar(std::span<const double> forward_works, std::span<const double> reverse_works,
             const BarOptions& options = {});

// The same estimate by the self-consistent iteration of Habeck (2017), Algorithm 1:
// Z <- Z * sum_i f(M + W_f_i + log Z) / sum_j f(-M + W_r_j - log Z), done in log space from the
// average of the AIS and RAISE estimates, until an update moves log Z by less than
// tolerance + 4 eps |log Z|. It converges linearly (slowly when overlap is poor, where it may
// end "not_converged"); kept for comparison with bar(). std_error, overlap and flags as bar().
Estimate bar_fixed_point(std::span<const double> forward_works,
                         std::span<const double> reverse_works, const BarOptions& options = {});

namespace detail {

// Below this overlap (bar() and the histogram estimator) the asymptotic error is not to be trusted.
inline constexpr double kPoorOverlap = 0.03;

// Bennett's equation on works with weights (counts; 1 for bar(), the points' counts for the
// histogram estimator, whose solution it also is):
//   g(DeltaF) = log sum_i w_i f(M + a_i - DeltaF) - log sum_j v_j f(-M + b_j + DeltaF),
// a = forward works, b = reverse works, M = log(N_f / N_r) with N_f = sum w, N_r = sum v.
struct BennettPoint {
  double delta_f = 0.0;        // where it was evaluated
  double value = 0.0;          // g(DeltaF)
  double slope = 0.0;          // g'(DeltaF), in (0, 2)
  FermiSums forward, reverse;  // the sums over x_i = M + a_i - DeltaF and y_j = -M + b_j + DeltaF
};

class BennettEquation {
 public:
  // Views the terms: they must outlive it.
  BennettEquation(const FermiTerms& forward, const FermiTerms& reverse, double num_forward,
                  double num_reverse);
  BennettPoint operator()(double delta_f) const;
  double num_forward() const { return nf_; }
  double num_reverse() const { return nr_; }

 private:
  const FermiTerms &forward_, &reverse_;
  double nf_, nr_, m_;
};

// Where bar() and histogram() start solve_bennett on works: the mean of the AIS and RAISE
// estimates of DeltaF, in the range [low, high] of those and the two mean-work bounds.
struct BennettStart {
  double start = 0.0, low = 0.0, high = 0.0;
};
BennettStart bennett_start(std::span<const double> forward_works,
                           std::span<const double> reverse_works);

struct BennettSolution {
  BennettPoint root;  // the last point evaluated: the root when converged
  int iterations = 0;
  int bracket_expansions = 0;
  bool converged = false;
};

// Safeguarded Newton (bar()'s solver) from start, inside [low, high] where the root is expected
// (start in it), doubling beyond it at most max_expansions times. Throws NumericalError naming
// function if g is not finite or the root cannot be bracketed.
BennettSolution solve_bennett(const BennettEquation& g, double start, double low, double high,
                              double tolerance, int max_iterations, int max_expansions,
                              std::string_view function);

// One side's term of BAR's variance, (<f^2>/<f>^2 - 1) / N, from its sums.
double bar_variance_term(const FermiSums& side, double n);

// O_01 + O_10 of the 2-state MBAR overlap matrix at a point: (1/N_f + 1/N_r) times
// [sum_i w_i f(x_i) f(-x_i) + sum_j v_j f(y_j) f(-y_j)].
double bar_overlap(const BennettPoint& p, double num_forward, double num_reverse);

}  // namespace detail

}  // namespace logz
