// The stepping-stone estimator on simulated tempering of a small Ising torus, run by its
// registry entry as a config's methods = ["stepping_stone", ...] runs it: every level of the
// ladder against Kaufman's exact log Z, and agreement with RTS and TI of the same run.
//
// Tolerance, fixed in advance: |estimate - exact| <= 5 SE + |log_mean_bias| + SE^2 per level
// (the log of a mean is biased low by about (1/ESS - 1/n) / 2 a rung; the square a second-order
// allowance, as for RTS). Agreement with another estimator of the same run: within 5 times the
// two error bars combined (as if independent: the same samples make the difference smaller),
// plus TI's own rule bias, which its error bar leaves out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "logz/estimators/rts.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "logz/tempering/initial_iterations.hpp"

namespace {

constexpr int kSteppingStoneSide = 4;
constexpr double kSteppingStoneBeta = 0.8;

double exact_ising_level(double t) {
  return logz::exact::ising_log_z_kaufman(kSteppingStoneSide, kSteppingStoneSide,
                                          t * kSteppingStoneBeta) -
         kSteppingStoneSide * kSteppingStoneSide * std::log(2.0);
}

double named_diagnostic(const logz::Estimate& e, const std::string& name) {
  for (const auto& [n, v] : e.diagnostics.values)
    if (n == name) return v;
  return 0.0;
}

TEST(SteppingStoneIsing, EveryLevelWithinErrorOfKaufmanAndAgreesWithRtsAndTi) {
  const logz::IsingModel model(kSteppingStoneSide, kSteppingStoneSide, 1.0, kSteppingStoneBeta);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 16);
  const logz::TemperingLadder ladder(logz::linear_schedule(11));
  logz::TemperingOptions o;
  o.num_chains = 32;
  o.seed = 2011;
  o.threads = 2;
  o.record_samples =
      logz::find_estimator("stepping_stone").needs_samples;  // as a config's run asks
  logz::SimulatedTempering st(model, kernel, ladder, o);
  const auto init = logz::initial_iterations(st, std::vector<double>(ladder.size(), 0.0), 100, 40,
                                             0.1 / static_cast<double>(ladder.size()));
  ASSERT_TRUE(init.converged);
  const logz::TemperingStats stats = st.run(1500, init.log_z_hat);
  const auto rts = logz::rts_ladder(stats, init.log_z_hat, ladder.log_prior());
  const auto run = [&](const std::string& m) {
    return logz::run_tempered_estimator(m, stats, ladder, init.log_z_hat, rts, 2);
  };
  const auto ss = run("stepping_stone");
  const double bias = std::abs(named_diagnostic(ss.last, "log_mean_bias"));
  EXPECT_TRUE(ss.last.diagnostics.flags.empty());
  for (std::size_t k = 1; k < ladder.size(); ++k) {
    const double exact = exact_ising_level(ladder.fraction(k)), se = ss.std_error[k];
    ASSERT_TRUE(std::isfinite(se) && se > 0) << k;
    EXPECT_LT(se, 0.06) << k;
    EXPECT_LE(std::abs(ss.log_z[k] - exact), 5 * se + bias + se * se)
        << "level " << k << ": " << ss.log_z[k] << " vs exact " << exact << " SE " << se;
  }
  for (const char* other : {"rts", "ti_trapezoid", "ti_rb"}) {
    const auto e = run(other);
    const double combined = std::hypot(ss.last.std_error, e.last.std_error);
    EXPECT_LE(std::abs(ss.last.log_z - e.last.log_z),
              5 * combined + bias + named_diagnostic(e.last, "rule_bias"))
        << other << " " << e.last.log_z << " vs stepping stone " << ss.last.log_z;
    std::printf("%-14s %.4f +- %.4f\n", other, e.last.log_z, e.last.std_error);
  }
  std::printf("stepping_stone %.4f +- %.4f (bias allowance %.2g), exact %.4f\n", ss.last.log_z,
              ss.last.std_error, bias, exact_ising_level(1.0));
}

}  // namespace
