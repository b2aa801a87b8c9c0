// Simulated tempering with HMC on continuous targets (the geometric path from a Gaussian
// base): exact-start invariance of HMC on a mixture level and on per-particle levels,
// RTS and MBAR at every level of a path to a Gaussian (where every level is Gaussian and
// log Z_k is exact) and of a path to a 2-d two-mode mixture (levels by quadrature), RTS and
// MBAR at the target of the two-component 10-d mixture, TI
// variants converging to the exact value as K grows, the batched move (at_levels) against
// chain-by-chain moves (acceptance by level included), and thread-count invariance.
//
// Tolerances: |estimate - exact| <= 5 SE + |bias eq. 15| + SE^2 (as rts_ising_test), with
// SE finite and below a target fixed in advance; TI adds its discretisation allowance,
// stated where it is used. Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "logz/estimators/mbar.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/estimators/thermodynamic_integration.hpp"
#include "logz/exact/gaussian_mixture.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/tempering/initial_iterations.hpp"

namespace logz {
namespace {

using MixturePath = GeometricPath<GaussianBase, GaussianMixture>;

// A 3-d Gaussian with full covariance and mass 2, as a one-component mixture.
GaussianMixture gaussian_target() {
  Eigen::Matrix3d c;
  c << 0.6, 0.2, -0.1, 0.2, 0.5, 0.05, -0.1, 0.05, 0.9;
  return GaussianMixture({2.0}, {Eigen::Vector3d(1.0, -0.5, 2.0)}, {c});
}

exact::GaussianSpec spec_of(const GaussianBase& b) { return {b.mean(), b.covariance()}; }

// Exact log(Z_t / Z_0) on the path from `base` to the one-component `target`.
double exact_gaussian_level(const GaussianBase& base, const GaussianMixture& target, double t) {
  const exact::GaussianSpec g{target.means()[0], target.covariances()[0]};
  return exact::gaussian_geometric_log_z(spec_of(base), target.weights()[0], g, t) -
         exact::gaussian_geometric_log_z(spec_of(base), target.weights()[0], g, 0.0);
}

struct TemperingRun {
  InitialIterationsResult init;
  TemperingStats stats;
  TemperingLadder ladder;
};

struct RunSpec {
  std::size_t chains = 32;
  std::size_t sweeps_per_iteration = 100;
  int max_iterations = 30;
  std::size_t sweeps = 1500;
  int threads = 1;
  std::uint64_t seed = 2016;
};

template <class Path, class Kernel>
TemperingRun run_tempering(const Path& path, const Kernel& kernel, const Schedule& betas,
                           const RunSpec& r) {
  TemperingLadder ladder(betas);
  TemperingOptions o;
  o.num_chains = r.chains;
  o.seed = r.seed;
  o.threads = r.threads;
  o.record_samples = true;
  SimulatedTempering st(path, kernel, ladder, o);
  const double tolerance = 0.1 / static_cast<double>(ladder.size());
  auto init = initial_iterations(st, std::vector<double>(ladder.size(), 0.0),
                                 r.sweeps_per_iteration, r.max_iterations, tolerance);
  auto stats = st.run(r.sweeps, init.log_z_hat);
  return {init, std::move(stats), ladder};
}

// `se_floor`: MBAR's asymptotic SE treats the correlated tempered samples as independent
// (over 40 repetitions of the Gaussian-target run its 2-SE coverage was 0.78, RTS's 0.98),
// so MBAR is judged with the larger of its own SE and RTS's between-chain SE.
void expect_within(const LadderEstimates& e, std::size_t k, double exact, double se_target,
                   double se_floor = 0.0) {
  SCOPED_TRACE(e.method + " level " + std::to_string(k));
  ASSERT_TRUE(std::isfinite(e.std_error[k]));
  EXPECT_LT(e.std_error[k], se_target);
  const double se = std::max(e.std_error[k], se_floor);
  const double bias = std::isfinite(e.bias[k]) ? std::abs(e.bias[k]) : 0.0;
  EXPECT_LE(std::abs(e.log_z[k] - exact), 5 * se + bias + se * se)
      << e.log_z[k] << " vs exact " << exact << " SE " << se;
}

// ---------------------------------------------------------------- HMC invariance

// Mean and per-coordinate second moment of each column set against the truth, z <= 5
// (the draws are independent exact draws moved by a kernel that leaves them invariant).
void expect_moments(const Eigen::MatrixXd& X, const Eigen::VectorXd& mean,
                    const Eigen::MatrixXd& cov, const char* what) {
  const double n = static_cast<double>(X.cols());
  const Eigen::VectorXd m = X.rowwise().mean();
  const Eigen::MatrixXd c = X.colwise() - mean;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    EXPECT_NEAR(m(i), mean(i), 5 * std::sqrt(cov(i, i) / n)) << what << " mean " << i;
    // Var of (x - mu)^2 is 2 sigma^4 for a Gaussian; mixtures have heavier fourth moments,
    // so the sample's own fourth moment sets the error.
    const Eigen::ArrayXd sq = c.row(i).array().square();
    const double sd = std::sqrt((sq - sq.mean()).square().mean() / n);
    EXPECT_NEAR(sq.mean(), cov(i, i), 5 * sd) << what << " variance " << i;
  }
}

// The particles of one mode (sign of sum_i x_i) of the Fig. 2 stand-in.
Eigen::MatrixXd mode_columns(const Eigen::MatrixXd& X, bool positive) {
  std::vector<Eigen::Index> idx;
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    if ((X.col(p).sum() > 0) == positive) idx.push_back(p);
  Eigen::MatrixXd out(X.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t i = 0; i < idx.size(); ++i)
    out.col(static_cast<Eigen::Index>(i)) = X.col(idx[i]);
  return out;
}

// Mean over coordinates of the within-mode variance about the component mean, and its SE.
std::pair<double, double> mean_variance(const Eigen::MatrixXd& X, double mu) {
  const Eigen::ArrayXd v = (X.array() - mu).square().colwise().mean().transpose();  // per particle
  const double n = static_cast<double>(v.size());
  return {v.mean(), std::sqrt((v - v.mean()).square().mean() / n)};
}

TEST(HmcOnMixture, ExactStartKeepsEachModesMoments) {
  // Modes at -2 and +2 (1, ..., 1) are 12.6 sd apart: HMC at t = 1 cannot move mass between
  // them, but every move leaves the mixture invariant, so exact draws stay exact: each
  // mode keeps its share (0.3 / 0.7) and its component's mean and covariance (the other
  // component's density there is below e^-20).
  const GaussianMixture mixture = GaussianMixture::rts_fig2();
  const MixturePath path(GaussianBase::isotropic(10, 3.0), mixture);
  const int n = 4000;
  ContinuousBatch batch(10, n), wrong(10, n);
  mixture.sample(batch.X, BatchRandom{1, Purpose::test, 0, 0});
  wrong.X = batch.X;
  const Hmc hmc(0.25, 10);
  for (std::uint32_t s = 0; s < 20; ++s) {
    hmc.step(path.at(1.0), batch, BatchRandom{1, Purpose::test, s + 1, 0});
    // The same check must catch a kernel that leaves the wrong level invariant.
    hmc.step(path.at(0.9), wrong, BatchRandom{1, Purpose::test, s + 1, 0});
  }
  const Eigen::MatrixXd low = mode_columns(batch.X, false), high = mode_columns(batch.X, true);
  EXPECT_NEAR(static_cast<double>(high.cols()) / n, 0.7, 5 * std::sqrt(0.21 / n));
  expect_moments(low, mixture.means()[0], mixture.covariances()[0], "mode -2");
  expect_moments(high, mixture.means()[1], mixture.covariances()[1], "mode +2");
  const auto [v, se] = mean_variance(high, 2.0);
  EXPECT_NEAR(v, 0.5, 5 * se);
  const auto [v_wrong, se_wrong] = mean_variance(mode_columns(wrong.X, true), 2.0);
  EXPECT_GT(std::abs(v_wrong - 0.5), 5 * se_wrong)
      << "a kernel at t = 0.9 should fail the check: " << v_wrong;
}

TEST(HmcOnMixture, PerParticleLevelsKeepEachLevelsGaussian) {
  // Particles at four levels of the path to a Gaussian, each started from its exact level
  // (a Gaussian: precision P_t, mean P_t^{-1} h_t) and moved together by HMC and HAIS on
  // at_levels: every group keeps its own level's moments.
  const GaussianBase base = GaussianBase::isotropic(3, 2.0);
  const GaussianMixture target = gaussian_target();
  const MixturePath path(base, target);
  const std::vector<double> levels = {0.0, 0.2, 0.6, 1.0};
  const int per_level = 3000, n = per_level * 4;
  std::vector<double> t(n);
  ContinuousBatch batch(3, n);
  std::vector<Eigen::VectorXd> means;
  std::vector<Eigen::MatrixXd> covs;
  const Eigen::Matrix3d p0 = Eigen::Matrix3d::Identity() / 4.0,
                        p1 = target.covariances()[0].inverse();
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const Eigen::Matrix3d p = (1 - levels[l]) * p0 + levels[l] * p1;
    const Eigen::Matrix3d c = p.inverse();
    const Eigen::Vector3d mu = c * (levels[l] * p1 * target.means()[0]);
    means.push_back(mu);
    covs.push_back(c);
    const GaussianBase g(mu, 0.5 * (c + c.transpose()));
    Eigen::MatrixXd X(3, per_level);
    g.sample(X, BatchRandom{3, Purpose::test, static_cast<std::uint32_t>(l), 0});
    batch.X.middleCols(static_cast<Eigen::Index>(l) * per_level, per_level) = X;
    for (int i = 0; i < per_level; ++i) t[l * per_level + static_cast<std::size_t>(i)] = levels[l];
  }
  path.sample_momentum(batch, BatchRandom{3, Purpose::test, 9, 0});
  const Hmc hmc(0.3, 8);
  const Hais hais(0.3, 0.2, 2);
  for (std::uint32_t s = 0; s < 10; ++s) {
    hmc.step(path.at_levels(t), batch, BatchRandom{3, Purpose::test, 10 + s, 0});
    hais.step(path.at_levels(t), batch, BatchRandom{3, Purpose::test, 100 + s, 0});
  }
  for (std::size_t l = 0; l < levels.size(); ++l)
    expect_moments(batch.X.middleCols(static_cast<Eigen::Index>(l) * per_level, per_level),
                   means[l], covs[l], ("level " + std::to_string(levels[l])).c_str());
}

// ---------------------------------------------------------------- RTS at every level

TEST(RtsMixture, EveryLevelOfThePathToAGaussianWithinErrorOfExact) {
  const GaussianBase base = GaussianBase::isotropic(3, 2.0);
  const GaussianMixture target = gaussian_target();
  const MixturePath path(base, target);
  const Hmc kernel(0.3, 5);
  const TemperingRun r = run_tempering(path, kernel, linear_schedule(11), RunSpec{});
  EXPECT_TRUE(r.init.converged) << "initial iterations did not reach max |r_k - c_k| < 0.1/K";
  EXPECT_GT(r.stats.kernel_attempted, 0u);
  EXPECT_GT(
      static_cast<double>(r.stats.kernel_accepted) / static_cast<double>(r.stats.kernel_attempted),
      0.7);
  const auto rts = rts_ladder(r.stats, r.init.log_z_hat, r.ladder.log_prior());
  const auto mbar = mbar_tempered(r.stats, r.ladder.fractions());
  EXPECT_TRUE(mbar.last.diagnostics.converged);
  for (std::size_t k = 1; k < r.ladder.size(); ++k) {
    const double exact = exact_gaussian_level(base, target, r.ladder.fraction(k));
    expect_within(rts, k, exact, 0.05);
    expect_within(mbar, k, exact, 0.05, rts.std_error[k]);
  }
  std::printf(
      "Gaussian target: RTS %.4f +- %.4f, MBAR %.4f +- %.4f, exact %.4f (%d initial iterations)\n",
      rts.log_z.back(), rts.std_error.back(), mbar.log_z.back(), mbar.std_error.back(),
      exact_gaussian_level(base, target, 1.0), r.init.iterations);
}

// Every level of a 2-d two-mode mixture against quadrature: log Z_t = log integral of
// exp(-(1 - t) |x|^2 / (2 s^2) - t U(x)), U written out here (not the model's code), on a
// Simpson grid fine enough for 1e-8.
TEST(RtsMixture, EveryLevelOfATwoModeMixtureIn2dAgainstQuadrature) {
  Eigen::Matrix2d c0, c1;
  c0 << 0.5, 0.2, 0.2, 0.4;
  c1 << 1.0, -0.3, -0.3, 0.6;
  const GaussianMixture mixture({1.0, 3.0},
                                {Eigen::Vector2d(-3.0, -2.0), Eigen::Vector2d(2.5, 3.0)}, {c0, c1});
  const double s = 3.0;
  const GaussianBase base = GaussianBase::isotropic(2, s);
  const MixturePath path(base, mixture);
  const Eigen::Matrix2d p0 = c0.inverse(), p1 = c1.inverse();
  const double n0 = 1.0 / (2 * M_PI * std::sqrt(c0.determinant())),
               n1 = 3.0 / (2 * M_PI * std::sqrt(c1.determinant()));
  auto log_z_level = [&](double t) {
    const int n = 800;
    const double lo = -25.0, hi = 25.0, h = (hi - lo) / n;
    auto w = [&](int k) { return (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0); };
    double sum = 0.0;
    for (int a = 0; a <= n; ++a)
      for (int b = 0; b <= n; ++b) {
        const Eigen::Vector2d x(lo + a * h, lo + b * h);
        const Eigen::Vector2d r0 = x - Eigen::Vector2d(-3.0, -2.0),
                              r1 = x - Eigen::Vector2d(2.5, 3.0);
        const double f =
            n0 * std::exp(-0.5 * r0.dot(p0 * r0)) + n1 * std::exp(-0.5 * r1.dot(p1 * r1));
        sum += w(a) * w(b) * std::exp(-(1 - t) * x.squaredNorm() / (2 * s * s)) * std::pow(f, t);
      }
    return std::log(sum * h * h / 9.0);
  };
  const Hmc kernel(0.3, 8);
  RunSpec spec;
  spec.sweeps = 2000;
  const TemperingRun r = run_tempering(path, kernel, geometric_schedule(11, 0.02), spec);
  EXPECT_TRUE(r.init.converged);
  const auto rts = rts_ladder(r.stats, r.init.log_z_hat, r.ladder.log_prior());
  const auto mbar = mbar_tempered(r.stats, r.ladder.fractions());
  const double z0 = log_z_level(0.0);
  EXPECT_NEAR(z0, base.log_z(), 1e-8);
  EXPECT_NEAR(log_z_level(1.0), std::log(4.0), 1e-8);
  for (std::size_t k = 1; k < r.ladder.size(); ++k) {
    const double exact = log_z_level(r.ladder.fraction(k)) - z0;
    expect_within(rts, k, exact, 0.06);
    expect_within(mbar, k, exact, 0.06, rts.std_error[k]);
  }
  std::printf("2-d two-mode mixture: RTS %.4f +- %.4f, MBAR %.4f +- %.4f, exact %.4f\n",
              rts.log_z.back(), rts.std_error.back(), mbar.log_z.back(), mbar.std_error.back(),
              std::log(4.0) - z0);
}

// The Fig. 2 stand-in: base N(0, 3^2 I), two 10-d components; exact log(Z_K / Z_1) =
// log 10 - log Z_base.
double fig2_exact_evidence(const GaussianBase& base) {
  return exact::gaussian_mixture_log_z(GaussianMixture::rts_fig2().weights()) - base.log_z();
}

TEST(RtsMixture, TargetLevelOfTheTwoModeMixtureWithinErrorOfExact) {
  const GaussianBase base = GaussianBase::isotropic(10, 3.0);
  const MixturePath path(base, GaussianMixture::rts_fig2());
  const Hmc kernel(0.25, 10);
  RunSpec spec;
  spec.chains = 40;
  spec.sweeps = 2000;
  const TemperingRun r = run_tempering(path, kernel, geometric_schedule(19, 0.01), spec);
  EXPECT_TRUE(r.init.converged);
  const auto rts = rts_ladder(r.stats, r.init.log_z_hat, r.ladder.log_prior());
  const auto mbar = mbar_tempered(r.stats, r.ladder.fractions());
  const double exact = fig2_exact_evidence(base);
  const std::size_t last = r.ladder.size() - 1;
  expect_within(rts, last, exact, 0.1);
  expect_within(mbar, last, exact, 0.1, rts.std_error[last]);
  std::printf(
      "Fig. 2 mixture: RTS %.4f +- %.4f, MBAR %.4f +- %.4f, exact %.4f; acceptance %.3f\n",
      rts.log_z.back(), rts.std_error.back(), mbar.log_z.back(), mbar.std_error.back(), exact,
      static_cast<double>(r.stats.kernel_accepted) / static_cast<double>(r.stats.kernel_attempted));
}

// ---------------------------------------------------------------- TI as K grows

TEST(TiMixture, VariantsConvergeToExactAsKGrows) {
  // TI's error is mostly discretisation, O(h) for the Riemann sum and O(h^2) for the
  // trapezoid rules; with more levels it shrinks to the Monte Carlo error. Allowance at the
  // largest K: 5 SE plus the Richardson estimate |T_K - T_{K/2}| / (2^p - 1) of the
  // remaining discretisation error (order p = 1 for Riemann, 2 for the others).
  const GaussianBase base = GaussianBase::isotropic(10, 3.0);
  const MixturePath path(base, GaussianMixture::rts_fig2());
  const Hmc kernel(0.25, 10);
  const double exact = fig2_exact_evidence(base);
  std::vector<std::size_t> ks = {5, 10, 20, 40};
  std::vector<std::vector<double>> errors(4);
  std::vector<double> last_se(4), last_value(4), previous_value(4);
  const char* methods[] = {"ti_riemann", "ti_trapezoid", "ti_corrected", "ti_rb"};
  for (std::size_t i = 0; i < ks.size(); ++i) {
    RunSpec spec;
    spec.chains = 40;
    spec.sweeps = 1000;
    spec.sweeps_per_iteration = 50;
    const TemperingRun r = run_tempering(path, kernel, geometric_schedule(ks[i] - 1, 0.01), spec);
    std::printf("K = %3zu:", ks[i]);
    for (int m = 0; m < 4; ++m) {
      const auto e = thermodynamic_integration(r.stats, r.ladder.fractions(), methods[m]);
      errors[static_cast<std::size_t>(m)].push_back(std::abs(e.log_z.back() - exact));
      previous_value[static_cast<std::size_t>(m)] = last_value[static_cast<std::size_t>(m)];
      last_value[static_cast<std::size_t>(m)] = e.log_z.back();
      last_se[static_cast<std::size_t>(m)] = e.std_error.back();
      std::printf("  %s %+.3f +- %.3f", methods[m], e.log_z.back() - exact, e.std_error.back());
    }
    std::printf("\n");
  }
  for (int m = 0; m < 4; ++m) {
    SCOPED_TRACE(methods[m]);
    const auto& err = errors[static_cast<std::size_t>(m)];
    EXPECT_LT(err.back(), err.front()) << "error at K = 40 not below K = 5";
    EXPECT_LT(err[2], err[0]);
    const double se = last_se[static_cast<std::size_t>(m)];
    ASSERT_TRUE(std::isfinite(se));
    const double richardson = std::abs(last_value[static_cast<std::size_t>(m)] -
                                       previous_value[static_cast<std::size_t>(m)]) /
                              (m == 0 ? 1.0 : 3.0);
    EXPECT_LE(err.back(), 5 * se + richardson) << "SE " << se << ", allowance " << richardson;
  }
}

// ---------------------------------------------------------------- determinism

// A path without at_levels: the driver moves its chains one at a time.
struct ChainByChainPath {
  using Batch = MixturePath::Batch;
  static constexpr bool geometric_path = true;
  const MixturePath& path;
  Batch make_batch(std::size_t n) const { return path.make_batch(n); }
  void sample_base(Batch& b, const BatchRandom& r) const { path.sample_base(b, r); }
  void work_increment(double a, double b, const Batch& batch, std::span<double> out) const {
    path.work_increment(a, b, batch, out);
  }
  auto at(double t) const { return path.at(t); }
};

TEST(RtsMixture, BatchedMovesEqualChainByChainMoves) {
  const GaussianBase base = GaussianBase::isotropic(3, 2.0);
  const MixturePath path(base, gaussian_target());
  const ChainByChainPath alone{path};
  const Hmc kernel(0.3, 5);
  RunSpec spec;
  spec.chains = 8;
  spec.max_iterations = 3;
  spec.sweeps = 200;
  const TemperingRun a = run_tempering(path, kernel, linear_schedule(5), spec);
  const TemperingRun b = run_tempering(alone, kernel, linear_schedule(5), spec);
  // Same streams, same arithmetic per particle up to the order of a batched reduction.
  ASSERT_EQ(a.stats.sample_delta.size(), b.stats.sample_delta.size());
  EXPECT_EQ(a.stats.sample_level, b.stats.sample_level);
  for (std::size_t i = 0; i < a.stats.sample_delta.size(); ++i)
    ASSERT_NEAR(a.stats.sample_delta[i], b.stats.sample_delta[i],
                1e-9 * (1 + std::abs(b.stats.sample_delta[i])));
  EXPECT_EQ(a.stats.kernel_accepted, b.stats.kernel_accepted);
  // The batched move's acceptance split by level (each particle's count) is the chain-by-chain
  // moves' own, level by level, and the levels add up to the whole.
  ASSERT_EQ(a.stats.level_accepted.size(), a.ladder.size());
  EXPECT_EQ(a.stats.level_accepted, b.stats.level_accepted);
  EXPECT_EQ(a.stats.level_attempted, b.stats.level_attempted);
  std::uint64_t accepts = 0, attempts = 0;
  for (std::size_t k = 0; k < a.ladder.size(); ++k)
    accepts += a.stats.level_accepted[k], attempts += a.stats.level_attempted[k];
  EXPECT_EQ(accepts, a.stats.kernel_accepted);
  EXPECT_EQ(attempts, a.stats.kernel_attempted);
  EXPECT_LT(a.stats.kernel_accepted,
            a.stats.kernel_attempted);  // not a trivial split: some moves rejected
}

TEST(RtsMixture, SameResultsForOneTwoThreeThreads) {
  const GaussianBase base = GaussianBase::isotropic(10, 3.0);
  const MixturePath path(base, GaussianMixture::rts_fig2());
  const Hmc kernel(0.25, 10);
  std::vector<TemperingRun> runs;
  for (int threads : {1, 2, 3}) {
    RunSpec spec;
    spec.chains = 12;
    spec.max_iterations = 3;
    spec.sweeps_per_iteration = 50;
    spec.sweeps = 200;
    spec.threads = threads;
    runs.push_back(run_tempering(path, kernel, geometric_schedule(7, 0.01), spec));
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[0].init.log_z_hat, runs[i].init.log_z_hat);
    EXPECT_EQ(runs[0].stats.log_c(), runs[i].stats.log_c());
    EXPECT_EQ(runs[0].stats.sample_delta, runs[i].stats.sample_delta);
    EXPECT_EQ(runs[0].stats.kernel_accepted, runs[i].stats.kernel_accepted);
    EXPECT_EQ(runs[0].stats.level_accepted, runs[i].stats.level_accepted);
  }
}

}  // namespace
}  // namespace logz
