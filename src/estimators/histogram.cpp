#include "logz/estimators/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/math/effective_sample_size.hpp"
#include "logz/math/fermi_sums.hpp"
#include "logz/math/log_space_arrays.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/value_range.hpp"
#include "logz/random/philox.hpp"

namespace logz {

namespace {

constexpr double kLowPosteriorEss = 100.0;
constexpr int kHistogramBracketExpansions = 200;

void check_options(const std::string& function, std::span<const double> forward_works,
                   std::span<const double> reverse_works, const HistogramOptions& options) {
  detail::require_two_sided_inputs(function, forward_works, reverse_works, options.tolerance,
                                   options.max_iterations);
}

// What the estimate and its error bar need of the support points.
struct Support {
  std::size_t num_points = 0;   // 0: not counted (unbinned, no distribution)
  bool several_points = false;  // more than one point in all
  bool forward_varies = false, reverse_varies = false;  // W_f, -W_r in more than one point
  double lowest_forward = std::numeric_limits<double>::infinity();  // lowest point holding a W_f
  double highest_reverse =
      -std::numeric_limits<double>::infinity();  // highest point holding a -W_r
};

// Unbinned, without the distribution: what Support needs is the works' extremes (the points are
// the distinct works), found in one pass instead of a sort.
Support unbinned_support(std::span<const double> wf, std::span<const double> wr) {
  const ValueRange f = value_range(wf), r = value_range(wr);
  Support s;
  s.forward_varies = f.lowest != f.highest;
  s.reverse_varies = r.lowest != r.highest;
  s.lowest_forward = f.lowest;
  s.highest_reverse = -r.lowest;
  s.several_points = s.forward_varies || s.reverse_varies || f.lowest != -r.lowest;
  return s;
}

// Doubles as unsigned integers in the same order (negative ones with every bit flipped, the
// others with the sign bit set), so that they sort as integers, a digit at a time; -0 is +0.
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
std::uint64_t order_key(double v) {
  const auto u = std::bit_cast<std::uint64_t>(v + 0.0);
  return (u & kSignBit) ? ~u : u | kSignBit;
}
double key_value(std::uint64_t k) {
  return std::bit_cast<double>((k & kSignBit) ? k & ~kSignBit : ~k);
}

// The values times sign as order keys, sorted, into keys (scratch: as long). A
// least-significant-digit radix sort (10-bit digits, cache-sized counts) on the 40 bits below the
// prefix all keys share, then std::sort on each run of keys those bits do not tell apart (rare
// for continuous works; equal values for discrete ones): linear time, where std::sort of 10^6
// works took most of the estimator's time.
void sort_keys(std::span<const double> values, double sign, std::span<std::uint64_t> keys,
               std::span<std::uint64_t> scratch) {
  constexpr int kDigitBits = 10, kSortedBits = 40;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const std::size_t n = values.size();
  std::uint64_t lowest = ~std::uint64_t{0}, highest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = order_key(sign * values[i]);
    lowest = std::min(lowest, keys[i]);
    highest = std::max(highest, keys[i]);
  }
  const int varying = 64 - std::countl_zero(lowest ^ highest);  // bits below the shared prefix
  const int shift = std::max(0, varying - kSortedBits);
  const int passes = (varying - shift + kDigitBits - 1) / kDigitBits;
  std::vector<std::size_t> counts(static_cast<std::size_t>(passes) * kBuckets, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int p = 0; p < passes; ++p)
      ++counts[p * kBuckets + ((keys[i] >> (shift + p * kDigitBits)) & (kBuckets - 1))];
  }
  std::uint64_t *from = keys.data(), *to = scratch.data();
  for (int p = 0; p < passes; ++p) {
    std::size_t* offset = counts.data() + p * kBuckets;
    std::size_t total = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) total += std::exchange(offset[b], total);
    const int at = shift + p * kDigitBits;
    for (std::size_t i = 0; i < n; ++i) to[offset[(from[i] >> at) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys.data()) std::copy(from, from + n, keys.data());
  if (shift == 0) return;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && (keys[j] >> shift) == (keys[i] >> shift)) ++j;
    if (j - i > 1) std::sort(keys.data() + i, keys.data() + j);
    i = j;
  }
}

// Support points of p_f with their counts and log c_b, into d. Reverse works enter as w = -W_r.
Support make_support(WorkDistribution& d, std::span<const double> wf, std::span<const double> wr,
                     std::size_t bins) {
  Support s;
  if (bins == 0) {
    // One point per distinct value: sort each side, then merge them, grouping equal values.
    const std::size_t nf = wf.size(), nr = wr.size();
    // Uninitialised: every key is written before it is read.
    const auto keys = std::make_unique_for_overwrite<std::uint64_t[]>(nf + nr);
    const auto scratch = std::make_unique_for_overwrite<std::uint64_t[]>(std::max(nf, nr));
    const std::span<std::uint64_t> f(keys.get(), nf), r(keys.get() + nf, nr);
    sort_keys(wf, 1.0, f, {scratch.get(), nf});
    sort_keys(wr, -1.0, r, {scratch.get(), nr});
    d.support.reserve(nf + nr);
    d.log_c.reserve(nf + nr);
    d.forward_counts.reserve(nf + nr);
    d.reverse_counts.reserve(nf + nr);
    const auto add = [&](std::uint64_t k, std::size_t forward, std::size_t reverse) {
      const double v = key_value(k);
      d.support.push_back(v);
      d.log_c.push_back(-v);
      d.forward_counts.push_back(forward);
      d.reverse_counts.push_back(reverse);
    };
    std::size_t i = 0, j = 0;
    while (i < nf && j < nr) {
      // The smaller key, chosen without a branch (the two sides interleave at random); both
      // sides advance past it. Repeats of a value are rare: those loops are well predicted.
      const std::uint64_t a = f[i], b = r[j], k = a <= b ? a : b;
      std::size_t cf = a == k, cr = b == k;
      i += cf, j += cr;
      for (; i < nf && f[i] == k; ++i) ++cf;
      for (; j < nr && r[j] == k; ++j) ++cr;
      add(k, cf, cr);
    }
    for (; i < nf;) {
      const std::uint64_t k = f[i];
      std::size_t cf = 0;
      for (; i < nf && f[i] == k; ++i) ++cf;
      add(k, cf, 0);
    }
    for (; j < nr;) {
      const std::uint64_t k = r[j];
      std::size_t cr = 0;
      for (; j < nr && r[j] == k; ++j) ++cr;
      add(k, 0, cr);
    }
    s = unbinned_support(wf, wr);
  } else {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double w : wf) lo = std::min(lo, w), hi = std::max(hi, w);
    for (double w : wr) lo = std::min(lo, -w), hi = std::max(hi, -w);
    if (lo == hi) {
      d.support = {lo};
      d.log_c = {-lo};
      d.forward_counts = {wf.size()};
      d.reverse_counts = {wr.size()};
    } else {
      const double width = (hi - lo) / static_cast<double>(bins);
      std::vector<std::size_t> nf(bins, 0), nr(bins, 0);
      auto index = [&](double v) {
        const double x = std::floor((v - lo) / width);
        return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, x)));
      };
      for (double w : wf) ++nf[index(w)];
      for (double w : wr) ++nr[index(-w)];
      // (1/h) int_a^{a+h} exp(-w) dw = exp(-a) (1 - exp(-h)) / h, in logs.
      const double log_shape = std::log(-std::expm1(-width)) - std::log(width);
      d.bin_width = width;
      for (std::size_t b = 0; b < bins; ++b) {
        if (nf[b] + nr[b] == 0) continue;  // an empty bin has pi_b = 0 in the MLE and the posterior
        const double a = lo + static_cast<double>(b) * width;
        d.support.push_back(a + 0.5 * width);
        d.log_c.push_back(-a + log_shape);
        d.forward_counts.push_back(nf[b]);
        d.reverse_counts.push_back(nr[b]);
      }
    }
  }
  if (bins > 0) {
    std::size_t forward_points = 0, reverse_points = 0;
    for (std::size_t b = 0; b < d.support.size(); ++b) {
      if (d.forward_counts[b] > 0) {
        ++forward_points;
        s.lowest_forward = std::min(s.lowest_forward, d.support[b]);
      }
      if (d.reverse_counts[b] > 0) {
        ++reverse_points;
        s.highest_reverse = std::max(s.highest_reverse, d.support[b]);
      }
    }
    s.forward_varies = forward_points > 1;
    s.reverse_varies = reverse_points > 1;
  }
  s.num_points = d.support.size();
  s.several_points = s.num_points > 1;
  return s;
}

// The maximum-likelihood (WHAM) equations for L = log Z. With x_b = log(N_r c_b / N_f) - L and
// s_b = 1 / (1 + exp(x_b)) (the forward share of point b), the MLE solves sum_b n_b s_b = N_f,
// i.e. (subtracting sum_b f_b s_b from both sides, f_b and r_b the forward and reverse counts)
//   h(L) = log sum_b r_b s_b - log sum_b f_b (1 - s_b) = 0.
// That is -g(-L) for Bennett's equation (bar.hpp) on the works -log c_b of the points, forward
// ones weighted by f_b and reverse ones (sign flipped: log c_b) by r_b; unbinned, those are the
// works themselves. In this balanced form neither side is a sum of terms close to 1, so it stays
// exact when forward and reverse works do not overlap (where sum_b n_b s_b rounds to N_f over a
// wide range of L and the plain form is flat).
struct WhamTerms {
  std::vector<double> forward, forward_weights, reverse, reverse_weights;
};

WhamTerms binned_terms(const WorkDistribution& d) {
  WhamTerms t;
  for (std::size_t b = 0; b < d.support.size(); ++b) {
    if (d.forward_counts[b] > 0) {
      t.forward.push_back(-d.log_c[b]);
      t.forward_weights.push_back(static_cast<double>(d.forward_counts[b]));
    }
    if (d.reverse_counts[b] > 0) {
      t.reverse.push_back(d.log_c[b]);
      t.reverse_weights.push_back(static_cast<double>(d.reverse_counts[b]));
    }
  }
  return t;
}

// log pi_b = log t_b = log(n_b / N_f) - log(1 + exp(x_b)) at the root, renormalised so that
// rounding leaves an exact distribution.
std::vector<double> log_weights(const WorkDistribution& d, double nf, double nr, double log_z) {
  constexpr std::size_t kChunk =
      4096;  // points per vectorised softplus call, in cache between the steps
  const std::size_t points = d.support.size();
  std::vector<double> lw(points);
  const double log_ratio = std::log(nr / nf), log_nf = std::log(nf);
  for (std::size_t first = 0; first < points; first += kChunk) {
    const std::size_t last = std::min(points, first + kChunk);
    const std::span<double> chunk(lw.data() + first, last - first);
    for (std::size_t b = first; b < last; ++b) lw[b] = log_ratio + d.log_c[b] - log_z;
    log1p_exp(chunk, chunk);
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t n = d.forward_counts[b] + d.reverse_counts[b];
      lw[b] = (n == 1 ? 0.0 : std::log(static_cast<double>(n))) - log_nf - lw[b];
    }
  }
  const double log_total = log_sum_exp_scaled(lw, 1.0);
  for (double& v : lw) v -= log_total;
  return lw;
}

// BAR's asymptotic error and the 2-state overlap for the works -log c_b at the solution
// (bar.hpp), from Bennett's sums there: a forward sample in point b has f(x_b), a reverse one
// f(-x_b), x_b = M - log c_b + log Z with M = log(N_f / N_r), f(x) = 1 / (1 + exp(x)).
void add_error_and_overlap(Estimate& est, const Support& s, const detail::BennettPoint& root,
                           double nf, double nr) {
  Diagnostics& diag = est.diagnostics;
  diag.overlap = detail::bar_overlap(root, nf, nr);
  if (diag.overlap < detail::kPoorOverlap) diag.add_flag("poor_overlap");
  if (nf < 2.0 || nr < 2.0) {
    diag.add_flag("too_few_samples");
    return;
  }
  // A side on one point contributes exactly 0.
  const double var = (s.forward_varies ? detail::bar_variance_term(root.forward, nf) : 0.0) +
                     (s.reverse_varies ? detail::bar_variance_term(root.reverse, nr) : 0.0);
  detail::set_std_error(est, s.several_points ? std::sqrt(var) : 0.0);
  // Every W_f above every -W_r (no point or bin holds both): log Z is only known to lie in the gap.
  if (s.lowest_forward > s.highest_reverse && std::isfinite(est.std_error)) {
    est.std_error = kNaN;
    diag.add_flag("no_overlap");
  }
}

// Solves h(log Z) = 0 (bar()'s safeguarded Newton on the same equation); fills log_weights of
// the distribution and the estimate's log Z, iterations, convergence, error and overlap.
void solve_wham(HistogramResult& result, const Support& s, std::span<const double> wf,
                std::span<const double> wr, const HistogramOptions& options) {
  WorkDistribution& d = result.distribution;
  Estimate& est = result.estimate;
  const double nf = static_cast<double>(wf.size()), nr = static_cast<double>(wr.size());
  WhamTerms terms;
  if (options.bins > 0) terms = binned_terms(d);
  const FermiTerms forward =
      options.bins > 0 ? FermiTerms(terms.forward, terms.forward_weights) : FermiTerms(wf);
  const FermiTerms reverse =
      options.bins > 0 ? FermiTerms(terms.reverse, terms.reverse_weights) : FermiTerms(wr);
  const detail::BennettEquation g(forward, reverse, nf, nr);
  detail::BennettPoint root;
  if (!s.several_points) {
    // One point: p_f is a point mass and Z = c exactly (c = exp(-w) at the one work w).
    est.log_z = options.bins > 0 ? d.log_c[0] : -s.lowest_forward;
    est.diagnostics.converged = true;
    root = g(-est.log_z);
  } else {
    const detail::BennettStart from = detail::bennett_start(wf, wr);
    const detail::BennettSolution solution =
        detail::solve_bennett(g, from.start, from.low, from.high, options.tolerance,
                              options.max_iterations, kHistogramBracketExpansions, "histogram");
    root = solution.root;
    est.log_z = -root.delta_f;
    est.diagnostics.iterations = solution.iterations;
    est.diagnostics.converged = solution.converged;
  }
  if (s.num_points > 0) {
    d.log_weights = s.several_points ? log_weights(d, nf, nr, est.log_z) : std::vector<double>{0.0};
  }
  if (!est.diagnostics.converged) est.diagnostics.add_flag("not_converged");
  if (s.num_points > 0)
    est.diagnostics.values.emplace_back("num_support", static_cast<double>(s.num_points));
  est.diagnostics.values.emplace_back("delta_f", -est.log_z);
  add_error_and_overlap(est, s, root, nf, nr);
}

// A Gamma(shape, 1) variate, returned as its log (Marsaglia & Tsang 2000; shape >= 1 here).
double log_gamma_variate(double shape, RandomStream& rng) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) U^(1/a) (Marsaglia & Tsang's boost), kept in logs for small a.
    return log_gamma_variate(shape + 1.0, rng) + std::log(rng.uniform()) / shape;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform(), x2 = x * x;
    // Marsaglia & Tsang's squeeze accepts most draws without the logarithms.
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d - d * v + d * std::log(v)) {
      return std::log(d) + std::log(v);
    }
  }
}

// Quantile of sorted data by linear interpolation between order statistics (type 7).
double quantile(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1.0) * p;
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (h - static_cast<double>(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace

HistogramResult histogram(std::span<const double> forward_works,
                          std::span<const double> reverse_works, const HistogramOptions& options) {
  check_options("histogram", forward_works, reverse_works, options);
  HistogramResult result;
  const Support support =
      options.bins == 0 && !options.distribution
          ? unbinned_support(forward_works, reverse_works)
          : make_support(result.distribution, forward_works, reverse_works, options.bins);
  Estimate& est = result.estimate;
  est.method = "histogram";
  est.se_method = "bar_asymptotic";
  solve_wham(result, support, forward_works, reverse_works, options);
  return result;
}

HistogramPosteriorResult histogram_posterior(std::span<const double> forward_works,
                                             std::span<const double> reverse_works,
                                             const HistogramPosteriorOptions& options) {
  check_options("histogram_posterior", forward_works, reverse_works, options.histogram);
  if (options.num_draws < 2) {
    fail_argument("histogram_posterior", "options.num_draws",
                  "at least 2, got " + std::to_string(options.num_draws));
  }
  if (options.num_draws + options.burn_in > std::numeric_limits<std::uint32_t>::max()) {
    fail_argument("histogram_posterior", "options.num_draws + options.burn_in",
                  "at most 2^32 - 1 sweeps");
  }
  if (!(options.prior_count >= 0.0) || !std::isfinite(options.prior_count)) {
    fail_argument("histogram_posterior", "options.prior_count",
                  "a finite number >= 0, got " + std::to_string(options.prior_count));
  }
  // The maximum-likelihood fit gives the starting point, the support and the flags of the data.
  HistogramOptions mle_options = options.histogram;
  mle_options.distribution = true;
  HistogramResult mle = histogram(forward_works, reverse_works, mle_options);
  HistogramPosteriorResult result;
  result.distribution = std::move(mle.distribution);
  const WorkDistribution& d = result.distribution;
  const std::size_t num_points = d.support.size();

  const double nf = static_cast<double>(forward_works.size());
  const double nr = static_cast<double>(reverse_works.size());
  const double log_nf = std::log(nf);
  std::vector<double> shape(num_points), log_g(num_points), log_gc(num_points);
  for (std::size_t b = 0; b < num_points; ++b) {
    shape[b] = static_cast<double>(d.forward_counts[b] + d.reverse_counts[b]) + options.prior_count;
  }
  std::vector<double> mean_pi(num_points, 0.0);

  // At the MLE, g = pi (sum g = 1 is the scale the fixed rate N_f implies) and lambda = N_r / Z.
  double log_lambda = std::log(nr) - mle.estimate.log_z;
  const std::size_t sweeps = options.burn_in + options.num_draws;
  result.draws.reserve(options.num_draws);
  for (std::size_t t = 0; t < sweeps; ++t) {
    RandomStream rng(options.seed, 0, Purpose::posterior, static_cast<std::uint32_t>(t));
    for (std::size_t b = 0; b < num_points; ++b) {
      // Ctrl-C must stop within a second, and one sweep over 10^6 points takes 0.15 s (more than
      // a second under a sanitizer): check every 4096 points, not only between sweeps.
      if (b % 4096 == 0) options.stop.throw_if_requested();
      // rate N_f + lambda c_b, in logs: c_b spans many orders of magnitude.
      const double log_rate = log_add_exp(log_nf, log_lambda + d.log_c[b]);
      log_g[b] = log_gamma_variate(shape[b], rng) - log_rate;
      log_gc[b] = log_g[b] + d.log_c[b];
    }
    const double log_z0 = log_sum_exp(log_g), log_z1 = log_sum_exp(log_gc);
    log_lambda = log_gamma_variate(nr, rng) - log_z1;
    if (t < options.burn_in) continue;
    result.draws.push_back(log_z1 - log_z0);
    for (std::size_t b = 0; b < num_points; ++b) mean_pi[b] += std::exp(log_g[b] - log_z0);
  }
  const double num_draws = static_cast<double>(options.num_draws);
  for (std::size_t b = 0; b < num_points; ++b) {
    result.distribution.log_weights[b] = std::log(mean_pi[b] / num_draws);
  }

  Estimate& est = result.estimate;
  est.method = "histogram_posterior";
  est.se_method = "posterior_sd";
  double mean = 0.0;
  for (double v : result.draws) mean += v;
  mean /= num_draws;
  double ss = 0.0;
  for (double v : result.draws) ss += (v - mean) * (v - mean);
  est.log_z = mean;
  Diagnostics& diag = est.diagnostics;
  diag.iterations = static_cast<int>(std::min<std::size_t>(sweeps, INT32_MAX));
  diag.overlap = mle.estimate.diagnostics.overlap;
  for (const auto& f : mle.estimate.diagnostics.flags) diag.add_flag(f);
  std::vector<double> sorted = result.draws;
  std::sort(sorted.begin(), sorted.end());
  diag.values.emplace_back("ci95_low", quantile(sorted, 0.025));
  diag.values.emplace_back("ci95_high", quantile(sorted, 0.975));
  const double ess = effective_sample_size(result.draws);
  diag.values.emplace_back("posterior_ess", ess);
  diag.values.emplace_back("num_draws", num_draws);
  diag.values.emplace_back("burn_in", static_cast<double>(options.burn_in));
  diag.values.emplace_back("mle_log_z", mle.estimate.log_z);
  if (!(ess >= kLowPosteriorEss)) diag.add_flag("low_posterior_ess");
  const double sd = std::sqrt(ss / (num_draws - 1.0));
  if (std::isfinite(sd) && sd > 0.0 && std::isfinite(est.log_z)) {
    est.std_error = sd;
  } else if (!diag.has_flag("zero_variance") && !diag.has_flag("overflow")) {
    detail::set_std_error(est, sd);
  }
  return result;
}

}  // namespace logz
