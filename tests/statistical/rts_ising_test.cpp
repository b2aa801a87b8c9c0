// Rao-Blackwellized tempered sampling on a small Ising torus: every level of
// the ladder against Kaufman's exact log Z, the initial iterations reaching
// the stopping rule, MBAR on the same samples, and thread-count invariance.
//
// Tolerance: |estimate - exact| <= 5 SE + |bias eq. 15| + SE^2 per level (the
// bias approximation and a second-order allowance for the log of a ratio).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "logz/estimators/mbar.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/estimators/thermodynamic_integration.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/models/ising.hpp"
#include "logz/tempering/initial_iterations.hpp"

namespace {

constexpr int kSide = 4;
constexpr double kBeta = 0.8;

struct TemperingRun {
  logz::InitialIterationsResult init;
  logz::TemperingStats stats;
  logz::TemperingLadder ladder;
};

template <class Kernel = logz::SpinFlipMetropolis>
TemperingRun run_tempering(int threads, std::size_t num_levels = 12,
                           const Kernel& kernel = Kernel(logz::SiteOrder::random, 16)) {
  const logz::IsingModel model(kSide, kSide, 1.0, kBeta);
  logz::TemperingLadder ladder(logz::linear_schedule(num_levels - 1));
  logz::TemperingOptions o;
  o.num_chains = 32;
  o.seed = 2016;
  o.threads = threads;
  o.record_samples = true;
  logz::SimulatedTempering st(model, kernel, ladder, o);
  const double tolerance = 0.1 / static_cast<double>(num_levels);
  auto init =
      logz::initial_iterations(st, std::vector<double>(num_levels, 0.0), 100, 40, tolerance);
  auto stats = st.run(1500, init.log_z_hat);
  return {init, std::move(stats), ladder};
}

double exact_level(double t) {
  return logz::exact::ising_log_z_kaufman(kSide, kSide, t * kBeta) - kSide * kSide * std::log(2.0);
}

void check_every_level(const TemperingRun& r) {
  EXPECT_TRUE(r.init.converged) << "initial iterations did not reach max |r_k - c_k| < 0.1/K";
  const auto rts = logz::rts_ladder(r.stats, r.init.log_z_hat, r.ladder.log_prior());
  const auto mbar = logz::mbar_tempered(r.stats, r.ladder.fractions());
  EXPECT_TRUE(mbar.last.diagnostics.converged);
  for (std::size_t k = 1; k < r.ladder.size(); ++k) {
    const double exact = exact_level(r.ladder.fraction(k));
    for (const auto* e : {&rts, &mbar}) {
      SCOPED_TRACE(e->method + " level " + std::to_string(k));
      const double se = e->std_error[k];
      ASSERT_TRUE(std::isfinite(se));
      EXPECT_LT(se, 0.05);  // target fixed in advance
      const double bias = std::isfinite(e->bias[k]) ? std::abs(e->bias[k]) : 0.0;
      EXPECT_LE(std::abs(e->log_z[k] - exact), 5 * se + bias + se * se)
          << e->log_z[k] << " vs exact " << exact << " SE " << se;
    }
  }
  std::printf("RTS %.4f +- %.4f, MBAR %.4f +- %.4f, exact %.4f (%d initial iterations)\n",
              rts.log_z.back(), rts.std_error.back(), mbar.log_z.back(), mbar.std_error.back(),
              exact_level(1.0), r.init.iterations);
  for (const char* m : {"ti_riemann", "ti_trapezoid", "ti_corrected", "ti_rb"}) {
    const auto ti = logz::thermodynamic_integration(r.stats, r.ladder.fractions(), m);
    std::printf("%-13s %.4f +- %.4f\n", m, ti.log_z.back(), ti.std_error.back());
  }
  const auto ts = logz::ts_ladder(r.stats, r.init.log_z_hat, r.ladder.log_prior());
  std::printf("ts            %.4f +- %.4f\n", ts.log_z.back(), ts.std_error.back());
}

TEST(RtsIsing, EveryLevelWithinErrorOfKaufman) { check_every_level(run_tempering(2)); }

// Cluster moves as the x-kernel of tempering: two sweeps per move.
TEST(RtsIsing, SwendsenWangEveryLevelWithinErrorOfKaufman) {
  check_every_level(run_tempering(2, 12, logz::SwendsenWang(2)));
}

TEST(RtsIsing, SameResultsForOneTwoThreeThreads) {
  const TemperingRun a = run_tempering(1, 6), b = run_tempering(2, 6), c = run_tempering(3, 6);
  EXPECT_EQ(a.init.log_z_hat, b.init.log_z_hat);
  EXPECT_EQ(a.init.log_z_hat, c.init.log_z_hat);
  EXPECT_EQ(a.stats.log_c(), b.stats.log_c());
  EXPECT_EQ(a.stats.log_c(), c.stats.log_c());
  EXPECT_EQ(a.stats.sample_delta, c.stats.sample_delta);
}

TEST(RtsIsing, WangLandauGivesUsableStartingValues) {
  const logz::IsingModel model(kSide, kSide, 1.0, kBeta);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 16);
  logz::TemperingLadder ladder(logz::linear_schedule(7));
  logz::TemperingOptions o;
  o.num_chains = 16;
  o.seed = 7;
  logz::SimulatedTempering st(model, kernel, ladder, o);
  logz::WangLandauOptions w;
  w.final_gamma = 0.01;
  const auto r = logz::wang_landau(st, std::vector<double>(8, 0.0), w);
  EXPECT_TRUE(r.converged);
  // Good enough to mix: every level within 1 nat of the truth.
  for (std::size_t k = 1; k < 8; ++k)
    EXPECT_NEAR(r.log_z_hat[k], exact_level(ladder.fraction(k)), 1.0) << k;
}

}  // namespace
