// Rao-Blackwellized tempered sampling on a tiny RBM (joint (v, h) chains, block Gibbs at each
// chain's own level): every level of the ladder against exact enumeration, the batched level
// step identical to stepping each chain alone, and thread-count invariance. On the marginal
// p(v) path, whose energies are not linear in beta, every estimator against enumeration:
// TI must integrate -dU/dbeta at each level, MBAR must see every level's energy.
//
// Tolerance, as for the Ising test: |estimate - exact| <= 5 SE + |bias eq. 15| + SE^2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "logz/core/error.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/estimators/thermodynamic_integration.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/tempering/initial_iterations.hpp"

namespace {

// 10 visible, 6 hidden units, couplings sd 1: peaked enough that the ladder matters.
logz::RbmParameters tiny_rbm() {
  logz::RbmParameters p{Eigen::MatrixXd(10, 6), Eigen::VectorXd(10), Eigen::VectorXd(6)};
  logz::RandomStream s(2016, 0, logz::Purpose::test, 0);
  for (Eigen::Index i = 0; i < p.W.size(); ++i) p.W.data()[i] = s.normal();
  for (Eigen::Index i = 0; i < 10; ++i) p.a(i) = 0.5 * s.normal();
  for (Eigen::Index j = 0; j < 6; ++j) p.b(j) = 0.5 * s.normal();
  return p;
}

// A base with unequal visible logits, as a base rate would have.
logz::RbmBase tiny_base() {
  logz::RbmBase base = logz::uniform_rbm_base(10);
  for (Eigen::Index i = 0; i < 10; ++i) base.logits(i) = 0.3 * static_cast<double>(i % 4) - 0.4;
  base.name = "test";
  return base;
}

// Hides step_levels, so that the driver steps each chain alone at its own level.
struct OneChainAtATime {
  logz::RbmGibbs<double> gibbs;
  logz::KernelInfo step(const logz::RbmTarget<double>& t, logz::RbmBatch<double>& b,
                        const logz::BatchRandom& r) const {
    return gibbs.step(t, b, r);
  }
};

template <class Kernel, class Path = logz::RbmFullPath<double>>
logz::TemperingStats temper(const Kernel& kernel, int threads, std::size_t levels,
                            std::size_t sweeps, std::vector<double> log_z_hat = {},
                            logz::InitialIterationsResult* init = nullptr,
                            bool record_samples = false) {
  const Path path(tiny_rbm(), tiny_base());
  logz::TemperingLadder ladder(logz::linear_schedule(levels - 1));
  logz::TemperingOptions o;
  o.num_chains = 40;
  o.chunk_size = 8;
  o.seed = 11;
  o.threads = threads;
  o.record_samples = record_samples;
  logz::SimulatedTempering st(path, kernel, ladder, o);
  if (log_z_hat.empty()) log_z_hat.assign(levels, 0.0);
  if (init) {
    *init = logz::initial_iterations(st, log_z_hat, 50, 40, 0.1 / static_cast<double>(levels));
    log_z_hat = init->log_z_hat;
  }
  return st.run(sweeps, log_z_hat);
}

TEST(RtsRbm, EveryLevelWithinErrorOfEnumeration) {
  const std::size_t levels = 20;
  logz::InitialIterationsResult init;
  const logz::TemperingStats stats = temper(logz::RbmGibbs<double>(1), 2, levels, 3000, {}, &init);
  EXPECT_TRUE(init.converged) << "initial iterations did not reach max |r_k - c_k| < 0.1/K in "
                              << init.iterations;
  const logz::TemperingLadder ladder(logz::linear_schedule(levels - 1));
  const auto rts = logz::rts_ladder(stats, init.log_z_hat, ladder.log_prior());
  const logz::RbmParameters p = tiny_rbm();
  const Eigen::VectorXd a0 = tiny_base().logits;
  const double log_z_1 = logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, 0.0));
  for (std::size_t k = 1; k < levels; ++k) {
    const double exact =
        logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, ladder.fraction(k))) - log_z_1;
    const double se = rts.std_error[k];
    ASSERT_TRUE(std::isfinite(se)) << k;
    EXPECT_LT(se, 0.05) << k;  // target fixed in advance
    const double bias = std::isfinite(rts.bias[k]) ? std::abs(rts.bias[k]) : 0.0;
    EXPECT_LE(std::abs(rts.log_z[k] - exact), 5 * se + bias + se * se)
        << "level " << k << ": " << rts.log_z[k] << " vs exact " << exact << " SE " << se;
  }
  std::printf("RTS log Z_K - log Z_1 = %.4f +- %.4f, exact %.4f (%d initial iterations)\n",
              rts.log_z.back(), rts.std_error.back(),
              logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, 1.0)) - log_z_1,
              init.iterations);
}

// log Z_t - log Z_0 of the tiny RBM's path, by enumeration.
double exact_rbm_level(double t) {
  const logz::RbmParameters p = tiny_rbm();
  const Eigen::VectorXd a0 = tiny_base().logits;
  return logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, t)) -
         logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, 0.0));
}

TEST(RtsRbm, MarginalPathEveryEstimatorAgainstEnumeration) {
  const std::size_t levels = 20;
  logz::InitialIterationsResult init;
  const logz::TemperingStats stats =
      temper<logz::RbmGibbs<double>, logz::RbmMarginalVisiblePath<double>>(
          logz::RbmGibbs<double>(1), 2, levels, 3000, {}, &init, true);
  ASSERT_FALSE(stats.linear_in_t);
  const logz::TemperingLadder ladder(logz::linear_schedule(levels - 1));
  const auto betas = ladder.fractions();
  const double exact = exact_rbm_level(1.0);
  // The trapezoid rule on the exact integrand d log Z_t / dt (central differences of the
  // enumerated log Z, error ~1e-9): what TI converges to, whose distance from `exact` is the
  // rule's own discretisation error, allowed for beside the sampling error.
  double trapezoid = 0.0;
  const auto slope = [](double t) {
    return (exact_rbm_level(t + 1e-5) - exact_rbm_level(t - 1e-5)) / 2e-5;
  };
  for (std::size_t k = 1; k < levels; ++k)
    trapezoid += 0.5 * (betas[k] - betas[k - 1]) * (slope(betas[k - 1]) + slope(betas[k]));
  const auto rts = logz::rts_ladder(stats, init.log_z_hat, ladder.log_prior());
  const double rts_se = rts.std_error.back();
  for (const char* method : {"ti_trapezoid", "ti_rb"}) {
    const auto ti = logz::thermodynamic_integration(stats, betas, method);
    const double se = ti.std_error.back();
    ASSERT_TRUE(std::isfinite(se) && se > 0) << method;
    EXPECT_LE(std::abs(ti.log_z.back() - trapezoid), 5 * se + se * se)
        << method << ": " << ti.log_z.back() << " vs exact trapezoid " << trapezoid << " (exact "
        << exact << ") SE " << se;
    std::printf("%s %.4f +- %.4f, exact trapezoid %.4f, exact %.4f\n", method, ti.log_z.back(), se,
                trapezoid, exact);
  }
  EXPECT_THROW(logz::thermodynamic_integration(stats, betas, "ti_corrected"), logz::Error);
  // MBAR's asymptotic SE treats the correlated samples as independent; the chain-replicate SE
  // of RTS on the same samples is the honest scale of their error.
  const auto mbar = logz::mbar_tempered(stats, betas);
  const double se = std::max(mbar.std_error.back(), rts_se);
  EXPECT_LE(std::abs(mbar.log_z.back() - exact), 5 * se + se * se)
      << "mbar " << mbar.log_z.back() << " vs exact " << exact;
  EXPECT_LE(std::abs(rts.log_z.back() - exact),
            5 * rts_se + std::abs(rts.bias.back()) + rts_se * rts_se);
  std::printf("mbar %.4f, rts %.4f +- %.4f, exact %.4f\n", mbar.log_z.back(), rts.log_z.back(),
              rts_se, exact);
}

// Sweeps without the TI integrands (initial iterations, runs with no TI estimator) move the chains
// and weigh the levels to the bit as sweeps with them do (float path: every level's sums in one
// pass); thermodynamic integration then refuses the statistics rather than integrate zeros.
TEST(RtsRbm, WithoutIntegrandsTheSameChainsAndNoTi) {
  const logz::RbmMarginalVisiblePath<float> path(tiny_rbm(), tiny_base());
  const logz::TemperingLadder ladder(logz::linear_schedule(19));
  logz::TemperingOptions o;
  o.num_chains = 16;
  o.chunk_size = 8;
  o.seed = 5;
  const std::vector<double> log_z_hat(20, 0.0);
  const logz::RbmGibbs<float> gibbs(1);  // the tempering holds the path and kernel by reference
  logz::SimulatedTempering with(path, gibbs, ladder, o);
  logz::SimulatedTempering without(path, gibbs, ladder, o);
  const logz::TemperingStats a = with.run(40, log_z_hat), b = without.run(40, log_z_hat, {}, false);
  EXPECT_TRUE(a.has_integrands);
  EXPECT_FALSE(b.has_integrands);
  EXPECT_EQ(a.log_c(), b.log_c());
  EXPECT_EQ(a.counts(), b.counts());
  EXPECT_NO_THROW(logz::thermodynamic_integration(a, ladder.fractions(), "ti_rb"));
  EXPECT_THROW(logz::thermodynamic_integration(b, ladder.fractions(), "ti_rb"), logz::Error);
}

TEST(RtsRbm, BatchedLevelStepEqualsOneChainAtATime) {
  const std::vector<double> log_z_hat(8, 0.0);
  const auto batched = temper(logz::RbmGibbs<double>(1), 1, 8, 30, log_z_hat);
  const auto single = temper(OneChainAtATime{logz::RbmGibbs<double>(1)}, 1, 8, 30, log_z_hat);
  // Same draws, hence the same visits; the energies differ in the last bits (the batch computes
  // E from a + W h, a chain stepped alone from b + W^T v after its copy back).
  for (std::size_t c = 0; c < batched.chains.size(); ++c)
    EXPECT_EQ(batched.chains[c].counts, single.chains[c].counts) << c;
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_NEAR(batched.log_c()[k], single.log_c()[k], 1e-12) << k;
}

TEST(RtsRbm, SameResultsForOneTwoThreeThreads) {
  const std::vector<double> log_z_hat(8, 0.0);
  const auto a = temper(logz::RbmGibbs<double>(1), 1, 8, 50, log_z_hat);
  const auto b = temper(logz::RbmGibbs<double>(1), 2, 8, 50, log_z_hat);
  const auto c = temper(logz::RbmGibbs<double>(1), 3, 8, 50, log_z_hat);
  EXPECT_EQ(a.log_c(), b.log_c());
  EXPECT_EQ(a.log_c(), c.log_c());
}

}  // namespace
