// The nonequilibrium estimators beyond AIS/RAISE/BAR: Hummer's cumulant estimators, the
// histogram (WHAM) estimator, its Gibbs posterior and the Crooks crossing, on synthetic Gaussian
// works that satisfy Crooks' relation: forward W_f ~ N(mu, s^2) and reverse W_r ~ N(s^2 - mu, s^2)
// give log Z = s^2/2 - mu exactly. Gaussian data come from Philox streams (Purpose::test).
//
// Accuracy rule: |estimate - truth| <= 5 std_error + std_error^2 (the square: a bias allowance of
// twice the delta-method bias of a log-mean), with std_error finite and below a target fixed here
// in advance. The Gibbs sampler is checked against an independent oracle: the posterior of a
// two-point histogram integrated by quadrature.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/random/philox.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"

namespace {

using logz::Estimate;

std::vector<double> gaussian(double mean, double sd, std::size_t n, std::uint64_t seed,
                             std::uint64_t stream) {
  logz::RandomStream rng(seed, stream, logz::Purpose::test, 0);
  std::vector<double> x(n);
  for (double& v : x) v = mean + sd * rng.normal();
  return x;
}

struct Works {
  std::vector<double> forward, reverse;
};

// Crooks-consistent Gaussian works for log Z = s^2/2 - mu.
Works gaussian_works(double mu, double s, std::size_t nf, std::size_t nr, std::uint64_t seed) {
  return {gaussian(mu, s, nf, seed, 0), gaussian(s * s - mu, s, nr, seed, 1)};
}
double true_log_z(double mu, double s) { return 0.5 * s * s - mu; }

constexpr double kMu = 5.0, kS = 1.5;
constexpr std::size_t kN = 2000;

void expect_close(const Estimate& est, double truth, double se_target) {
  ASSERT_TRUE(std::isfinite(est.std_error)) << est.method;
  EXPECT_GT(est.std_error, 0.0) << est.method;
  EXPECT_LT(est.std_error, se_target) << est.method;
  EXPECT_LE(std::abs(est.log_z - truth), 5.0 * est.std_error + est.std_error * est.std_error)
      << est.method << ": log_z " << est.log_z << " truth " << truth << " se " << est.std_error;
}

double value(const Estimate& est, const std::string& name) {
  for (const auto& [key, v] : est.diagnostics.values)
    if (key == name) return v;
  ADD_FAILURE() << est.method << " has no value " << name;
  return std::numeric_limits<double>::quiet_NaN();
}

double log_sum_exp2(double a, double b) {
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// ---------------------------------------------------------------------------------------------
// Cumulant estimators

TEST(Cumulant, AllThreeRecoverGaussianLogZ) {
  const Works w = gaussian_works(kMu, kS, kN, kN, 11);
  const double truth = true_log_z(kMu, kS);
  const Estimate f = logz::cumulant_forward(w.forward);
  const Estimate r = logz::cumulant_reverse(w.reverse);
  const Estimate c = logz::cumulant(w.forward, w.reverse);
  EXPECT_EQ(f.method, "cumulant_forward");
  EXPECT_EQ(r.method, "cumulant_reverse");
  EXPECT_EQ(c.method, "cumulant");
  EXPECT_EQ(c.se_method, "delta");
  // Targets: sqrt((s^2 + s^4/2) / N) = 0.049 one-sided, about 0.025 two-sided.
  expect_close(f, truth, 0.07);
  expect_close(r, truth, 0.07);
  expect_close(c, truth, 0.035);
  for (const Estimate* e : {&f, &r, &c}) EXPECT_FALSE(e->diagnostics.has_flag("non_gaussian"));
}

TEST(Cumulant, FormulasOnAHandExample) {
  // W_f = {1, 2, 3, 6}: mean 3, var 14/3; W_r = {0, 2, 1, 1}: mean 1, var 2/3.
  const std::vector<double> wf = {1, 2, 3, 6}, wr = {0, 2, 1, 1};
  EXPECT_NEAR(logz::cumulant_forward(wf).log_z, -3.0 + 7.0 / 3.0, 1e-14);
  EXPECT_NEAR(logz::cumulant_reverse(wr).log_z, 1.0 - 1.0 / 3.0, 1e-14);
  EXPECT_NEAR(logz::cumulant(wf, wr).log_z, 0.5 * (1.0 - 3.0) + (14.0 / 3.0 - 2.0 / 3.0) / 12.0,
              1e-14);
}

TEST(Cumulant, DeltaMethodErrorMatchesTheSpreadOverReplicates) {
  // 300 replicates of 200 works: the sd of the estimates has a relative error of about 4%, so
  // the mean reported error must be within 20% of it.
  constexpr int kReps = 300;
  std::vector<double> est_f, est_c, se_f, se_c;
  for (int k = 0; k < kReps; ++k) {
    const Works w = gaussian_works(kMu, kS, 200, 200, 1000 + k);
    const Estimate f = logz::cumulant_forward(w.forward), c = logz::cumulant(w.forward, w.reverse);
    est_f.push_back(f.log_z), se_f.push_back(f.std_error);
    est_c.push_back(c.log_z), se_c.push_back(c.std_error);
  }
  auto sd = [](const std::vector<double>& x) {
    double m = 0.0, ss = 0.0;
    for (double v : x) m += v;
    m /= static_cast<double>(x.size());
    for (double v : x) ss += (v - m) * (v - m);
    return std::sqrt(ss / static_cast<double>(x.size() - 1));
  };
  auto mean = [](const std::vector<double>& x) {
    double m = 0.0;
    for (double v : x) m += v;
    return m / static_cast<double>(x.size());
  };
  EXPECT_NEAR(mean(se_f) / sd(est_f), 1.0, 0.2);
  EXPECT_NEAR(mean(se_c) / sd(est_c), 1.0, 0.2);
  // Unbiased for Gaussian works: the mean over replicates is within 5 of its own errors.
  const double truth = true_log_z(kMu, kS);
  EXPECT_LE(std::abs(mean(est_c) - truth), 5.0 * sd(est_c) / std::sqrt(double(kReps)));
  EXPECT_LE(std::abs(mean(est_f) - truth), 5.0 * sd(est_f) / std::sqrt(double(kReps)));
}

TEST(Cumulant, SkewedWorksAreFlaggedNonGaussian) {
  // Exponential forward works: third cumulant 2 s^3, far more than the error of 4000 works.
  logz::RandomStream rng(3, 0, logz::Purpose::test, 0);
  std::vector<double> wf(4000), wr(4000);
  for (double& v : wf) v = -2.0 * std::log(rng.uniform());
  for (double& v : wr) v = -2.0 * std::log(rng.uniform()) - 6.0;
  EXPECT_TRUE(logz::cumulant_forward(wf).diagnostics.has_flag("non_gaussian"));
  EXPECT_TRUE(logz::cumulant(wf, wr).diagnostics.has_flag("non_gaussian"));
}

TEST(Cumulant, DegenerateInputs) {
  const std::vector<double> one = {1.0}, same = {2.0, 2.0, 2.0}, nan = {1.0, std::nan("")};
  const Estimate e1 = logz::cumulant_forward(one);
  EXPECT_TRUE(e1.diagnostics.has_flag("too_few_samples"));
  EXPECT_TRUE(std::isnan(e1.std_error));
  const Estimate e2 = logz::cumulant_reverse(same);
  EXPECT_TRUE(e2.diagnostics.has_flag("zero_variance"));
  EXPECT_TRUE(std::isnan(e2.std_error));
  EXPECT_DOUBLE_EQ(e2.log_z, 2.0);
  EXPECT_THROW(logz::cumulant_forward(nan), logz::InvalidArgument);
  EXPECT_THROW(logz::cumulant(same, {}), logz::InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Histogram estimator

TEST(Histogram, UnbinnedEqualsBarAndRecoversLogZ) {
  const Works w = gaussian_works(kMu, kS, kN, 1500, 21);
  const auto h = logz::histogram(w.forward, w.reverse);
  const Estimate b = logz::bar(w.forward, w.reverse);
  EXPECT_EQ(h.estimate.method, "histogram");
  EXPECT_TRUE(h.estimate.diagnostics.converged);
  EXPECT_GT(h.estimate.diagnostics.iterations, 0);
  EXPECT_NEAR(h.estimate.log_z, b.log_z, 1e-9);
  EXPECT_NEAR(h.estimate.std_error, b.std_error, 1e-9 * b.std_error);
  EXPECT_NEAR(h.estimate.diagnostics.overlap, b.diagnostics.overlap, 1e-9);
  expect_close(h.estimate, true_log_z(kMu, kS), 0.06);
}

TEST(Histogram, BinnedAgreesWithBarWithinErrorAndTheDistributionIsTheForwardOne) {
  const Works w = gaussian_works(kMu, kS, kN, kN, 22);
  logz::HistogramOptions opt;
  opt.bins = 60;
  const auto h = logz::histogram(w.forward, w.reverse, opt);
  const Estimate b = logz::bar(w.forward, w.reverse);
  expect_close(h.estimate, true_log_z(kMu, kS), 0.06);
  EXPECT_LE(std::abs(h.estimate.log_z - b.log_z), b.std_error);
  EXPECT_NEAR(value(h.estimate, "num_support"), 60.0, 10.0);
  const auto& d = h.distribution;
  ASSERT_EQ(d.support.size(), d.log_weights.size());
  EXPECT_TRUE(std::is_sorted(d.support.begin(), d.support.end()));
  double log_total = -std::numeric_limits<double>::infinity(), mean = 0.0, second = 0.0;
  for (std::size_t i = 0; i < d.support.size(); ++i) {
    log_total = log_sum_exp2(log_total, d.log_weights[i]);
    mean += std::exp(d.log_weights[i]) * d.support[i];
    second += std::exp(d.log_weights[i]) * d.support[i] * d.support[i];
  }
  EXPECT_NEAR(log_total, 0.0, 1e-12);
  // p_f = N(mu, s^2): its mean and variance (plus the bin width^2/12 of the piecewise density).
  EXPECT_NEAR(mean, kMu, 5.0 * kS / std::sqrt(double(kN)));
  EXPECT_NEAR(second - mean * mean, kS * kS + d.bin_width * d.bin_width / 12.0, 0.25);
}

TEST(Histogram, ShiftOfAllWorksShiftsLogZExactlyAtHugeWorks) {
  // log Z(W + C) = log Z(W) - C: works of 1e5 must not overflow or lose the estimate.
  const Works w = gaussian_works(kMu, kS, 500, 500, 23);
  Works shifted = w;
  const double c = 1e5;
  for (double& v : shifted.forward) v += c;
  for (double& v : shifted.reverse) v -= c;
  for (std::size_t bins : {std::size_t{0}, std::size_t{40}}) {
    logz::HistogramOptions opt;
    opt.bins = bins;
    const auto a = logz::histogram(w.forward, w.reverse, opt);
    const auto b = logz::histogram(shifted.forward, shifted.reverse, opt);
    EXPECT_NEAR(b.estimate.log_z + c, a.estimate.log_z, 1e-6) << bins;
    EXPECT_NEAR(b.estimate.std_error, a.estimate.std_error, 1e-6) << bins;
  }
}

TEST(Histogram, DisjointWorksStillEqualBar) {
  // Forward and reverse works hundreds of nats apart (a fast quench of a 32 x 32 Ising model):
  // the likelihood is flat to double precision in the plain WHAM form; the unbinned
  // estimator must still find BAR's root, not any point of the flat stretch.
  logz::RandomStream rng(6, 0, logz::Purpose::test, 0);
  std::vector<double> wf(1000), wr(1000);
  for (double& v : wf) v = -930.0 + 30.0 * rng.normal();
  for (double& v : wr) v = 1550.0 + 30.0 * rng.normal();
  const auto h = logz::histogram(wf, wr);
  const Estimate b = logz::bar(wf, wr);
  EXPECT_TRUE(h.estimate.diagnostics.has_flag("poor_overlap"));
  EXPECT_NEAR(h.estimate.log_z, b.log_z, 1e-6 * std::abs(b.log_z));
}

TEST(Histogram, RepeatedWorkValuesShareOnePointAndStillEqualBar) {
  // Integer works (as a lattice model gives): many repeats.
  logz::RandomStream rng(5, 0, logz::Purpose::test, 0);
  std::vector<double> wf(800), wr(800);
  for (double& v : wf) v = std::round(4.0 + 1.5 * rng.normal());
  for (double& v : wr) v = std::round(-1.0 + 1.5 * rng.normal());
  logz::HistogramOptions opt;
  opt.distribution = true;
  const auto h = logz::histogram(wf, wr, opt);
  EXPECT_LT(h.distribution.support.size(), 40u);
  EXPECT_EQ(value(h.estimate, "num_support"), static_cast<double>(h.distribution.support.size()));
  EXPECT_NEAR(h.estimate.log_z, logz::bar(wf, wr).log_z, 1e-9);
}

TEST(Histogram, UnbinnedEstimateIsTheSameWithOrWithoutTheDistribution) {
  // Without the distribution the support is found from the works' extremes, not a sort: the
  // estimate, error, overlap and flags must not change, on distinct, repeated, one-sided-constant,
  // single-point and disjoint works.
  logz::RandomStream rng(8, 0, logz::Purpose::test, 0);
  std::vector<double> normal_f(300), normal_r(300), integer_f(300), integer_r(300);
  for (double& v : normal_f) v = 2.0 + rng.normal();
  for (double& v : normal_r) v = -1.0 + rng.normal();
  for (double& v : integer_f) v = std::round(2.0 + rng.normal());
  for (double& v : integer_r) v = std::round(-1.0 + rng.normal());
  const std::vector<double> constant(5, 1.5), minus_constant(5, -1.5),
      far(5, 40.0);  // -W_r below every W_f
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {normal_f, normal_r},        {integer_f, integer_r},     {constant, integer_r},
      {integer_f, minus_constant}, {constant, minus_constant}, {normal_f, far}};
  logz::HistogramOptions with;
  with.distribution = true;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const auto& [wf, wr] = cases[c];
    const auto a = logz::histogram(wf, wr), b = logz::histogram(wf, wr, with);
    EXPECT_TRUE(a.distribution.support.empty()) << c;
    EXPECT_FALSE(b.distribution.support.empty()) << c;
    EXPECT_EQ(a.estimate.log_z, b.estimate.log_z) << c;
    EXPECT_EQ(std::isnan(a.estimate.std_error), std::isnan(b.estimate.std_error)) << c;
    if (!std::isnan(b.estimate.std_error)) {
      EXPECT_EQ(a.estimate.std_error, b.estimate.std_error) << c;
    }
    EXPECT_EQ(a.estimate.diagnostics.overlap, b.estimate.diagnostics.overlap) << c;
    EXPECT_EQ(a.estimate.diagnostics.flags, b.estimate.diagnostics.flags) << c;
  }
}

TEST(Histogram, FlagsAndErrors) {
  const Works far = gaussian_works(40.0, 6.0, 100, 100, 24);  // s = 6: hardly any overlap
  EXPECT_TRUE(
      logz::histogram(far.forward, far.reverse).estimate.diagnostics.has_flag("poor_overlap"));
  const std::vector<double> same = {1.0, 1.0}, one = {1.0}, nan = {std::nan("")};
  const auto point = logz::histogram(same, std::vector<double>{-1.0, -1.0});
  EXPECT_DOUBLE_EQ(point.estimate.log_z, -1.0);
  EXPECT_TRUE(point.estimate.diagnostics.has_flag("zero_variance"));
  EXPECT_TRUE(std::isnan(point.estimate.std_error));
  EXPECT_TRUE(logz::histogram(one, same).estimate.diagnostics.has_flag("too_few_samples"));
  EXPECT_THROW(logz::histogram(nan, same), logz::InvalidArgument);
  EXPECT_THROW(logz::histogram(same, {}), logz::InvalidArgument);
  logz::HistogramOptions bad;
  bad.tolerance = 0.0;
  EXPECT_THROW(logz::histogram(same, same, bad), logz::InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Gibbs posterior

TEST(HistogramPosterior, MatchesTheQuadratureOfATwoPointPosterior) {
  // Two bins of width 1 on [0, 2]: forward counts (4, 2), reverse (-W_r) counts (1, 2).
  const std::vector<double> wf = {0.0, 0.3, 0.6, 0.9, 1.5, 2.0}, wr = {-0.5, -1.1, -1.7};
  logz::HistogramPosteriorOptions opt;
  opt.histogram.bins = 2;
  opt.num_draws = 40000;
  opt.burn_in = 100;
  opt.seed = 7;
  const auto post = logz::histogram_posterior(wf, wr, opt);
  ASSERT_EQ(post.draws.size(), opt.num_draws);

  // Oracle: pi_1 = u has density u^(n_1 - 1) (1 - u)^(n_2 - 1) (u c_1 + (1 - u) c_2)^(-N_r)
  // (Dirichlet(0) prior), c_b = exp(-a_b) (1 - e^-1) the bin averages of exp(-w).
  const double n1 = 5, n2 = 4, nr = 3;
  const double c1 = 1.0 - std::exp(-1.0), c2 = std::exp(-1.0) * c1;
  constexpr int kGrid = 200000;
  double z = 0.0, m1 = 0.0, m2 = 0.0;
  std::vector<double> cdf(kGrid), lz(kGrid);
  for (int i = 0; i < kGrid; ++i) {
    const double u = (i + 0.5) / kGrid;
    const double mix = u * c1 + (1.0 - u) * c2;
    const double dens = std::pow(u, n1 - 1) * std::pow(1.0 - u, n2 - 1) * std::pow(mix, -nr);
    lz[i] = std::log(mix);
    z += dens, m1 += dens * lz[i], m2 += dens * lz[i] * lz[i];
    cdf[i] = z;
  }
  const double mean = m1 / z, sd = std::sqrt(m2 / z - mean * mean);
  // log Z(u) is increasing in u, so its quantiles are those of u.
  auto quantile = [&](double p) {
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), p * z);
    return lz[it - cdf.begin()];
  };
  const double ess = value(post.estimate, "posterior_ess");
  ASSERT_GT(ess, 5000.0);
  const double mcse = sd / std::sqrt(ess);
  EXPECT_NEAR(post.estimate.log_z, mean, 5.0 * mcse);
  EXPECT_NEAR(post.estimate.std_error / sd, 1.0, 5.0 / std::sqrt(2.0 * ess));
  EXPECT_NEAR(value(post.estimate, "ci95_low"), quantile(0.025), 0.02);
  EXPECT_NEAR(value(post.estimate, "ci95_high"), quantile(0.975), 0.02);
  EXPECT_EQ(post.estimate.se_method, "posterior_sd");
}

TEST(HistogramPosterior, GaussianWorksPosteriorCoversTruthAndMatchesBar) {
  const Works w = gaussian_works(kMu, kS, 1000, 1000, 31);
  logz::HistogramPosteriorOptions opt;
  opt.num_draws = 1500;
  opt.burn_in = 100;
  opt.seed = 3;
  const auto post = logz::histogram_posterior(w.forward, w.reverse, opt);
  const Estimate b = logz::bar(w.forward, w.reverse);
  expect_close(post.estimate, true_log_z(kMu, kS), 0.08);
  // With 1000 works a side the posterior is close to normal around the MLE with BAR's error.
  EXPECT_NEAR(post.estimate.std_error / b.std_error, 1.0, 0.2);
  EXPECT_NEAR(post.estimate.log_z, b.log_z, 0.3 * b.std_error);
  EXPECT_LT(value(post.estimate, "ci95_low"), b.log_z);
  EXPECT_GT(value(post.estimate, "ci95_high"), b.log_z);
  EXPECT_FALSE(post.estimate.diagnostics.has_flag("low_posterior_ess"));
  EXPECT_EQ(post.estimate.diagnostics.iterations, 1600);
}

TEST(HistogramPosterior, SameSeedSameDrawsOtherSeedOtherDraws) {
  const Works w = gaussian_works(kMu, kS, 100, 100, 32);
  logz::HistogramPosteriorOptions opt;
  opt.num_draws = 50;
  opt.burn_in = 5;
  const auto a = logz::histogram_posterior(w.forward, w.reverse, opt);
  const auto b = logz::histogram_posterior(w.forward, w.reverse, opt);
  EXPECT_EQ(a.draws, b.draws);
  opt.seed = 2;
  EXPECT_NE(logz::histogram_posterior(w.forward, w.reverse, opt).draws, a.draws);
  opt.num_draws = 1;
  EXPECT_THROW(logz::histogram_posterior(w.forward, w.reverse, opt), logz::InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Crooks crossing

TEST(CrooksCrossing, FindsMinusLogZOnGaussianWorks) {
  const Works w = gaussian_works(kMu, kS, 6000, 6000, 41);  // > 4096: merged kernel sums
  const Estimate c = logz::crooks_crossing(w.forward, w.reverse);
  EXPECT_EQ(c.method, "crooks_crossing");
  EXPECT_EQ(c.se_method, "kde_delta");
  expect_close(c, true_log_z(kMu, kS), 0.1);
  EXPECT_NEAR(value(c, "w_cross"), -c.log_z, 0.0);
  EXPECT_NEAR(value(c, "slope"), 1.0, 0.3);  // Crooks: log p_f - log p_r has slope 1
  EXPECT_TRUE(c.diagnostics.flags.empty());
}

TEST(CrooksCrossing, KdeDeltaErrorMatchesTheSpreadOverReplicates) {
  constexpr int kReps = 120;
  std::vector<double> est, se;
  for (int k = 0; k < kReps; ++k) {
    const Works w = gaussian_works(kMu, kS, 400, 400, 2000 + k);
    const Estimate c = logz::crooks_crossing(w.forward, w.reverse);
    est.push_back(c.log_z), se.push_back(c.std_error);
  }
  double m = 0.0, ms = 0.0, ss = 0.0;
  for (int k = 0; k < kReps; ++k) m += est[k], ms += se[k];
  m /= kReps, ms /= kReps;
  for (double v : est) ss += (v - m) * (v - m);
  const double sd = std::sqrt(ss / (kReps - 1));
  // sd has a relative error of about 7%; the approximate KDE variance gets a wider band.
  EXPECT_GT(ms / sd, 0.6);
  EXPECT_LT(ms / sd, 1.6);
  EXPECT_LE(std::abs(m - true_log_z(kMu, kS)), 5.0 * sd / std::sqrt(double(kReps)) + 0.05);
}

TEST(CrooksCrossing, DisjointWorksAreFlaggedNotGuessed) {
  const std::vector<double> wf = gaussian(100.0, 1.0, 200, 42, 0);
  const std::vector<double> wr = gaussian(0.0, 1.0, 200, 42, 1);  // -W_r near 0: far from W_f
  const Estimate c = logz::crooks_crossing(wf, wr);
  EXPECT_TRUE(c.diagnostics.has_flag("no_overlap"));
  EXPECT_TRUE(std::isnan(c.log_z));
  EXPECT_TRUE(std::isnan(c.std_error));
  const std::vector<double> same = {1.0, 1.0, 1.0};
  EXPECT_TRUE(logz::crooks_crossing(same, same).diagnostics.has_flag("zero_variance"));
  logz::CrooksCrossingOptions bad;
  bad.grid_points = 2;
  EXPECT_THROW(logz::crooks_crossing(wf, wr, bad), logz::InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// The registry

TEST(EstimatorSet, NamesDirectionsAndOptions) {
  const Works w = gaussian_works(kMu, kS, 300, 300, 51);
  const auto both =
      logz::run_estimators({"cumulant", "histogram", "crossing"}, &w.forward, &w.reverse);
  ASSERT_EQ(both.size(), 5u);
  EXPECT_EQ(both[0].method, "cumulant_forward");
  EXPECT_EQ(both[1].method, "cumulant_reverse");
  EXPECT_EQ(both[2].method, "cumulant");
  EXPECT_EQ(both[3].method, "histogram");
  EXPECT_EQ(both[4].method, "crooks_crossing");
  const auto only_reverse = logz::run_estimators({"cumulant"}, nullptr, &w.reverse);
  ASSERT_EQ(only_reverse.size(), 1u);
  EXPECT_EQ(only_reverse[0].method, "cumulant_reverse");
  EXPECT_NE(logz::estimator_requirements({"histogram"}, true, false).find("forward and reverse"),
            std::string::npos);
  EXPECT_TRUE(logz::estimator_requirements({"cumulant"}, false, true).empty());

  logz::EstimatorOptions opt;
  opt.posterior_draws = 30;
  opt.posterior_burn_in = 3;
  opt.seed = 9;
  opt.histogram_bins = 20;
  const auto p =
      logz::run_estimators({"histogram_posterior", "histogram"}, &w.forward, &w.reverse, opt);
  EXPECT_EQ(value(p[0], "num_draws"), 30.0);
  EXPECT_EQ(p[0].diagnostics.iterations, 33);
  EXPECT_LE(value(p[1], "num_support"), 20.0);
  EXPECT_EQ(logz::run_estimators({"histogram_posterior"}, &w.forward, &w.reverse, opt)[0].log_z,
            p[0].log_z);
  try {
    logz::run_estimators({"wham"}, &w.forward, &w.reverse);
    FAIL() << "no error";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("histogram_posterior"), std::string::npos) << e.what();
  }
  const auto names = logz::estimator_names("works");
  for (const auto& m : logz::default_estimator_names("works")) {
    EXPECT_NE(std::find(names.begin(), names.end(), m), names.end());
  }
}

}  // namespace
