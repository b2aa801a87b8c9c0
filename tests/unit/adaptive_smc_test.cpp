// Adaptive tempered SMC (smc/adaptive_smc.hpp): right within its own error bar on problems with
// an exact log Z, the same bits for any thread count, and flags where it cannot be trusted.
#include "logz/smc/adaptive_smc.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/gaussian_mixture.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/smc/conditional_ess.hpp"
#include "logz/smc/genealogy_variance.hpp"
#include "logz/smc/smc_journal.hpp"
#include "logz/smc/whitening.hpp"
#include "support/keeping_smc_journal.hpp"

namespace adaptive_smc_test {

// N(m, diag(s^2)) with m_i from 2 to -1 and s_i from 0.3 to 2 over the coordinates.
logz::GaussianBase shifted_gaussian(int d) {
  Eigen::VectorXd m(d), var(d);
  for (int i = 0; i < d; ++i) {
    const double f = d == 1 ? 0.0 : static_cast<double>(i) / (d - 1);
    m(i) = 2.0 - 3.0 * f;
    var(i) = (0.3 + 1.7 * f) * (0.3 + 1.7 * f);
  }
  return logz::GaussianBase(m, var.asDiagonal().toDenseMatrix());
}

// Bayesian linear regression: prior N(0, tau^2 I) on theta (d), y = A theta + N(0, sigma^2 I)
// (n data), U = |theta|^2 / (2 tau^2) - log N(y; A theta, sigma^2 I). With the prior as the base,
// log(Z_1 / Z_0) is the evidence log N(y; 0, sigma^2 I + tau^2 A A^T).
class RegressionPosterior {
 public:
  RegressionPosterior(int n, int d, double tau, double sigma, std::uint64_t seed)
      : A_(n, d), y_(n), tau_(tau), sigma_(sigma) {
    logz::RandomStream s(seed, 0, logz::Purpose::test, 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) A_(i, j) = s.normal();
    Eigen::VectorXd theta(d);
    for (int j = 0; j < d; ++j) theta(j) = tau * s.normal();
    y_ = A_ * theta;
    for (int i = 0; i < n; ++i) y_(i) += sigma * s.normal();
    constant_ = 0.5 * n * std::log(2.0 * M_PI * sigma * sigma);
  }
  int dim() const { return static_cast<int>(A_.cols()); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    const Eigen::MatrixXd R = (A_ * X).colwise() - y_;
    e = (0.5 / (tau_ * tau_)) * X.colwise().squaredNorm().transpose() +
        (0.5 / (sigma_ * sigma_)) * R.colwise().squaredNorm().transpose();
    e.array() += constant_;
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    energy(X, e);
    const Eigen::MatrixXd R = (A_ * X).colwise() - y_;
    G = X / (tau_ * tau_) + A_.transpose() * R / (sigma_ * sigma_);
  }
  double log_evidence() const {
    Eigen::MatrixXd C = tau_ * tau_ * A_ * A_.transpose();
    C.diagonal().array() += sigma_ * sigma_;
    const Eigen::LLT<Eigen::MatrixXd> llt(C);
    const Eigen::VectorXd z = llt.matrixL().solve(y_);
    const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    return -0.5 * z.squaredNorm() - 0.5 * log_det -
           0.5 * static_cast<double>(A_.rows()) * std::log(2.0 * M_PI);
  }

 private:
  Eigen::MatrixXd A_;
  Eigen::VectorXd y_;
  double tau_, sigma_, constant_ = 0.0;
};

// A Gaussian whose energy is NaN beyond x_0 = 1.5 (a user's model that fails somewhere).
struct GaussianWithNaNs {
  logz::GaussianBase inner = shifted_gaussian(3);
  int dim() const { return 3; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    inner.energy(X, e);
    for (Eigen::Index p = 0; p < X.cols(); ++p)
      if (X(0, p) > 1.5) e(p) = std::nan("");
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    inner.energy_and_grad(X, e, G);
    for (Eigen::Index p = 0; p < X.cols(); ++p)
      if (X(0, p) > 1.5) e(p) = std::nan("");
  }
};

void print_run(const char* name, const logz::SmcResult& r, double exact) {
  std::printf(
      "%s: error %+.4f, SE %.4f, %zu temperatures, %zu resamplings, %zu Eves, "
      "%llu evaluations\n",
      name, r.log_z.log_z - exact, r.log_z.std_error, r.stages.size(), r.num_resamplings,
      r.num_eves, static_cast<unsigned long long>(r.num_evaluations()));
}

TEST(ConditionalEss, NextTemperatureHitsItsTarget) {
  logz::RandomStream s(3, 0, logz::Purpose::test, 0);
  const std::size_t n = 500;
  std::vector<double> log_w(n), gaps(n);
  for (std::size_t i = 0; i < n; ++i) log_w[i] = 0.3 * s.normal(), gaps[i] = 20.0 * s.normal();
  const double shift = logz::log_sum_exp(log_w);
  for (double& w : log_w) w -= shift;
  for (double target : {0.3, 0.5, 0.9}) {
    const double t = logz::next_temperature(log_w, gaps, 0.2, target);
    EXPECT_GT(t, 0.2);
    EXPECT_LT(t, 1.0);
    EXPECT_NEAR(logz::conditional_ess_fraction(log_w, gaps, t - 0.2), target, 1e-6) << target;
  }
  // Equal gaps leave the weights as they are: CESS = N all the way, so the step goes to 1.
  std::vector<double> equal(n, 5.0);
  EXPECT_EQ(logz::next_temperature(log_w, equal, 0.2, 0.9), 1.0);
  // A first step of about 1e-7 (gaps of order 1e7, as from a prior far wider than the
  // likelihood), some gaps +inf (no mass there) and a heavy tail: the step found to 1e-12 with
  // its CESS at most the target, the step just below it above the target.
  std::vector<double> huge(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = s.uniform();
    huge[i] = i % 50 == 0 ? std::numeric_limits<double>::infinity() : 1e7 * std::pow(u, -1.5);
  }
  for (double target : {0.5, 0.9}) {
    const double t = logz::next_temperature(log_w, huge, 0.0, target);
    EXPECT_GT(t, 0.0);
    EXPECT_LT(t, 1e-6) << target;
    EXPECT_LE(logz::conditional_ess_fraction(log_w, huge, t), target);
    EXPECT_GT(logz::conditional_ess_fraction(log_w, huge, t - 1e-12), target - 1e-9);
  }
}

TEST(GenealogyVariance, ImportanceSamplingWithoutResampling) {
  // No resampling: V = (N sum W^2 - 1) / (N - 1), the relative variance of importance sampling.
  std::vector<double> log_w = {std::log(0.1), std::log(0.2), std::log(0.3), std::log(0.4)};
  std::vector<std::size_t> eves = {0, 1, 2, 3};
  const auto g = logz::genealogy_variance(log_w, eves, 0);
  EXPECT_NEAR(g.relative_variance, (4.0 * 0.30 - 1.0) / 3.0, 1e-12);
  EXPECT_EQ(g.num_eves, 4u);
  EXPECT_NEAR(logz::log_z_std_error(g.relative_variance), std::sqrt(std::log1p(0.2 / 3.0)), 1e-12);
  // Every particle from one Eve: no error bar, never a number.
  eves = {2, 2, 2, 2};
  const auto collapsed = logz::genealogy_variance(log_w, eves, 3);
  EXPECT_TRUE(collapsed.collapsed());
  EXPECT_TRUE(std::isnan(collapsed.relative_variance));
  EXPECT_TRUE(std::isnan(logz::log_z_std_error(collapsed.relative_variance)));
  EXPECT_TRUE(std::isnan(logz::log_z_std_error(-0.01)));
}

TEST(Whitening, LeavingParticlesOutIsTheCovarianceOfTheOthers) {
  const int d = 4, n = 30;
  logz::RandomStream s(8, 0, logz::Purpose::test, 0);
  Eigen::MatrixXd X(d, n);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < d; ++i) X(i, p) = s.normal() + (i > 0 ? 0.8 * X(i - 1, p) : 0.0);
  X.col(7) = X.col(3);  // a copy
  const std::vector<std::size_t> group = logz::detail::copy_groups(X);
  EXPECT_EQ(group[7], 3u);
  EXPECT_EQ(group[3], 3u);
  EXPECT_EQ(group[4], 4u);
  std::vector<double> w(n);
  for (int p = 0; p < n; ++p) w[static_cast<std::size_t>(p)] = 1.0 + 0.1 * p;
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  const std::vector<std::size_t> excluded = {3, 7, 12};
  const double out = w[3] + w[7] + w[12];
  auto kept = [&](int p) { return p != 3 && p != 7 && p != 12; };
  // The weighted mean and covariance of the others, directly.
  Eigen::VectorXd m = Eigen::VectorXd::Zero(d);
  for (int p = 0; p < n; ++p)
    if (kept(p)) m += w[static_cast<std::size_t>(p)] / (1.0 - out) * X.col(p);
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(d, d);
  for (int p = 0; p < n; ++p) {
    if (kept(p))
      cov += w[static_cast<std::size_t>(p)] / (1.0 - out) * (X.col(p) - m) *
             (X.col(p) - m).transpose();
  }
  for (auto kind : {logz::SmcPreconditioner::dense, logz::SmcPreconditioner::diagonal}) {
    const auto all = logz::Whitening::of_particles(X, w, kind, logz::Whitening::identity(d));
    const auto others = all.without(X, w, excluded);
    EXPECT_LT((others.mean - m).norm(), 1e-12);
    if (kind == logz::SmcPreconditioner::dense) {
      ASSERT_TRUE(others.dense());
      EXPECT_LT((others.factor * others.factor.transpose() - cov).norm(), 1e-12 * cov.norm());
    } else {
      EXPECT_LT((others.scale.array().square().matrix() - cov.diagonal()).norm(),
                1e-12 * cov.norm());
    }
  }
}

// `automatic`: diagonal where the particles' correlations are within the noise of N draws,
// dense where one pair, or many small ones together, stand out of it.
TEST(Whitening, AutomaticIsDiagonalOnlyWhereTheCorrelationsAreNoise) {
  const int d = 30, n = 1000;
  logz::RandomStream s(9, 0, logz::Purpose::test, 0);
  auto draws = [&](double pair, double common) {
    Eigen::MatrixXd X(d, n);
    for (int p = 0; p < n; ++p) {
      const double shared = s.normal();
      for (int i = 0; i < d; ++i)
        X(i, p) = (0.5 + i) * (std::sqrt(1.0 - common) * s.normal() + std::sqrt(common) * shared);
      X(1, p) = 1.5 * (pair * X(0, p) / 0.5 + std::sqrt(1.0 - pair * pair) * X(1, p) / 1.5);
    }
    return X;
  };
  const std::vector<double> w(n, 1.0 / n);
  const std::vector<std::size_t> excluded = {0, 1, 2, 3};
  struct Case {
    double pair, common;
    bool diagonal;
  };
  // Independent coordinates of unequal scales; one pair at correlation 0.6; every pair at 0.1
  // (no single one above the noise's largest, their sum of squares 4 times its expectation).
  for (const Case c : {Case{0.0, 0.0, true}, Case{0.6, 0.0, false}, Case{0.0, 0.1, false}}) {
    const Eigen::MatrixXd X = draws(c.pair, c.common);
    auto all = logz::Whitening::of_particles(X, w, logz::SmcPreconditioner::automatic,
                                             logz::Whitening::identity(d));
    ASSERT_TRUE(all.dense());  // the whole population's stays dense: the chunks decide
    EXPECT_TRUE(all.automatic);
    all.effective_count = n;
    const auto others = all.without(X, w, excluded);
    EXPECT_EQ(!others.dense(), c.diagonal) << "pair " << c.pair << ", common " << c.common;
    EXPECT_EQ(logz::correlations_within_noise(all.covariance, n), c.diagonal);
    // Without an effective count it does not decide: dense.
    all.effective_count = 0.0;
    EXPECT_TRUE(all.without(X, w, excluded).dense());
    // dense stays dense whatever the correlations.
    auto forced = logz::Whitening::of_particles(X, w, logz::SmcPreconditioner::dense,
                                                logz::Whitening::identity(d));
    forced.effective_count = n;
    EXPECT_TRUE(forced.without(X, w, excluded).dense());
  }
  // The diagonal one is the others' standard deviations.
  const Eigen::MatrixXd X = draws(0.0, 0.0);
  auto all = logz::Whitening::of_particles(X, w, logz::SmcPreconditioner::automatic,
                                           logz::Whitening::identity(d));
  all.effective_count = n;
  const auto diagonal = all.without(X, w, excluded);
  const auto reference = logz::Whitening::of_particles(X, w, logz::SmcPreconditioner::diagonal,
                                                       logz::Whitening::identity(d))
                             .without(X, w, excluded);
  EXPECT_LT((diagonal.scale - reference.scale).norm(), 1e-10 * reference.scale.norm());
  EXPECT_LT((diagonal.mean - reference.mean).norm(), 1e-10 * (1.0 + reference.mean.norm()));
  // Copies count once: 1000 particles in 250 groups of 4 are 250 independent ones.
  std::vector<std::size_t> group(n);
  for (std::size_t i = 0; i < group.size(); ++i) group[i] = 4 * (i / 4);
  EXPECT_NEAR(logz::detail::distinct_effective_count(group, w), 250.0, 1e-9);
}

TEST(AdaptiveSmc, GaussianTargetWithinItsErrorBar) {
  const int d = 10;
  const logz::GeometricPath path(logz::GaussianBase::isotropic(d, 1.0), shifted_gaussian(d));
  const double exact = path.target().log_z() - path.base().log_z();
  logz::SmcOptions o;
  o.seed = 11;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  print_run("gaussian d=10", r, exact);
  ASSERT_TRUE(std::isfinite(r.log_z.std_error));
  EXPECT_LT(r.log_z.std_error, 0.2);
  // The bias of log Z_hat is about -SE^2 / 2: within the allowance.
  EXPECT_LE(std::abs(r.log_z.log_z - exact), 5.0 * r.log_z.std_error + 0.02);
  EXPECT_TRUE(r.log_z.diagnostics.flags.empty());
  EXPECT_EQ(r.stages.back().temperature, 1.0);
  EXPECT_EQ(r.particles.cols(), 1000);
  EXPECT_GT(r.gradient_evaluations, 0u);
  // The step size follows the acceptance towards HMC's 0.65: never frozen, near it on average.
  double sum = 0.0;
  for (std::size_t k = 0; k + 1 < r.stages.size(); ++k) {
    EXPECT_GT(r.stages[k].acceptance, 0.3) << r.stages[k].temperature;
    sum += r.stages[k].acceptance;
  }
  EXPECT_NEAR(sum / static_cast<double>(r.stages.size() - 1), 0.65, 0.2);
}

TEST(AdaptiveSmc, BayesianRegressionEvidenceAtDimension50) {
  // The case of issue 45 where annealing with a fixed step size is 4-10 nats off, unflagged.
  const RegressionPosterior posterior(100, 50, 1.0, 1.0, 7);
  const logz::GeometricPath path(logz::GaussianBase::isotropic(50, 1.0), posterior);
  const double exact = posterior.log_evidence();
  logz::SmcOptions o;
  o.seed = 5;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  print_run("regression d=50", r, exact);
  ASSERT_TRUE(std::isfinite(r.log_z.std_error));
  EXPECT_LT(r.log_z.std_error, 0.3);
  EXPECT_LE(std::abs(r.log_z.log_z - exact), 5.0 * r.log_z.std_error + 0.05);
  EXPECT_TRUE(r.log_z.diagnostics.flags.empty());
}

TEST(AdaptiveSmc, SameBitsForAnyThreadCount) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(5, 1.0), shifted_gaussian(5));
  logz::SmcOptions o;
  o.num_particles = 203;  // not a multiple of the chunk size
  o.chunk_size = 8;
  o.seed = 4;
  o.threads = 1;
  const logz::SmcResult one = logz::adaptive_smc(path, o);
  for (int threads : {2, 3}) {
    o.threads = threads;
    const logz::SmcResult other = logz::adaptive_smc(path, o);
    EXPECT_EQ(one.log_z.log_z, other.log_z.log_z) << threads;
    EXPECT_EQ(one.log_z.std_error, other.log_z.std_error) << threads;
    EXPECT_EQ(one.temperatures(), other.temperatures()) << threads;
    EXPECT_EQ(one.particles, other.particles) << threads;
    EXPECT_EQ(one.num_evaluations(), other.num_evaluations()) << threads;
  }
  o.seed = 5;
  EXPECT_NE(logz::adaptive_smc(path, o).log_z.log_z, one.log_z.log_z);
}

// A stop requested during the run (here by its own progress callback after the first
// temperature) ends it with logz::Stopped; a run given no token runs to t = 1.
TEST(AdaptiveSmc, StopsWhenItsTokenIsRequested) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(5, 1.0), shifted_gaussian(5));
  logz::SmcOptions o;
  o.num_particles = 200;
  logz::StopSource source;
  std::size_t stages = 0;
  o.stop = source.token();
  o.progress = [&](const logz::SmcStage&) {
    ++stages;
    source.request();
  };
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::Stopped);
  EXPECT_EQ(stages, 1u);
  o.stop = {};
  EXPECT_EQ(logz::adaptive_smc(path, o).temperatures().back(), 1.0);
}

using logz::test_support::KeepingSmcJournal;

// A run stopped after a temperature and resumed from its last record (on another thread count)
// ends with the bits of a run never stopped; a record that does not fit the run is refused.
TEST(AdaptiveSmc, AResumedRunEndsWithTheBitsOfAnUninterruptedOne) {
  const RegressionPosterior posterior(20, 4, 1.0, 0.5, 3);
  const logz::GeometricPath path(logz::GaussianBase::isotropic(4, 1.0), posterior);
  logz::SmcOptions o;
  o.num_particles = 203;
  o.chunk_size = 8;
  o.seed = 8;
  o.threads = 1;
  KeepingSmcJournal whole;
  o.journal = &whole;
  const logz::SmcResult uninterrupted = logz::adaptive_smc(path, o);
  // The base draws, then every temperature, t = 1 the last.
  ASSERT_EQ(whole.kept.size(), uninterrupted.stages.size() + 1);
  ASSERT_GE(uninterrupted.stages.size(), 5u);
  EXPECT_EQ(whole.kept.back().temperature, 1.0);

  // Stopped after the base draws, and after the third temperature.
  for (const std::size_t stop_at : {std::size_t{1}, std::size_t{4}}) {
    SCOPED_TRACE(stop_at);
    logz::StopSource source;
    KeepingSmcJournal first;
    first.stop = &source, first.stop_at = stop_at;
    o.journal = &first;
    o.stop = source.token();
    EXPECT_THROW(logz::adaptive_smc(path, o), logz::Stopped);
    ASSERT_EQ(first.kept.size(), stop_at);
    KeepingSmcJournal resumed(first.kept.back());
    o.journal = &resumed;
    o.stop = {};
    o.threads = 2;
    const logz::SmcResult r = logz::adaptive_smc(path, o);
    EXPECT_EQ(r.log_z.log_z, uninterrupted.log_z.log_z);
    EXPECT_EQ(r.log_z.std_error, uninterrupted.log_z.std_error);
    EXPECT_EQ(r.temperatures(), uninterrupted.temperatures());
    EXPECT_EQ(r.particles, uninterrupted.particles);
    EXPECT_EQ(r.eves, uninterrupted.eves);
    EXPECT_EQ(r.num_evaluations(), uninterrupted.num_evaluations());
    EXPECT_EQ(r.num_resamplings, uninterrupted.num_resamplings);
    o.threads = 1;
  }
  // A complete run's record gives its result again at once.
  KeepingSmcJournal complete(whole.kept.back());
  o.journal = &complete;
  EXPECT_EQ(logz::adaptive_smc(path, o).log_z.log_z, uninterrupted.log_z.log_z);
  // Another number of particles, or bytes cut short: refused.
  logz::SmcRecord cut = whole.kept[2];
  cut.state.resize(cut.state.size() / 2);
  KeepingSmcJournal truncated(cut);
  o.journal = &truncated;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InputError);
  KeepingSmcJournal other(whole.kept[2]);
  o.journal = &other;
  o.num_particles = 204;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InputError);
}

TEST(AdaptiveSmc, EveryMoveKernelIsRight) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(4, 1.0), shifted_gaussian(4));
  const double exact = path.target().log_z() - path.base().log_z();
  for (auto move : {logz::SmcMove::mala, logz::SmcMove::random_walk}) {
    for (auto pre : {logz::SmcPreconditioner::diagonal, logz::SmcPreconditioner::none}) {
      logz::SmcOptions o;
      o.num_particles = 500;
      o.move = move;
      o.preconditioner = pre;
      o.seed = 21;
      const logz::SmcResult r = logz::adaptive_smc(path, o);
      ASSERT_TRUE(std::isfinite(r.log_z.std_error)) << logz::to_string(move);
      EXPECT_LE(std::abs(r.log_z.log_z - exact), 5.0 * r.log_z.std_error + 0.02)
          << logz::to_string(move) << " " << logz::to_string(pre);
      if (move == logz::SmcMove::random_walk) {
        EXPECT_EQ(r.gradient_evaluations, 0u);
      }
    }
  }
}

TEST(AdaptiveSmc, TheStepSizeAdaptsFromABadStart) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(10, 1.0), shifted_gaussian(10));
  const double exact = path.target().log_z() - path.base().log_z();
  logz::SmcOptions o;
  o.num_particles = 500;
  o.initial_step_size = 20.0;  // nothing accepted at first
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  EXPECT_LT(r.stages[0].acceptance, 0.3);
  EXPECT_LT(r.stages[r.stages.size() - 2].step_size, 2.0);
  EXPECT_NEAR(r.stages[r.stages.size() - 2].acceptance, 0.65, 0.25);
  EXPECT_LE(std::abs(r.log_z.log_z - exact), 5.0 * r.log_z.std_error + 0.02);
}

TEST(AdaptiveSmc, MovesInsideModesFarApartAreMeasuredByTheModesOwnSpread) {
  // Three modes of sd 0.1, five apart, masses 0.6, 0.3, 0.1 (Z = 1), from N(0, 3^2 I) in the
  // plane: the moves cannot cross between modes, and measured by the particles' whole spread
  // they were never decorrelated (flagged at every temperature near t = 1, right as it was).
  std::vector<Eigen::VectorXd> means{Eigen::Vector2d(5.0, 0.0), Eigen::Vector2d(-5.0, 0.0),
                                     Eigen::Vector2d(0.0, 5.0)};
  const logz::GaussianMixture modes(
      {0.6, 0.3, 0.1}, means, std::vector<Eigen::MatrixXd>(3, 0.01 * Eigen::Matrix2d::Identity()));
  const logz::GeometricPath path(logz::GaussianBase::isotropic(2, 3.0), modes);
  const double exact = modes.log_z() - path.base().log_z();
  logz::SmcOptions o;
  o.seed = 5;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  print_run("three narrow modes, d=2", r, exact);
  EXPECT_FALSE(r.log_z.diagnostics.has_flag("moves_not_decorrelated"));
  EXPECT_LE(std::abs(r.log_z.log_z - exact), 5.0 * r.log_z.std_error + 0.02);
  for (const logz::SmcStage& st : r.stages) EXPECT_LT(st.moves, o.max_moves) << st.temperature;
}

TEST(AdaptiveSmc, SpreadsWithinModesAreEachModesAboutItsOwnMean) {
  // Two modes at -10 and +10 (whitened units) with points at +-1 about each, and gaps 0 / 2 and
  // 10 / 14: within-mode variance 1 and gap variance (1 + 4) / 2; one mode: nullopt.
  Eigen::MatrixXd Z(1, 20);
  std::vector<double> w(20, 0.05), gaps(20);
  for (int i = 0; i < 20; ++i) {
    Z(0, i) = (i < 10 ? -10.0 : 10.0) + (i % 2 == 0 ? -1.0 : 1.0);
    gaps[static_cast<std::size_t>(i)] =
        i < 10 ? (i % 2 == 0 ? 0.0 : 2.0) : (i % 2 == 0 ? 10.0 : 14.0);
  }
  // The energies: the gaps, less 100 in the second mode, whose first is infinite (left out): 5
  // at -86 and 4 at -90 there (variance 320 / 81), 0 / 2 in the first (variance 1).
  std::vector<double> energies(gaps);
  for (int i = 10; i < 20; ++i) energies[static_cast<std::size_t>(i)] -= 100.0;
  energies[10] = std::numeric_limits<double>::infinity();
  const auto within = logz::detail::within_mode_spreads(Z, w, gaps, energies);
  ASSERT_TRUE(within.has_value());
  EXPECT_NEAR(within->total, 1.0, 1e-12);
  EXPECT_NEAR(within->gap, 2.5, 1e-12);
  EXPECT_NEAR(within->energy, (10.0 * 1.0 + 9.0 * 320.0 / 81.0) / 19.0, 1e-12);
  const Eigen::MatrixXd evenly = Eigen::RowVectorXd::LinSpaced(20, -10.0, 10.0);
  EXPECT_FALSE(logz::detail::within_mode_spreads(evenly, w, gaps, energies).has_value());
}

TEST(AdaptiveSmc, TheEnergyMustDecorrelateMoreInManyDimensions) {
  // At most a correlation of 1 / sqrt(d): jumps of 2 (1 - 1 / sqrt(d)) variances, never fewer
  // than `decorrelation`'s, and none where decorrelation is 0 (moves stop at min_moves).
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(1.0, 2), 1.0);
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(1.0, 4), 1.0);
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(1.0, 100), 1.8);
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(1.0, 10000), 1.98);
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(2.0, 100), 2.0);
  EXPECT_DOUBLE_EQ(logz::detail::energy_decorrelation(0.0, 100), 0.0);
}

TEST(AdaptiveSmc, AFrozenSamplerIsFlagged) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(10, 1.0), shifted_gaussian(10));
  logz::SmcOptions o;
  o.num_particles = 200;
  o.initial_step_size = 50.0;  // far too long, and kept
  o.adapt_step_size = false;
  o.max_moves = 3;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  EXPECT_TRUE(r.log_z.diagnostics.has_flag("frozen_sampler"));
  EXPECT_TRUE(r.log_z.diagnostics.has_flag("moves_not_decorrelated"));
  // Tiny steps are accepted but go nowhere: not frozen, not decorrelated either.
  o.initial_step_size = 1e-4;
  const logz::SmcResult tiny = logz::adaptive_smc(path, o);
  EXPECT_FALSE(tiny.log_z.diagnostics.has_flag("frozen_sampler"));
  EXPECT_TRUE(tiny.log_z.diagnostics.has_flag("moves_not_decorrelated"));
}

TEST(AdaptiveSmc, ACollapsedGenealogyHasNoErrorBar) {
  // Four particles resampled at every one of many temperatures: they end with one Eve.
  const logz::GeometricPath path(logz::GaussianBase::isotropic(10, 1.0), shifted_gaussian(10));
  logz::SmcOptions o;
  o.num_particles = 4;
  o.resample_threshold = 1.0;
  o.cess_target = 0.99;
  o.max_moves = 2;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  ASSERT_EQ(r.num_eves, 1u);
  EXPECT_TRUE(std::isfinite(r.log_z.log_z));
  EXPECT_TRUE(std::isnan(r.log_z.std_error));
  EXPECT_TRUE(r.log_z.diagnostics.has_flag("genealogy_collapsed"));
}

TEST(AdaptiveSmc, TheTemperatureCapIsFlagged) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(10, 1.0), shifted_gaussian(10));
  logz::SmcOptions o;
  o.num_particles = 200;
  o.max_temperatures = 3;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  EXPECT_EQ(r.stages.size(), 3u);
  EXPECT_EQ(r.stages.back().temperature, 1.0);
  EXPECT_TRUE(r.log_z.diagnostics.has_flag("too_many_temperatures"));
}

TEST(AdaptiveSmc, NonFiniteEnergiesAreFlaggedAndGetNoWeight) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(3, 1.0), GaussianWithNaNs{});
  logz::SmcOptions o;
  o.num_particles = 200;
  const logz::SmcResult r = logz::adaptive_smc(path, o);
  EXPECT_TRUE(std::isfinite(r.log_z.log_z));
  EXPECT_TRUE(r.log_z.diagnostics.has_flag("non_finite_energy"));
  for (Eigen::Index p = 0; p < r.particles.cols(); ++p) {
    if (r.particles(0, p) > 1.5) {
      EXPECT_EQ(r.log_weights[static_cast<std::size_t>(p)], -INFINITY);
    }
  }
}

TEST(AdaptiveSmc, OptionsOutOfRangeAreRefused) {
  const logz::GeometricPath path(logz::GaussianBase::isotropic(2, 1.0), shifted_gaussian(2));
  logz::SmcOptions o;
  o.cess_target = 1.0;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InvalidArgument);
  o = {};
  o.num_particles = 1;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InvalidArgument);
  o = {};
  o.max_moves = 2000;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InvalidArgument);
  o = {};
  o.max_leapfrog_steps = o.leapfrog_steps - 1;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InvalidArgument);
  o = {};
  o.trajectory_length = -1.0;
  EXPECT_THROW(logz::adaptive_smc(path, o), logz::InvalidArgument);
}

TEST(AdaptiveSmc, HmcTakesEnoughStepsForItsTrajectoryLength) {
  // Length 1.6: 2 steps down to a step size of 0.8, ceil(1.6 / eps) below it, 50 at most; a
  // length of 0 keeps leapfrog_steps.
  logz::SmcOptions o;
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 0.9), 2);
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 0.8), 2);
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 0.6), 3);
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 0.074), 22);
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 1e-6), 50);
  o.trajectory_length = 0.0;
  EXPECT_EQ(logz::detail::hmc_leapfrog_steps(o, 1e-6), 2);
}

}  // namespace adaptive_smc_test
