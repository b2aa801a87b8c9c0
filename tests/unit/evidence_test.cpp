// The evidence front end (evidence/): priors that are normalised and sampled exactly, and
// run_evidence right within 5 SE (+ 0.02 nat) of exact evidences: Normal prior x Gaussian
// likelihood (analytic), a Gaussian likelihood well inside a Uniform box (analytic), Student t
// priors and a product prior with a separable Gaussian likelihood (1-D quadrature per
// coordinate); the same bits for any thread count.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/evidence/likelihood_tilt.hpp"
#include "logz/evidence/prior.hpp"
#include "logz/evidence/run_evidence.hpp"

namespace evidence_test {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kEvidenceZ = 5.0, kEvidenceAllowance = 0.02;

// log N(y; x, diag(s^2)) as a function of x, per column, with its gradient.
logz::Likelihood gaussian_likelihood(const VectorXd& y, const VectorXd& s) {
  logz::Likelihood l;
  l.dim = static_cast<int>(y.size());
  const double c = -0.5 * static_cast<double>(y.size()) * std::log(2.0 * std::numbers::pi) -
                   s.array().log().sum();
  l.log_likelihood = [=](const MatrixXd& X, VectorXd& out) {
    const MatrixXd z = s.cwiseInverse().asDiagonal() * (X.colwise() - y);
    out = (-0.5 * z.colwise().squaredNorm().transpose()).array() + c;
  };
  l.log_likelihood_and_grad = [=](const MatrixXd& X, VectorXd& out, MatrixXd& G) {
    const MatrixXd z = s.cwiseInverse().asDiagonal() * (X.colwise() - y);
    out = (-0.5 * z.colwise().squaredNorm().transpose()).array() + c;
    G = -(s.array().square().inverse().matrix().asDiagonal() * (X.colwise() - y));
  };
  return l;
}

double log_normal_density(const VectorXd& x, const VectorXd& m, const MatrixXd& cov) {
  const Eigen::LLT<MatrixXd> llt(cov);
  const VectorXd z = llt.matrixL().solve(x - m);
  return -0.5 * z.squaredNorm() - MatrixXd(llt.matrixL()).diagonal().array().log().sum() -
         0.5 * static_cast<double>(x.size()) * std::log(2.0 * std::numbers::pi);
}

// log of integral f(x) N(x; y, s^2) dx by Simpson's rule on y +- 14 s, f a log density.
template <class LogDensity>
double log_quadrature(LogDensity log_f, double y, double s) {
  const int n = 20000;  // even
  const double a = y - 14.0 * s, h = 28.0 * s / n;
  double sum = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double x = a + i * h, w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    const double g =
        -0.5 * (x - y) * (x - y) / (s * s) - std::log(s) - 0.5 * std::log(2.0 * std::numbers::pi);
    sum += w * std::exp(log_f(x) + g);
  }
  return std::log(sum * h / 3.0);
}

double log_student_t(double x, double df, double loc, double scale) {
  const double r = (x - loc) / scale;
  return std::lgamma(0.5 * (df + 1.0)) - std::lgamma(0.5 * df) -
         0.5 * std::log(df * std::numbers::pi) - std::log(scale) -
         0.5 * (df + 1.0) * std::log1p(r * r / df);
}

logz::SmcOptions evidence_options(std::uint64_t seed, logz::SmcMove move = logz::SmcMove::hmc) {
  logz::SmcOptions o;
  o.seed = seed;
  o.move = move;
  o.threads = 2;
  return o;
}

void expect_within(const logz::EvidenceResult& r, double exact) {
  std::printf("evidence %s: %.4f +- %.4f, exact %.4f, %zu temperatures, %llu evaluations\n",
              logz::to_string(r.move).c_str(), r.log_evidence, r.std_error, exact,
              r.smc.stages.size(), static_cast<unsigned long long>(r.smc.num_evaluations()));
  EXPECT_TRUE(std::isfinite(r.std_error));
  EXPECT_GT(r.std_error, 0.0);
  EXPECT_LE(std::abs(r.log_evidence - exact), kEvidenceZ * r.std_error + kEvidenceAllowance)
      << "estimate " << r.log_evidence << " exact " << exact << " SE " << r.std_error;
}

TEST(EvidencePrior, NormalisedAndSampled) {
  // Each block's density integrates to 1 (quadrature in 1-D) and its draws have its moments.
  const auto t = logz::student_t_prior(VectorXd::Constant(1, 5.0), VectorXd::Constant(1, 0.5),
                                       VectorXd::Constant(1, 2.0));
  const auto n = logz::normal_prior(VectorXd::Constant(1, 1.0), MatrixXd::Constant(1, 1, 4.0));
  for (const auto& block : {t, n}) {
    const logz::Prior prior({block});
    auto log_f = [&](double x) {
      VectorXd e;
      prior.energy(MatrixXd::Constant(1, 1, x), e);
      return -e(0);
    };
    // integral f = integral f(x) N(x; 0, 400^2) dx / N(x; 0, 400^2) ~ handled by a wide grid.
    double sum = 0.0;
    const int m = 400000;
    const double a = -2000.0, h = 4000.0 / m;
    for (int i = 0; i <= m; ++i) sum += (i == 0 || i == m ? 0.5 : 1.0) * std::exp(log_f(a + i * h));
    EXPECT_NEAR(sum * h, 1.0, 2e-3) << block->name();
  }
  // chi^2 draws through gamma_draw: mean df, variance 2 df (df = 0.7 and 6).
  for (const double df : {0.7, 6.0}) {
    logz::RandomStream s(3, 0, logz::Purpose::test, 0);
    const int m = 200000;
    double mean = 0.0, sq = 0.0;
    for (int i = 0; i < m; ++i) {
      const double g = 2.0 * logz::gamma_draw(s, 0.5 * df);
      mean += g, sq += g * g;
    }
    mean /= m, sq /= m;
    EXPECT_NEAR(mean, df, 5.0 * std::sqrt(2.0 * df / m));
    EXPECT_NEAR(sq - mean * mean, 2.0 * df, 0.05 * 2.0 * df);
  }
  // A Uniform block's box becomes constraints; draws fall inside.
  const logz::Prior box(
      {logz::uniform_prior(VectorXd::Constant(2, -1.0), VectorXd::Constant(2, 3.0))});
  ASSERT_NE(box.constraints(), nullptr);
  EXPECT_EQ(box.constraints()->num_constraints(), 4);
  logz::RandomStream s(1, 0, logz::Purpose::test, 0);
  VectorXd x(2);
  box.sample_one(s, x);
  EXPECT_GE(box.constraints()->min_slack(x), 0.0);
}

TEST(EvidencePrior, BadInputNamesTheArgument) {
  MatrixXd not_pd(2, 2);
  not_pd << 1.0, 2.0, 2.0, 1.0;
  EXPECT_THROW(logz::normal_prior(VectorXd::Zero(2), not_pd), logz::InvalidArgument);
  EXPECT_THROW(logz::uniform_prior(VectorXd::Constant(1, 1.0), VectorXd::Constant(1, 1.0)),
               logz::InvalidArgument);
  EXPECT_THROW(
      logz::student_t_prior(VectorXd::Constant(1, 0.0), VectorXd::Zero(1), VectorXd::Ones(1)),
      logz::InvalidArgument);
  auto prior = std::make_shared<logz::Prior>(
      std::vector{logz::normal_prior(VectorXd::Zero(2), MatrixXd::Identity(2, 2))});
  logz::Likelihood no_grad = gaussian_likelihood(VectorXd::Zero(2), VectorXd::Ones(2));
  no_grad.log_likelihood_and_grad = nullptr;
  try {
    logz::run_evidence(prior, no_grad, evidence_options(1));
    FAIL() << "HMC without a gradient ran";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("move"), std::string::npos) << e.what();
  }
  EXPECT_EQ(logz::evidence_default_move(*prior, no_grad), logz::SmcMove::random_walk);
  logz::Likelihood wrong_dim = gaussian_likelihood(VectorXd::Zero(3), VectorXd::Ones(3));
  EXPECT_THROW(logz::run_evidence(prior, wrong_dim, evidence_options(1)), logz::InvalidArgument);
}

TEST(LikelihoodTilt, PositionsWithNonFiniteCoordinatesAreNotAskedAndGetNoLikelihood) {
  // A user's function that would answer NaN at an infinite coordinate (inf - inf), and counts
  // the columns it is asked at: only the finite ones reach it.
  int asked = 0;
  logz::Likelihood l;
  l.dim = 2;
  auto check = [&asked](const MatrixXd& X) {
    EXPECT_TRUE(X.allFinite());
    asked += static_cast<int>(X.cols());
  };
  l.log_likelihood = [&](const MatrixXd& X, VectorXd& v) {
    check(X);
    v = -0.5 * X.colwise().squaredNorm().transpose();
  };
  l.log_likelihood_and_grad = [&](const MatrixXd& X, VectorXd& v, MatrixXd& G) {
    check(X);
    v = -0.5 * X.colwise().squaredNorm().transpose();
    G = -X;
  };
  const logz::LikelihoodTilt tilt(l);
  constexpr double inf = std::numeric_limits<double>::infinity();
  MatrixXd X(2, 4);
  X << 1.0, inf, 2.0, std::nan(""),  //
      0.0, -inf, 1.0, 0.0;
  VectorXd e;
  MatrixXd G;
  tilt.energy_and_grad(X, e, G);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(e(0), 0.5);
  EXPECT_EQ(e(2), 2.5);
  EXPECT_TRUE(std::isinf(e(1)) && e(1) > 0 && std::isinf(e(3)) && e(3) > 0);
  EXPECT_EQ(G.col(1), Eigen::Vector2d::Zero());
  EXPECT_EQ(G.col(2), Eigen::Vector2d(2.0, 1.0));
  tilt.energy(X.rightCols(2).leftCols(1).replicate(1, 1), e);  // one finite column alone
  EXPECT_EQ(asked, 3);
  tilt.grad(X.middleCols(1, 1), G);  // none finite: the function is not called
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(G, Eigen::Vector2d::Zero());
}

TEST(Evidence, NormalPriorGaussianLikelihood) {
  // N(m, Sigma) dense x N(y; x, S): evidence N(y; m, Sigma + S).
  const int d = 4;
  VectorXd m(d), y(d), s(d);
  m << 0.5, -1.0, 0.0, 2.0;
  y << 1.5, 0.0, -2.0, 2.5;
  s << 0.3, 0.5, 1.0, 0.2;
  MatrixXd cov = MatrixXd::Identity(d, d);
  for (int i = 0; i + 1 < d; ++i) cov(i, i + 1) = cov(i + 1, i) = 0.4;
  cov *= 2.0;
  const double exact =
      log_normal_density(y, m, cov + MatrixXd(s.array().square().matrix().asDiagonal()));
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::normal_prior(m, cov)});
  const logz::Likelihood l = gaussian_likelihood(y, s);
  for (const logz::SmcMove move : {logz::SmcMove::hmc, logz::SmcMove::random_walk}) {
    const logz::EvidenceResult r = logz::run_evidence(prior, l, evidence_options(11, move));
    expect_within(r, exact);
    EXPECT_TRUE(r.smc.log_z.diagnostics.flags.empty());
    EXPECT_EQ(r.move, move);
  }
}

TEST(Evidence, RefiningRunFromAFittedBaseNarrowsTheErrorBar) {
  // A likelihood 20 times narrower than the prior in d = 6: the run from the prior has a wide
  // error bar; the run from the Gaussian fitted to its particles is the answer, within its
  // smaller error of the exact value, and both runs' numbers are kept. Without refining, the
  // first run's answer and no second run.
  const int d = 6;
  const VectorXd m = VectorXd::Zero(d), y = VectorXd::Constant(d, 0.7),
                 s = VectorXd::Constant(d, 0.05);
  const MatrixXd cov = MatrixXd::Identity(d, d);
  const double exact =
      log_normal_density(y, m, cov + MatrixXd(s.array().square().matrix().asDiagonal()));
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::normal_prior(m, cov)});
  const logz::Likelihood l = gaussian_likelihood(y, s);
  const logz::EvidenceResult r =
      logz::run_evidence(prior, l, evidence_options(13, logz::SmcMove::hmc));
  ASSERT_TRUE(r.refined.has_value());
  // More than three times as precise as the first run: the refined estimate alone is the
  // answer.
  EXPECT_LT(logz::kCombineWithin * r.refined->log_z.std_error, r.smc.log_z.std_error);
  EXPECT_EQ(r.answer, logz::RefineAnswer::refined);
  expect_within(r, exact);
  EXPECT_EQ(r.std_error, r.refined->log_z.std_error);
  EXPECT_EQ(r.log_evidence,
            logz::refine_verdict({r.smc.absolute_log_z(), r.smc.log_z.std_error},
                                 {r.refined->absolute_log_z(), r.refined->log_z.std_error})
                .log_z);
  EXPECT_LT(r.refined->stages.size(), r.smc.stages.size());
  const logz::EvidenceResult plain =
      logz::run_evidence(prior, l, evidence_options(13, logz::SmcMove::hmc), {.enabled = false});
  EXPECT_FALSE(plain.refined.has_value());
  EXPECT_EQ(plain.log_evidence, r.smc.absolute_log_z());
}

TEST(Evidence, TheTwoRunsAreCombinedOrFlaggedAsDisagreeing) {
  // Combined SE hypot(0.08, 0.015) = 0.0814: agreement up to 3 x 0.0814 + 0.05 = 0.294.
  const logz::RunEstimate first{-12.5, 0.08}, near{-12.75, 0.015};  // 0.25 apart
  // SEs 5.3 times apart: the more precise alone, whichever run it is.
  const auto agree = logz::refine_verdict(first, near);
  EXPECT_EQ(agree.answer, logz::RefineAnswer::refined);
  EXPECT_FALSE(agree.disagree);
  EXPECT_EQ(agree.log_z, -12.75);
  EXPECT_EQ(agree.std_error, 0.015);
  const auto swapped = logz::refine_verdict({-12.75, 0.015}, {-12.5, 0.08});
  EXPECT_EQ(swapped.answer, logz::RefineAnswer::first);
  EXPECT_EQ(swapped.log_z, -12.75);
  // SEs within a factor 3 (0.025 and 0.015; agreement up to 3 x 0.0292 + 0.05 = 0.137):
  // inverse-variance weights 1600 and 4444.4, the mean 0.0265 from the refined estimate towards
  // the first, its SE (6044.4)^-1/2; symmetric in the two runs.
  const auto combined = logz::refine_verdict({-12.65, 0.025}, near);
  EXPECT_EQ(combined.answer, logz::RefineAnswer::combined);
  EXPECT_NEAR(combined.log_z, (1600.0 * -12.65 + 4444.444444 * -12.75) / 6044.444444, 1e-9);
  EXPECT_NEAR(combined.std_error, 1.0 / std::sqrt(6044.444444), 1e-9);
  const auto combined_swapped = logz::refine_verdict(near, {-12.65, 0.025});
  EXPECT_EQ(combined_swapped.answer, logz::RefineAnswer::combined);
  EXPECT_NEAR(combined_swapped.log_z, combined.log_z, 1e-12);
  // 0.32 apart, 3.9 combined SEs (a calibration run's first estimate, 4 SEs from the exact
  // value, whose refining run was right): flagged, where a flag at 4 SEs missed it, and the
  // refining run's estimate given.
  const auto apart = logz::refine_verdict({-12.476, 0.08}, {-12.794, 0.015});
  EXPECT_TRUE(apart.disagree);
  EXPECT_EQ(apart.answer, logz::RefineAnswer::refined);
  EXPECT_EQ(apart.log_z, -12.794);
  EXPECT_EQ(apart.std_error, 0.015);
  // Disagreeing with a flagged refining run, or one without an error bar: the first's.
  const auto apart_flagged = logz::refine_verdict({-12.476, 0.08}, {-12.794, 0.015, true});
  EXPECT_TRUE(apart_flagged.disagree);
  EXPECT_EQ(apart_flagged.answer, logz::RefineAnswer::first);
  EXPECT_EQ(apart_flagged.log_z, -12.476);
  // A flagged refining run: the first stays, no flag.
  const auto refined_flagged = logz::refine_verdict(first, {-12.75, 0.015, true});
  EXPECT_EQ(refined_flagged.answer, logz::RefineAnswer::first);
  EXPECT_FALSE(refined_flagged.disagree);
  EXPECT_EQ(refined_flagged.std_error, 0.08);
  // A flagged first run (its SE in doubt): the refined estimate alone where it is the more
  // precise, else the first's.
  const auto first_flagged = logz::refine_verdict({-12.5, 0.08, true}, near);
  EXPECT_EQ(first_flagged.answer, logz::RefineAnswer::refined);
  EXPECT_EQ(first_flagged.log_z, -12.75);
  EXPECT_EQ(logz::refine_verdict({-12.5, 0.015, true}, {-12.52, 0.08}).answer,
            logz::RefineAnswer::first);
  // A NaN anywhere is no agreement.
  const auto nan = logz::refine_verdict(first, {std::numeric_limits<double>::quiet_NaN(), 0.015});
  EXPECT_TRUE(nan.disagree);
  EXPECT_EQ(nan.log_z, -12.5);
}

TEST(Evidence, RefiningRunInsideAUniformBoxStartsFromTruncatedNormals) {
  // The same narrow likelihood near a face of the box [0, 1]^6 (y = 0.97, s = 0.05: a quarter
  // of each coordinate's likelihood mass outside the box): the refining run starts from normals
  // fitted to the first run's particles and truncated to the box, stays in it, and is the
  // answer within its error of the exact value prod_i (mass of N(y, s^2) in [0, 1]).
  const int d = 6;
  const double y0 = 0.97, s0 = 0.05;
  const VectorXd y = VectorXd::Constant(d, y0), s = VectorXd::Constant(d, s0);
  const double mass = 0.5 * (std::erfc((0.0 - y0) / (s0 * std::sqrt(2.0))) -
                             std::erfc((1.0 - y0) / (s0 * std::sqrt(2.0))));
  const double exact = d * std::log(mass);
  auto box = std::make_shared<logz::Prior>(
      std::vector{logz::uniform_prior(VectorXd::Zero(d), VectorXd::Ones(d))});
  const logz::EvidenceResult r =
      logz::run_evidence(box, gaussian_likelihood(y, s), evidence_options(14, logz::SmcMove::hmc));
  ASSERT_TRUE(r.refined.has_value());
  EXPECT_EQ(r.answer, logz::RefineAnswer::refined);  // more than 3 times the more precise
  expect_within(r, exact);
  EXPECT_EQ(r.std_error, r.refined->log_z.std_error);
  for (Eigen::Index p = 0; p < r.refined->particles.cols(); ++p)
    ASSERT_GE(box->constraints()->min_slack(r.refined->particles.col(p)), 0.0);
}

TEST(Evidence, GaussianLikelihoodInsideUniformBox) {
  // Uniform on [-10, 10] x [-5, 15] x N(y; x, s^2): evidence prod_i (mass of N(y_i, s_i^2) in
  // the box) / width_i.
  VectorXd low(2), high(2), y(2), s(2);
  low << -10.0, -5.0;
  high << 10.0, 15.0;
  y << 1.0, 3.0;
  s << 0.5, 2.0;
  double exact = 0.0;
  for (int i = 0; i < 2; ++i) {
    const double mass = 0.5 * (std::erfc((low(i) - y(i)) / (s(i) * std::sqrt(2.0))) -
                               std::erfc((high(i) - y(i)) / (s(i) * std::sqrt(2.0))));
    exact += std::log(mass) - std::log(high(i) - low(i));
  }
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::uniform_prior(low, high)});
  for (const logz::SmcMove move : {logz::SmcMove::hmc, logz::SmcMove::random_walk}) {
    const logz::EvidenceResult r =
        logz::run_evidence(prior, gaussian_likelihood(y, s), evidence_options(12, move));
    expect_within(r, exact);
    // The particles stay in the box.
    for (Eigen::Index p = 0; p < r.smc.particles.cols(); ++p)
      ASSERT_GE(prior->constraints()->min_slack(r.smc.particles.col(p)), 0.0);
  }
}

TEST(Evidence, StudentTAndProductPriors) {
  // Student t prior (df 3 and 1.5) x N(y; x, s^2), separable: a product of 1-D quadratures.
  VectorXd df(2), loc(2), scale(2), y(2), s(2);
  df << 3.0, 1.5;
  loc << 0.0, 1.0;
  scale << 1.0, 0.5;
  y << 2.5, -1.0;
  s << 0.7, 1.2;
  double exact = 0.0;
  for (int i = 0; i < 2; ++i)
    exact += log_quadrature([&](double x) { return log_student_t(x, df(i), loc(i), scale(i)); },
                            y(i), s(i));
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::student_t_prior(df, loc, scale)});
  expect_within(logz::run_evidence(prior, gaussian_likelihood(y, s), evidence_options(13)), exact);

  // Normal (1) x Student t (2) x Uniform (1), with a separable Gaussian likelihood over all 4.
  VectorXd y4(4), s4(4);
  y4 << 0.5, 2.5, -1.0, 0.3;
  s4 << 0.4, 0.7, 1.2, 0.5;
  double exact4 = log_quadrature(
      [](double x) {
        return -0.5 * (x - 1.0) * (x - 1.0) / 2.0 - 0.5 * std::log(2.0 * std::numbers::pi * 2.0);
      },
      y4(0), s4(0));
  exact4 += exact;  // coordinates 1, 2: the Student t block above with y and s as there
  exact4 += std::log(0.5 * (std::erfc((-2.0 - 0.3) / (0.5 * std::sqrt(2.0))) -
                            std::erfc((2.0 - 0.3) / (0.5 * std::sqrt(2.0))))) -
            std::log(4.0);
  auto product = std::make_shared<logz::Prior>(
      std::vector{logz::normal_prior(VectorXd::Constant(1, 1.0), MatrixXd::Constant(1, 1, 2.0)),
                  logz::student_t_prior(df, loc, scale),
                  logz::uniform_prior(VectorXd::Constant(1, -2.0), VectorXd::Constant(1, 2.0))});
  expect_within(logz::run_evidence(product, gaussian_likelihood(y4, s4), evidence_options(14)),
                exact4);
}

TEST(Evidence, SameBitsForAnyThreadCount) {
  VectorXd df(3), loc = VectorXd::Zero(3), scale = VectorXd::Ones(3);
  df << 2.0, 4.0, 8.0;
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::student_t_prior(df, loc, scale)});
  const logz::Likelihood l = gaussian_likelihood(VectorXd::Constant(3, 1.0), VectorXd::Ones(3));
  logz::SmcOptions o = evidence_options(5);
  o.threads = 1;
  const logz::EvidenceResult a = logz::run_evidence(prior, l, o);
  o.threads = 3;
  const logz::EvidenceResult b = logz::run_evidence(prior, l, o);
  EXPECT_EQ(a.log_evidence, b.log_evidence);
  EXPECT_EQ(a.std_error, b.std_error);
  EXPECT_TRUE(a.smc.particles == b.smc.particles);
}

TEST(Evidence, PriorEvaluatedOncePerEvaluation) {
  // The tilted path's parts are the prior's energy and -log L: every evaluation calls a Custom
  // prior's log density once, as often as the likelihood (not twice, as a geometric path from
  // the prior to prior x likelihood would), and the answer is N(y; 0, I + S).
  const int d = 3;
  std::atomic<long> prior_calls = 0, likelihood_calls = 0;
  logz::CustomPriorFunctions f;
  f.dim = d;
  f.sample = [](logz::RandomStream& s, Eigen::Ref<VectorXd> x) {
    s.fill_normal(x.data(), static_cast<std::size_t>(x.size()));
  };
  const double c = -0.5 * d * std::log(2.0 * std::numbers::pi);
  f.grad_log_density = [&](const MatrixXd& X, VectorXd& out, MatrixXd& G) {
    ++prior_calls;
    out = (-0.5 * X.colwise().squaredNorm().transpose()).array() + c;
    G = -X;
  };
  f.log_density = [&](const MatrixXd& X, VectorXd& out) {
    ++prior_calls;
    out = (-0.5 * X.colwise().squaredNorm().transpose()).array() + c;
  };
  auto prior = std::make_shared<logz::Prior>(std::vector{logz::custom_prior(f)});
  const VectorXd y = VectorXd::Constant(d, 0.7), s = VectorXd::Constant(d, 0.5);
  logz::Likelihood l = gaussian_likelihood(y, s);
  auto values = l.log_likelihood;
  auto with_grad = l.log_likelihood_and_grad;
  l.log_likelihood = [&, values](const MatrixXd& X, VectorXd& out) {
    ++likelihood_calls;
    values(X, out);
  };
  l.log_likelihood_and_grad = [&, with_grad](const MatrixXd& X, VectorXd& out, MatrixXd& G) {
    ++likelihood_calls;
    with_grad(X, out, G);
  };
  const logz::EvidenceResult r = logz::run_evidence(prior, l, evidence_options(21));
  expect_within(r, log_normal_density(y, VectorXd::Zero(d),
                                      MatrixXd::Identity(d, d) +
                                          MatrixXd(s.array().square().matrix().asDiagonal())));
  EXPECT_GT(likelihood_calls.load(), 0);
  EXPECT_EQ(prior_calls.load(), likelihood_calls.load());
}

}  // namespace evidence_test
