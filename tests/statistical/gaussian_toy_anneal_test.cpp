// End-to-end known answers on the Gaussian toy of Habeck (2017), section 4: N(20, 10^2)
// annealed to N(0, 1) (log Z_K / Z_0 = -log 10) with the paper's kernels (tau from 0.9 to
// 0.995, each kernel applied 5 times as in the author's script), K = 1, 10 and 100.
//
// Checked: AIS, RAISE and BAR against -log 10; the simulated works' mean and variance and
// the mean trace energy at every temperature against the exactly propagated process
// (exact/gaussian_toy_marginals.hpp); and the exact sandwich -E[W_f] <= -log 10 <= E[W_r].
//
// Tolerances: |estimate - exact| <= 5 SE + SE^2, SE the estimator's own standard error and
// SE^2 twice the leading-order bias of the log of a mean (var / (2 M mean^2) = SE^2 / 2);
// z = 5 keeps the false-failure rate per assertion below 1e-6. SEs must be finite and below
// targets fixed in the case table (about twice the large-sample SE sqrt(relvar / M) that the
// exact weight variance predicts). Where the oracle says E[exp(-2 W_r)] diverges (RAISE at
// small K: the base is 10 times wider than the target, so reverse paths rarely reach its
// tails), RAISE has no meaningful SE and is biased upward (Jensen); there only that one-sided
// bound is asserted.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/exact/gaussian_toy_marginals.hpp"
#include "logz/kernels/gaussian_autoregressive.hpp"
#include "logz/models/gaussian_toy.hpp"

namespace {

struct Case {
  std::size_t num_steps;  // K
  double beta_min;        // geometric schedule's t_1; 0 for the linear schedule
  std::size_t steps_per_temperature, num_paths;
  double se_target_ais, se_target_raise, se_target_bar;  // nats
};

logz::Schedule schedule_of(const Case& c) {
  return c.beta_min == 0 ? logz::linear_schedule(c.num_steps)
                         : logz::geometric_schedule(c.num_steps, c.beta_min);
}

// z-score of a sample mean against `mean`, with the SE sd / sqrt(n) of a known sd.
double z_of_mean(const std::vector<double>& x, double mean, double sd) {
  double s = 0;
  for (double v : x) s += v;
  const double n = static_cast<double>(x.size());
  return (s / n - mean) / (sd / std::sqrt(n));
}

// z-score of the sample variance against `var`, with the SE sqrt((m4 - s^4) / n) from the
// sample's own fourth central moment (works are far from normal at small K).
double z_of_variance(const std::vector<double>& x, double var) {
  const double n = static_cast<double>(x.size());
  double s = 0;
  for (double v : x) s += v;
  const double m = s / n;
  double m2 = 0, m4 = 0;
  for (double v : x) {
    const double d = (v - m) * (v - m);
    m2 += d;
    m4 += d * d;
  }
  m2 /= n;
  m4 /= n;
  return (m2 * n / (n - 1) - var) / std::sqrt((m4 - m2 * m2) / n);
}

// Var of D(x) = U_K(x) - U_0(x) under N(m, v): 2 a^2 v^2 + D'(m)^2 v, a = (P_K - P_0) / 2
// (the test's own formula, for the SE of the mean trace).
double trace_sd(const logz::exact::GaussianToySpec& s, const logz::exact::NormalMoments& q) {
  const double p0 = 1 / (s.sigma_start * s.sigma_start), p1 = 1 / (s.sigma_end * s.sigma_end);
  const double a = 0.5 * (p1 - p0), g = p1 * (q.mean - s.mu_end) - p0 * (q.mean - s.mu_start);
  return std::sqrt(2 * a * a * q.variance * q.variance + g * g * q.variance);
}

void check_case(const Case& c, std::uint64_t seed) {
  const logz::exact::GaussianToySpec spec{20, 10, 0, 1, 0.9, 0.995, c.steps_per_temperature};
  const logz::GaussianToy model(20, 10, 0, 1, 0.9, 0.995);
  const logz::GaussianAutoregressive kernel(c.steps_per_temperature);
  const auto schedule = schedule_of(c);
  const auto truth = logz::exact::gaussian_toy_marginals(spec, schedule.fractions());
  const double exact = -std::log(10.0);

  logz::AnnealOptions options;
  options.num_paths = c.num_paths;
  options.seed = seed;
  options.threads = 2;
  const auto forward = logz::anneal_forward(model, kernel, schedule, options);
  auto start = [&](logz::GaussianBatch& b, const logz::ChunkStreams& streams) {
    model.sample_target(b, streams.random(0));
  };
  const auto reverse = logz::anneal_reverse(model, kernel, schedule, start, options);
  const double m = static_cast<double>(c.num_paths);
  std::printf(
      "K %zu: exact relvar AIS %.3g (SE ~ %.3f), RAISE %.3g; E[W_f] %.4f sd %.4f, E[W_r] %.4f sd "
      "%.4f\n",
      c.num_steps, truth.forward_work.weight_relative_variance,
      std::sqrt(truth.forward_work.weight_relative_variance / m),
      truth.reverse_work.weight_relative_variance, truth.forward_work.mean,
      std::sqrt(truth.forward_work.variance), truth.reverse_work.mean,
      std::sqrt(truth.reverse_work.variance));

  // The sandwich of Eq. (7), exactly from the propagation.
  EXPECT_LE(truth.lower_bound, exact);
  EXPECT_GE(truth.upper_bound, exact);

  struct Checked {
    logz::Estimate e;
    double se_target;
    bool two_sided;
  };
  const bool raise_finite = std::isfinite(truth.reverse_work.weight_relative_variance);
  for (const auto& [e, se_target, two_sided] :
       {Checked{logz::ais(forward.works), c.se_target_ais, true},
        Checked{logz::raise(reverse.works), c.se_target_raise, raise_finite},
        Checked{logz::bar(forward.works, reverse.works), c.se_target_bar, true}}) {
    SCOPED_TRACE(e.method);
    std::printf("K %zu %-5s %.4f +- %.4f (exact %.4f, z %.2f)%s\n", c.num_steps, e.method.c_str(),
                e.log_z, e.std_error, exact, (e.log_z - exact) / e.std_error,
                two_sided ? "" : " [infinite weight variance: one-sided check]");
    ASSERT_TRUE(std::isfinite(e.log_z));
    if (two_sided) {
      ASSERT_TRUE(std::isfinite(e.std_error));
      EXPECT_LT(e.std_error, se_target);
      EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + e.std_error * e.std_error)
          << "estimate " << e.log_z << " exact " << exact << " SE " << e.std_error;
    } else {
      EXPECT_GE(e.log_z, exact - 5 * e.std_error) << "RAISE is biased upward, never down";
    }
  }

  // Works against the exact propagation: mean (the bounds) and variance.
  const auto lower = logz::lower_bound(forward.works), upper = logz::upper_bound(reverse.works);
  std::printf("K %zu bounds: lower %.4f (exact %.4f), upper %.4f (exact %.4f)\n", c.num_steps,
              lower.log_z, truth.lower_bound, upper.log_z, truth.upper_bound);
  EXPECT_LT(std::abs(z_of_mean(forward.works, truth.forward_work.mean,
                               std::sqrt(truth.forward_work.variance))),
            5.0);
  EXPECT_LT(std::abs(z_of_mean(reverse.works, truth.reverse_work.mean,
                               std::sqrt(truth.reverse_work.variance))),
            5.0);
  EXPECT_LT(std::abs(z_of_variance(forward.works, truth.forward_work.variance)), 5.0);
  EXPECT_LT(std::abs(z_of_variance(reverse.works, truth.reverse_work.variance)), 5.0);

  // Hysteresis traces: mean of U_K - U_0 at every temperature the direction has a state at.
  for (std::size_t k = 0; k < schedule.size(); ++k) {
    if (k + 1 < schedule.size()) {
      const double se = trace_sd(spec, truth.forward[k]) / std::sqrt(m);
      EXPECT_NEAR(forward.mean_energy[k], truth.forward_energy[k], 5 * se) << "forward k " << k;
    }
    if (k > 0) {
      const double se = trace_sd(spec, truth.reverse[k]) / std::sqrt(m);
      EXPECT_NEAR(reverse.mean_energy[k], truth.reverse_energy[k], 5 * se) << "reverse k " << k;
    }
  }
}

// Plain importance sampling from N(20, 100) to N(0, 1): AIS relvar 51.9; RAISE infinite.
TEST(GaussianToyAnnealing, OneStep) { check_case({1, 0.0, 5, 8000, 0.16, 1.0, 0.16}, 401); }

// The paper's Fig. 1 setting: K = 10 on a near constant-KL (geometric) ladder.
TEST(GaussianToyAnnealing, TenSteps) { check_case({10, 3e-3, 5, 8000, 0.09, 1.0, 0.09}, 402); }

// K = 100: RAISE's weights have finite variance (relvar 3.7).
TEST(GaussianToyAnnealing, HundredSteps) {
  check_case({100, 1e-3, 5, 8000, 0.03, 0.05, 0.03}, 403);
}

// One kernel application per temperature on the linear ladder (the defaults of `logz run`).
TEST(GaussianToyAnnealing, HundredLinearStepsOneKernelStep) {
  check_case({100, 0.0, 1, 8000, 0.1, 1.0, 0.1}, 404);
}

}  // namespace
