// Estimators over forward and reverse works (ais, raise, bounds, bar) on synthetic Gaussian
// works that satisfy Crooks' relation: forward W_f ~ N(mu, s^2) and reverse W_r ~ N(s^2 - mu, s^2)
// give log Z = s^2/2 - mu exactly.
//
// Accuracy rule: |estimate - truth| <= 5 std_error + std_error^2. The std_error^2 term is a bias
// allowance: the log of a sample mean is biased low by about std_error^2 / 2 (delta method), and
// BAR's bias is smaller still, so twice that first-order bias leaves room.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/math/fermi_sums.hpp"
#include "logz/math/log_space_arrays.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/value_range.hpp"

namespace {

// Standard normal deviates: std::mt19937_64 (whose output the standard fixes) and Box-Muller,
// so the data do not depend on the library's normal_distribution.
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : engine_(seed) {}
  double operator()() {
    const double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = static_cast<double>(engine_() >> 11) * 0x1.0p-53;          // [0, 1)
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 engine_;
};

std::vector<double> engine_gaussian(double mean, double sd, std::size_t n, std::uint64_t seed) {
  Normal normal(seed);
  std::vector<double> x(n);
  for (double& v : x) v = mean + sd * normal();
  return x;
}

// Crooks-consistent Gaussian works for log Z = s^2/2 - mu.
std::vector<double> forward_works(double mu, double s, std::size_t n, std::uint64_t seed) {
  return engine_gaussian(mu, s, n, seed);
}
std::vector<double> reverse_works(double mu, double s, std::size_t n, std::uint64_t seed) {
  return engine_gaussian(s * s - mu, s, n, seed);
}
double true_log_z(double mu, double s) { return 0.5 * s * s - mu; }

constexpr double kMu = 5.0, kS = 1.5;
constexpr std::size_t kN = 2000;

void expect_close_to_truth(const logz::Estimate& est, double truth) {
  ASSERT_TRUE(std::isfinite(est.std_error)) << est.method;
  EXPECT_GT(est.std_error, 0.0) << est.method;
  EXPECT_LE(std::abs(est.log_z - truth), 5.0 * est.std_error + est.std_error * est.std_error)
      << est.method << ": log_z " << est.log_z << " truth " << truth << " se " << est.std_error;
}

double value(const logz::Estimate& est, const std::string& name) {
  for (const auto& [key, v] : est.diagnostics.values) {
    if (key == name) return v;
  }
  ADD_FAILURE() << est.method << " has no value " << name;
  return std::numeric_limits<double>::quiet_NaN();
}

template <class F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const logz::InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected logz::InvalidArgument";
  return {};
}

class GaussianWorks : public ::testing::Test {
 protected:
  std::vector<double> wf = forward_works(kMu, kS, kN, 11);
  std::vector<double> wr = reverse_works(kMu, kS, kN, 12);
  double truth = true_log_z(kMu, kS);
};

TEST_F(GaussianWorks, AisRaiseAndBarAreWithinTheirErrors) {
  const logz::Estimate a = logz::ais(wf), r = logz::raise(wr), b = logz::bar(wf, wr);
  EXPECT_EQ(a.method, "ais");
  EXPECT_EQ(r.method, "raise");
  EXPECT_EQ(b.method, "bar");
  EXPECT_EQ(a.se_method, "delta");
  EXPECT_EQ(r.se_method, "delta");
  EXPECT_EQ(b.se_method, "bar_asymptotic");
  expect_close_to_truth(a, truth);
  expect_close_to_truth(r, truth);
  expect_close_to_truth(b, truth);
  EXPECT_TRUE(b.diagnostics.converged);
  EXPECT_GT(b.diagnostics.iterations, 0);
  EXPECT_TRUE(b.diagnostics.flags.empty()) << b.diagnostics.flags.front();
  EXPECT_DOUBLE_EQ(value(b, "delta_f"), -b.log_z);
}

TEST_F(GaussianWorks, BoundsSandwichTheTruth) {
  const logz::Estimate lo = logz::lower_bound(wf), up = logz::upper_bound(wr);
  EXPECT_EQ(lo.method, "lower_bound");
  EXPECT_EQ(up.method, "upper_bound");
  EXPECT_EQ(lo.se_method, "sample_mean");
  EXPECT_LT(lo.log_z, truth);
  EXPECT_GT(up.log_z, truth);
  // The bounds estimate -mu and s^2 - mu; their error is sd / sqrt(M).
  EXPECT_NEAR(lo.std_error, kS / std::sqrt(double(kN)), 0.1 * kS / std::sqrt(double(kN)));
  EXPECT_LE(std::abs(lo.log_z - (-kMu)), 5.0 * lo.std_error);
  EXPECT_LE(std::abs(up.log_z - (kS * kS - kMu)), 5.0 * up.std_error);
}

TEST_F(GaussianWorks, BarMatchesFixedPointIteration) {
  const logz::Estimate b = logz::bar(wf, wr), fp = logz::bar_fixed_point(wf, wr);
  EXPECT_EQ(fp.method, "bar_fixed_point");
  EXPECT_TRUE(fp.diagnostics.converged);
  EXPECT_NEAR(b.log_z, fp.log_z, 1e-8);
  EXPECT_NEAR(b.std_error, fp.std_error, 1e-8);
  EXPECT_NEAR(b.diagnostics.overlap, fp.diagnostics.overlap, 1e-8);
}

TEST_F(GaussianWorks, BarErrorIsSmallerThanExponentialAverages) {
  const logz::Estimate a = logz::ais(wf), r = logz::raise(wr), b = logz::bar(wf, wr);
  EXPECT_LT(b.std_error, a.std_error);
  EXPECT_LT(b.std_error, r.std_error);
}

TEST_F(GaussianWorks, WeightDiagnostics) {
  const logz::Estimate a = logz::ais(wf);
  // Lognormal weights: ESS / M -> exp(-s^2) = 0.105.
  EXPECT_GT(a.diagnostics.ess, 0.05 * kN);
  EXPECT_LT(a.diagnostics.ess, 0.2 * kN);
  EXPECT_DOUBLE_EQ(value(a, "ess_fraction"), a.diagnostics.ess / double(kN));
  EXPECT_GT(value(a, "max_weight_fraction"), 0.0);
  EXPECT_LT(value(a, "max_weight_fraction"), 0.1);
  EXPECT_FALSE(a.diagnostics.has_flag("low_ess"));
  const logz::Estimate b = logz::bar(wf, wr);
  EXPECT_GT(b.diagnostics.overlap, 0.1);
  EXPECT_LE(b.diagnostics.overlap, 1.0);
}

TEST_F(GaussianWorks, ShiftBy1e5ShiftsTheAnswer) {
  constexpr double shift = 1e5;
  std::vector<double> wf_shifted = wf, wr_shifted = wr;
  for (double& w : wf_shifted) w += shift;  // log Z -> log Z - shift
  for (double& w : wr_shifted) w -= shift;
  const auto check = [&](const logz::Estimate& base, const logz::Estimate& shifted) {
    EXPECT_NEAR(shifted.log_z, base.log_z - shift, 1e-8) << base.method;
    EXPECT_NEAR(shifted.std_error, base.std_error, 1e-8 * base.std_error) << base.method;
  };
  check(logz::ais(wf), logz::ais(wf_shifted));
  check(logz::raise(wr), logz::raise(wr_shifted));
  check(logz::lower_bound(wf), logz::lower_bound(wf_shifted));
  check(logz::upper_bound(wr), logz::upper_bound(wr_shifted));
  check(logz::bar(wf, wr), logz::bar(wf_shifted, wr_shifted));
  check(logz::bar_fixed_point(wf, wr), logz::bar_fixed_point(wf_shifted, wr_shifted));
  EXPECT_NEAR(logz::ais(wf_shifted).diagnostics.ess, logz::ais(wf).diagnostics.ess, 1e-6);
  EXPECT_NEAR(logz::bar(wf_shifted, wr_shifted).diagnostics.overlap,
              logz::bar(wf, wr).diagnostics.overlap, 1e-8);
}

TEST(Estimators, UnequalSampleSizes) {
  const std::vector<double> wf = forward_works(kMu, kS, 3000, 21);
  const std::vector<double> wr = reverse_works(kMu, kS, 700, 22);
  const double truth = true_log_z(kMu, kS);
  const logz::Estimate b = logz::bar(wf, wr), fp = logz::bar_fixed_point(wf, wr);
  expect_close_to_truth(b, truth);
  EXPECT_TRUE(b.diagnostics.converged);
  EXPECT_TRUE(fp.diagnostics.converged);
  EXPECT_NEAR(b.log_z, fp.log_z, 1e-8);
  expect_close_to_truth(logz::ais(wf), truth);
  expect_close_to_truth(logz::raise(wr), truth);
}

// W_f = c, W_r = -c: log Z = -c exactly for every estimator. The sample has no spread, so the
// error formulas give 0; we report std_error NaN with flag "zero_variance" (the Estimate
// contract: never 0) rather than claim certainty from a sample that cannot show its spread.
TEST(Estimators, AllEqualWorks) {
  constexpr double c = 2.5;
  for (std::size_t nr : {10u, 4u}) {
    const std::vector<double> wf(10, c), wr(nr, -c);
    for (const logz::Estimate& est :
         {logz::ais(wf), logz::raise(wr), logz::bar(wf, wr), logz::bar_fixed_point(wf, wr),
          logz::lower_bound(wf), logz::upper_bound(wr)}) {
      EXPECT_NEAR(est.log_z, -c, 1e-14) << est.method;
      EXPECT_TRUE(std::isnan(est.std_error)) << est.method;
      EXPECT_TRUE(est.diagnostics.has_flag("zero_variance")) << est.method;
      EXPECT_TRUE(est.diagnostics.converged) << est.method;
    }
    EXPECT_DOUBLE_EQ(logz::ais(wf).diagnostics.ess, 10.0);
    EXPECT_FALSE(logz::ais(wf).diagnostics.has_flag("low_ess"));
    // Identical forward and time-reversed reverse distributions: overlap 1 (any N_f, N_r).
    EXPECT_NEAR(logz::bar(wf, wr).diagnostics.overlap, 1.0, 1e-12);
  }
}

// Two weights by hand: W = {0, log 2} gives w = {1, 1/2}, log Z = log(3/4),
// ESS = (3/2)^2 / (5/4) = 1.8 and SE = sd(w) / (sqrt(2) mean(w)) = sqrt(1/8) / (sqrt(2) 3/4) = 1/3.
TEST(Estimators, AisByHand) {
  const std::vector<double> wf = {0.0, std::log(2.0)};
  const logz::Estimate a = logz::ais(wf);
  EXPECT_NEAR(a.log_z, std::log(0.75), 1e-15);
  EXPECT_NEAR(a.diagnostics.ess, 1.8, 1e-14);
  EXPECT_NEAR(a.std_error, 1.0 / 3.0, 1e-14);
  EXPECT_NEAR(value(a, "max_weight_fraction"), 2.0 / 3.0, 1e-15);
  EXPECT_TRUE(a.diagnostics.has_flag("low_ess"));        // 1.8 < 10
  const std::vector<double> wr = {0.0, -std::log(2.0)};  // weights {1, 2}: log Z = -log(3/2)
  EXPECT_NEAR(logz::raise(wr).log_z, -std::log(1.5), 1e-15);
}

// A small fixed dataset against an independent transcription of pymbar 3's BAR (false position,
// relative_tolerance 1e-12, uncertainty_method 'BAR') in Python/NumPy; the overlap is
// O_01 + O_10 of the 2-state MBAR overlap matrix W^T W diag(N) built from the same data.
TEST(Estimators, BarSmallDatasetReference) {
  const std::vector<double> wf = {1.0, 2.5, 0.3, 4.0, 1.7, 3.1, -0.4};
  const std::vector<double> wr = {-0.5, 0.8, -1.2, 2.0, 0.1};
  const double ref_delta_f = 0.6988459701350311, ref_d_delta_f = 0.39890234251771767;
  const double ref_overlap = 0.6825952495648034;
  for (const logz::Estimate& b : {logz::bar(wf, wr), logz::bar_fixed_point(wf, wr)}) {
    EXPECT_NEAR(-b.log_z, ref_delta_f, 1e-10) << b.method;
    EXPECT_NEAR(b.std_error, ref_d_delta_f, 1e-10) << b.method;
    EXPECT_NEAR(b.diagnostics.overlap, ref_overlap, 1e-10) << b.method;
  }
}

TEST(Estimators, LowEssIsFlagged) {
  std::vector<double> wf(100, 50.0);
  wf[0] = 0.0;  // one weight dominates: ESS ~ 1
  const logz::Estimate a = logz::ais(wf);
  EXPECT_NEAR(a.diagnostics.ess, 1.0, 1e-12);
  EXPECT_TRUE(a.diagnostics.has_flag("low_ess"));
  EXPECT_NEAR(value(a, "max_weight_fraction"), 1.0, 1e-12);
}

TEST(Estimators, TooFewSamples) {
  const std::vector<double> one = {3.0}, many = forward_works(kMu, kS, 50, 31);
  const logz::Estimate a = logz::ais(one);
  EXPECT_DOUBLE_EQ(a.log_z, -3.0);
  EXPECT_TRUE(std::isnan(a.std_error));
  EXPECT_TRUE(a.diagnostics.has_flag("too_few_samples"));
  EXPECT_TRUE(logz::raise(one).diagnostics.has_flag("too_few_samples"));
  EXPECT_TRUE(logz::lower_bound(one).diagnostics.has_flag("too_few_samples"));
  EXPECT_TRUE(std::isnan(logz::upper_bound(one).std_error));
  for (const logz::Estimate& b : {logz::bar(one, many), logz::bar(many, one)}) {
    EXPECT_TRUE(std::isfinite(b.log_z));
    EXPECT_TRUE(b.diagnostics.converged);
    EXPECT_TRUE(std::isnan(b.std_error));
    EXPECT_TRUE(b.diagnostics.has_flag("too_few_samples"));
  }
}

TEST(Estimators, NonFiniteInputThrowsWithIndex) {
  std::vector<double> works = forward_works(kMu, kS, 30, 41);
  const std::vector<double> good = works;
  works[17] = std::numeric_limits<double>::quiet_NaN();
  std::string msg = invalid_argument_message([&] { logz::ais(works); });
  EXPECT_EQ(msg, "ais: forward_works[17]: expected finite values, got nan");
  msg = invalid_argument_message([&] { logz::lower_bound(works); });
  EXPECT_NE(msg.find("lower_bound: forward_works[17]"), std::string::npos) << msg;
  msg = invalid_argument_message([&] { logz::bar(works, good); });
  EXPECT_NE(msg.find("bar: forward_works[17]"), std::string::npos) << msg;

  works = good;
  works[3] = std::numeric_limits<double>::infinity();
  msg = invalid_argument_message([&] { logz::raise(works); });
  EXPECT_EQ(msg, "raise: reverse_works[3]: expected finite values, got inf");
  works[3] = -std::numeric_limits<double>::infinity();
  msg = invalid_argument_message([&] { logz::bar_fixed_point(good, works); });
  EXPECT_EQ(msg, "bar_fixed_point: reverse_works[3]: expected finite values, got -inf");
  msg = invalid_argument_message([&] { logz::upper_bound(works); });
  EXPECT_NE(msg.find("upper_bound: reverse_works[3]"), std::string::npos) << msg;
}

TEST(Estimators, EmptyInputThrows) {
  const std::vector<double> empty, some = {1.0, 2.0};
  EXPECT_THROW(logz::ais(empty), logz::InvalidArgument);
  EXPECT_THROW(logz::raise(empty), logz::InvalidArgument);
  EXPECT_THROW(logz::lower_bound(empty), logz::InvalidArgument);
  EXPECT_THROW(logz::upper_bound(empty), logz::InvalidArgument);
  EXPECT_THROW(logz::bar(empty, some), logz::InvalidArgument);
  EXPECT_THROW(logz::bar(some, empty), logz::InvalidArgument);
  EXPECT_THROW(logz::bar_fixed_point(some, empty), logz::InvalidArgument);
}

TEST(Estimators, BadBarOptionsThrow) {
  const std::vector<double> w = {1.0, 2.0};
  EXPECT_THROW(logz::bar(w, w, {.tolerance = 0.0}), logz::InvalidArgument);
  EXPECT_THROW(logz::bar(w, w, {.tolerance = logz::kNaN}), logz::InvalidArgument);
  EXPECT_THROW(logz::bar(w, w, {.max_iterations = 0}), logz::InvalidArgument);
  EXPECT_THROW(logz::bar_fixed_point(w, w, {.max_iterations = -1}), logz::InvalidArgument);
}

TEST(Estimators, IterationLimitIsReported) {
  const std::vector<double> wf = forward_works(kMu, kS, 200, 51);
  const std::vector<double> wr = reverse_works(kMu, kS, 200, 52);
  for (const logz::Estimate& est : {logz::bar(wf, wr, {.max_iterations = 1}),
                                    logz::bar_fixed_point(wf, wr, {.max_iterations = 1})}) {
    EXPECT_FALSE(est.diagnostics.converged) << est.method;
    EXPECT_TRUE(est.diagnostics.has_flag("not_converged")) << est.method;
    EXPECT_EQ(est.diagnostics.iterations, 1) << est.method;
    EXPECT_TRUE(std::isfinite(est.log_z)) << est.method;
  }
}

TEST(Estimators, NoOverlapIsFlaggedAndStillConverges) {
  // Crooks-consistent but far apart: s = 8 puts forward and time-reversed reverse works
  // 64 nats (8 sd) apart.
  const std::vector<double> wf = forward_works(40.0, 8.0, 200, 61);
  const std::vector<double> wr = reverse_works(40.0, 8.0, 200, 62);
  const logz::Estimate b = logz::bar(wf, wr);
  EXPECT_TRUE(b.diagnostics.converged);
  EXPECT_TRUE(b.diagnostics.has_flag("poor_overlap"));
  EXPECT_LT(b.diagnostics.overlap, 0.03);
  EXPECT_TRUE(std::isfinite(b.log_z));
  // Every W_f above every -W_r: the asymptotic error would mean nothing.
  EXPECT_TRUE(std::isnan(b.std_error));
  EXPECT_TRUE(b.diagnostics.has_flag("no_overlap"));

  // Disjoint works of order 1e5: the log-space solver neither overflows nor stalls.
  const std::vector<double> far_f = engine_gaussian(1e5, 1.0, 100, 63);
  const std::vector<double> far_r = engine_gaussian(1e5, 1.0, 100, 64);
  const logz::Estimate far = logz::bar(far_f, far_r);
  EXPECT_TRUE(far.diagnostics.converged);
  EXPECT_TRUE(far.diagnostics.has_flag("poor_overlap"));
  EXPECT_LT(far.diagnostics.overlap, 1e-100);
  EXPECT_GT(far.log_z, logz::lower_bound(far_f).log_z);
  EXPECT_LT(far.log_z, logz::upper_bound(far_r).log_z);
}

// ---------------------------------------------------------------------------------------------
// The vectorised kernels under bar() and histogram() against the scalar formulas they replace.

// Within a few units in the last place (Highway's exp, log and log1p: 1, 4 and 2 ulp), or a few
// subnormal steps where the result is subnormal.
void expect_close_ulps(double got, double want, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
  } else if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
  } else {
    EXPECT_NEAR(got, want, 8 * std::numeric_limits<double>::epsilon() * std::abs(want) + 1e-320)
        << what;
  }
}

TEST(VectorisedLogSpace, ValueRangeIsTheSmallestAndLargestAtEveryLength) {
  // Every length up to a few vectors (the tail after whole vectors included), extremes anywhere.
  std::mt19937_64 gen(3);
  std::normal_distribution<double> normal;
  for (std::size_t n = 0; n <= 70; ++n) {
    std::vector<double> x(n);
    for (double& v : x) v = normal(gen);
    if (n > 0) x[gen() % n] = 1e300, x[gen() % n] = -5e299;
    const logz::ValueRange r = logz::value_range(x);
    if (n == 0) {
      EXPECT_EQ(r.lowest, std::numeric_limits<double>::infinity());
      EXPECT_EQ(r.highest, -std::numeric_limits<double>::infinity());
      continue;
    }
    const auto [low, high] = std::minmax_element(x.begin(), x.end());
    EXPECT_EQ(r.lowest, *low) << n;
    EXPECT_EQ(r.highest, *high) << n;
  }
}

TEST(VectorisedLogSpace, Log1pExpMatchesTheScalarFormulaAtTheEdges) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {0.0,   -0.0,  1e-300, -1e-300, 1.0,   -1.0,   36.0,   37.0,   -36.0,
                           -37.0, 700.0, -700.0, 709.0,   710.0, -708.0, -740.0, -745.0, -746.0,
                           1e5,   -1e5,  1e300,  -1e300,  inf,   -inf,   nan};
  // Ordinary numbers too, so that every lane and the tail (not a whole vector) see both kinds.
  for (double v : engine_gaussian(0.0, 20.0, 37, 71)) x.push_back(v);
  std::vector<double> out(x.size());
  logz::log1p_exp(x, out);
  for (std::size_t i = 0; i < x.size(); ++i) {
    // std::log1p(std::exp(x)) where it does not overflow; x + log1p(exp(-x)) above.
    const double want = x[i] > 0 ? x[i] + std::log1p(std::exp(-x[i])) : std::log1p(std::exp(x[i]));
    expect_close_ulps(out[i], want, "x = " + std::to_string(x[i]));
    expect_close_ulps(out[i], logz::log1p_exp(x[i]),
                      "scalar log1p_exp, x = " + std::to_string(x[i]));
  }
  // In place, and sizes that do not match.
  std::vector<double> same = x;
  logz::log1p_exp(same, same);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(out[i])) {
      EXPECT_EQ(same[i], out[i]) << i;
    }
  }
  std::vector<double> short_out(3);
  EXPECT_THROW(logz::log1p_exp(x, short_out), logz::InvalidArgument);
}

TEST(VectorisedLogSpace, ExpMatchesTheScalarOneAndKeepsNans) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {0.0,    -0.0,   1e-300, 1.0,  -1.0, 700.0, -700.0,
                           -708.0, -740.0, -745.0, -1e5, -inf, nan};
  for (double v : engine_gaussian(0.0, 20.0, 37, 73)) x.push_back(v);  // every lane, and a tail
  std::vector<double> out(x.size());
  logz::exp_array(x, out);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(out[i]));
    } else if (x[i] < -708.0) {  // subnormal or zero: absolute, not relative, agreement
      EXPECT_NEAR(out[i], std::exp(x[i]), 1e-300) << x[i];
    } else {
      expect_close_ulps(out[i], std::exp(x[i]), "x = " + std::to_string(x[i]));
    }
  }
  logz::exp_array(x, x);  // in place
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(out[i])) {
      EXPECT_EQ(x[i], out[i]) << i;
    }
  std::vector<double> short_out(3);
  EXPECT_THROW(logz::exp_array(out, short_out), logz::InvalidArgument);
}

TEST(VectorisedLogSpace, LogSumExpScaledMatchesTheScalarOneAtPlusMinus1e4) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  for (double centre : {0.0, 1e4, -1e4}) {
    for (std::size_t n : {1u, 7u, 8u, 1001u}) {
      std::vector<double> x = engine_gaussian(centre, 3.0, n, 72 + n);
      for (double scale : {1.0, -1.0, 0.5}) {
        std::vector<double> scaled(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) scaled[i] = scale * x[i];
        const double want = logz::log_sum_exp(scaled);
        EXPECT_NEAR(logz::log_sum_exp_scaled(x, scale), want, 1e-13 * std::max(1.0, std::abs(want)))
            << centre << " " << n << " " << scale;
      }
    }
  }
  const std::vector<double> empty, minus_inf(9, -inf), with_nan = {1.0, nan, 2.0},
                                                       with_inf = {1.0, inf, 2.0};
  EXPECT_EQ(logz::log_sum_exp_scaled(empty, 1.0), -inf);
  EXPECT_EQ(logz::log_sum_exp_scaled(minus_inf, 1.0), -inf);
  EXPECT_TRUE(std::isnan(logz::log_sum_exp_scaled(with_nan, 1.0)));
  EXPECT_EQ(logz::log_sum_exp_scaled(with_inf, 1.0), inf);
  EXPECT_DOUBLE_EQ(logz::log_sum_exp_scaled(with_inf, -1.0),
                   logz::log_sum_exp(std::vector<double>{-1.0, -inf, -2.0}));
}

TEST(FermiSums, MatchTheLogSpaceSumsAtAnyShift) {
  // f(x) = 1 / (1 + e^x): log f = -log1p_exp(x), log f(-x) = -log1p_exp(-x); the reference sums
  // in log space, term by term.
  const std::vector<double> a = engine_gaussian(2.0, 4.0, 1001, 73);
  std::vector<double> weights(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) weights[i] = 1.0 + static_cast<double>(i % 5);
  for (bool weighted : {false, true}) {
    const logz::FermiTerms terms(
        a, weighted ? std::span<const double>(weights) : std::span<const double>());
    EXPECT_EQ(terms.lowest(), *std::min_element(a.begin(), a.end()));
    for (double shift : {0.0, 3.0, -3.0, 40.0, -40.0, 800.0, -800.0, 1e5, -1e5}) {
      std::vector<double> lf, lf2, lff;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double x = a[i] + shift, lw = weighted ? std::log(weights[i]) : 0.0;
        lf.push_back(lw - logz::log1p_exp(x));
        lf2.push_back(lw - 2.0 * logz::log1p_exp(x));
        lff.push_back(lw - logz::log1p_exp(x) - logz::log1p_exp(-x));
      }
      const logz::FermiSums s = terms.at(shift);
      const double log_f = logz::log_sum_exp(lf);
      const std::string at = "shift " + std::to_string(shift) + (weighted ? " weighted" : "");
      EXPECT_NEAR(s.log_f(), log_f, 1e-13 * std::max(1.0, std::abs(log_f))) << at;
      EXPECT_NEAR(std::log(s.f_squared) - 2.0 * s.log_scale, logz::log_sum_exp(lf2),
                  1e-13 * std::max(1.0, std::abs(log_f)))
          << at;
      EXPECT_NEAR(s.slope(), std::exp(logz::log_sum_exp(lff) - log_f), 1e-13) << at;
      EXPECT_GE(s.log_scale, 0.0) << at;
      EXPECT_GE(s.f, 0.5) << at << ": the largest scaled term is at least 1/2";
    }
  }
  EXPECT_THROW(logz::FermiTerms(a, std::span<const double>(weights).first(3)),
               logz::InvalidArgument);
}

}  // namespace
