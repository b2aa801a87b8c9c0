// The Gaussian toy of Habeck (2017), section 4: the model-path (interpolation, energies,
// work increments, exact samplers), the autoregressive kernel (exact-start invariance, with
// a broken kernel that the same check rejects), the exact propagated marginals (against
// hand-derived cases, quadrature and simulation) and the `logz run` runner.
//
// Statistical checks use fixed seeds and |z| <= 5 (false-failure rate < 1e-6 per
// assertion); the test's energies and interpolation are written out here again, so that no
// check reuses the code it checks.
#include "logz/models/gaussian_toy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/config/config.hpp"
#include "logz/core/error.hpp"
#include "logz/exact/gaussian_toy_marginals.hpp"
#include "logz/kernels/gaussian_autoregressive.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/services/run.hpp"

namespace {

using logz::BatchRandom;
using logz::GaussianAutoregressive;
using logz::GaussianBatch;
using logz::GaussianTarget;
using logz::GaussianToy;
using logz::Purpose;
using logz::exact::GaussianToySpec;

constexpr double kZ = 5.0;

// The test's own path: 1/s^2 and m/s^2 linear in t (the geometric bridge).
struct Ends {
  double m0 = 20, s0 = 10, m1 = 0, s1 = 1;
  double precision(double t) const { return (1 - t) / (s0 * s0) + t / (s1 * s1); }
  double mean(double t) const {
    return ((1 - t) * m0 / (s0 * s0) + t * m1 / (s1 * s1)) / precision(t);
  }
  double energy(double t, double x) const {
    return 0.5 * precision(t) * (x - mean(t)) * (x - mean(t));
  }
};

// Sample mean and variance, and their z-scores against a normal N(mean, var).
struct MomentZ {
  double mean = 0, var = 0, z_mean = 0, z_var = 0;
};

MomentZ moment_z(const std::vector<double>& x, double mean, double var) {
  const double n = static_cast<double>(x.size());
  double s = 0, ss = 0;
  for (double v : x) s += v;
  const double m = s / n;
  for (double v : x) ss += (v - m) * (v - m);
  const double sv = ss / (n - 1);
  // SE of the sample mean sqrt(var/n); of the sample variance of a normal sqrt(2/(n-1)) var.
  return {m, sv, (m - mean) / std::sqrt(var / n), (sv - var) / (var * std::sqrt(2.0 / (n - 1)))};
}

std::vector<double> positions(const GaussianBatch& b) {
  return {b.positions().begin(), b.positions().end()};
}

// ---------------------------------------------------------------- the model-path

TEST(GaussianToy, InterpolationIsTheGeometricBridge) {
  const GaussianToy model(20, 10, 0, 1, 0.9, 0.995);
  const Ends e;
  EXPECT_EQ(model.mean(0), 20.0);
  EXPECT_EQ(model.std_dev(0), 10.0);
  EXPECT_EQ(model.mean(1), 0.0);
  EXPECT_EQ(model.std_dev(1), 1.0);
  EXPECT_DOUBLE_EQ(model.tau(0), 0.9);
  EXPECT_DOUBLE_EQ(model.tau(1), 0.995);
  for (double t : {0.001, 0.1, 0.5, 0.9}) {
    SCOPED_TRACE(t);
    EXPECT_NEAR(model.mean(t), e.mean(t), 1e-12 * 20);
    EXPECT_NEAR(model.std_dev(t), 1 / std::sqrt(e.precision(t)), 1e-12 * 10);
    EXPECT_NEAR(model.tau(t), 0.9 + t * 0.095, 1e-15);
    const auto target = model.at(t);
    EXPECT_EQ(target.mean, model.mean(t));
    EXPECT_EQ(target.std_dev, model.std_dev(t));
    EXPECT_EQ(target.tau, model.tau(t));
    // Geometric: U_t - (1 - t) U_0 - t U_1 does not depend on x.
    auto gap = [&](double x) {
      return model.energy(t, x) - (1 - t) * model.energy(0, x) - t * model.energy(1, x);
    };
    EXPECT_NEAR(gap(-7.0), gap(3.0), 1e-9);
    EXPECT_NEAR(gap(3.0), gap(31.0), 1e-9);
  }
  EXPECT_NEAR(model.base_log_z(), 0.5 * std::log(2 * std::numbers::pi * 100), 1e-14);
  EXPECT_NEAR(model.target_log_z() - model.base_log_z(), -std::log(10.0), 1e-14);
}

TEST(GaussianToy, WorkIncrementsEqualEnergyDifferences) {
  const GaussianToy model(20, 10, 0, 1, 0.9, 0.995);
  const Ends e;
  GaussianBatch batch(5);
  const std::vector<double> xs = {-3.0, 0.0, 0.5, 20.0, 47.25};
  for (std::size_t p = 0; p < xs.size(); ++p) batch.x(p) = xs[p];
  std::vector<double> out(xs.size());
  for (auto [a, b] : {std::pair{0.0, 0.003}, {0.25, 0.5}, {0.9, 1.0}, {0.0, 1.0}, {1.0, 0.7}}) {
    model.work_increment(a, b, batch, out);
    for (std::size_t p = 0; p < xs.size(); ++p) {
      const double expected = e.energy(b, xs[p]) - e.energy(a, xs[p]);
      EXPECT_NEAR(out[p], expected,
                  1e-12 * (1 + std::abs(e.energy(a, xs[p])) + std::abs(e.energy(b, xs[p]))))
          << "t " << a << " -> " << b << " x " << xs[p];
    }
  }
  // The trace is U_1 - U_0, and the increments along a schedule telescope to it.
  model.trace_energy(batch, out);
  const auto schedule = logz::geometric_schedule(17, 1e-3);
  std::vector<double> inc(xs.size()), total(xs.size(), 0.0);
  for (std::size_t k = 1; k < schedule.size(); ++k) {
    model.work_increment(schedule[k - 1], schedule[k], batch, inc);
    for (std::size_t p = 0; p < xs.size(); ++p) total[p] += inc[p];
  }
  for (std::size_t p = 0; p < xs.size(); ++p) {
    const double d = 0.5 * xs[p] * xs[p] - (xs[p] - 20) * (xs[p] - 20) / 200;
    EXPECT_NEAR(out[p], d, 1e-12 * (1 + std::abs(d)));
    EXPECT_NEAR(total[p], d, 1e-10 * (1 + std::abs(d)));
  }
}

TEST(GaussianToy, ExactSamplersHaveTheEndMoments) {
  const GaussianToy model(20, 10, -1.5, 0.25, 0.9, 0.995);
  GaussianBatch batch(20000);
  model.sample_base(batch, BatchRandom{11, Purpose::base_sample, 0, 0});
  const auto base = moment_z(positions(batch), 20, 100);
  EXPECT_LT(std::abs(base.z_mean), kZ);
  EXPECT_LT(std::abs(base.z_var), kZ);
  model.sample_target(batch, BatchRandom{11, Purpose::reverse_start, 0, 0});
  const auto target = moment_z(positions(batch), -1.5, 0.0625);
  EXPECT_LT(std::abs(target.z_mean), kZ);
  EXPECT_LT(std::abs(target.z_var), kZ);
}

TEST(GaussianToy, RejectsBadParameters) {
  EXPECT_THROW(GaussianToy(20, 0, 0, 1, 0.9, 0.9), logz::InvalidArgument);
  EXPECT_THROW(GaussianToy(20, 10, 0, -1, 0.9, 0.9), logz::InvalidArgument);
  EXPECT_THROW(GaussianToy(NAN, 10, 0, 1, 0.9, 0.9), logz::InvalidArgument);
  EXPECT_THROW(GaussianToy(20, 10, 0, 1, 1.5, 0.9), logz::InvalidArgument);
  EXPECT_THROW(GaussianToy(20, 10, 0, 1, 0.9, -0.1), logz::InvalidArgument);
  EXPECT_THROW(GaussianToy(20, 1e-200, 0, 1, 0.9, 0.9), logz::InvalidArgument);  // 1/sigma^2 = inf
  EXPECT_THROW(GaussianAutoregressive(0), logz::InvalidArgument);
  try {
    GaussianToy(20, 10, 0, 1, 0.9, 2.0);
    FAIL() << "no throw";
  } catch (const logz::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("tau_end"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- the kernel

// The paper's kernel with one of two plausible bugs: noise variance (1 - tau) sigma^2
// instead of (1 - tau^2) sigma^2, or the weights of mu and x' swapped.
struct BrokenAutoregressive {
  enum Bug { noise_variance, swapped_weights } bug;
  std::size_t steps;
  logz::KernelInfo step(const GaussianTarget& t, GaussianBatch& b, const BatchRandom& r) const {
    const double w = bug == swapped_weights ? 1 - t.tau : t.tau;
    const double noise =
        bug == noise_variance ? std::sqrt(1 - t.tau) : std::sqrt(1 - t.tau * t.tau);
    for (std::size_t p = 0; p < b.num_particles(); ++p) {
      auto rng = r.stream(p);
      for (std::size_t s = 0; s < steps; ++s)
        b.x(p) = (1 - w) * t.mean + w * b.x(p) + noise * t.std_dev * rng.normal();
    }
    return {};
  }
};

struct InvarianceZ {
  double z_mean, z_var, z_step_mean, z_step_var;
  double max_abs() const {
    return std::max(
        {std::abs(z_mean), std::abs(z_var), std::abs(z_step_mean), std::abs(z_step_var)});
  }
};

// Exact draws from N(mu, sigma^2) (the test's own transform), one kernel call, then the
// z-scores of the marginal mean and variance (which must stay those of the target) and of
// the transition itself: x' - mu - rho (x - mu) must be N(0, (1 - rho^2) sigma^2) with
// rho = tau^steps (the paper's kernel applied `steps` times).
template <class Kernel>
InvarianceZ invariance_z(const Kernel& kernel, const GaussianTarget& target, std::size_t steps,
                         std::size_t n, std::uint64_t seed) {
  GaussianBatch batch(n);
  for (std::size_t p = 0; p < n; ++p) {
    logz::RandomStream rng(seed, p, Purpose::test, 0);
    batch.x(p) = target.mean + target.std_dev * rng.normal();
  }
  const auto before = positions(batch);
  kernel.step(target, batch, BatchRandom{seed, Purpose::forward_kernel, 1, 0});
  const auto after = positions(batch);
  const double var = target.std_dev * target.std_dev;
  const double rho = std::pow(target.tau, static_cast<double>(steps));
  const auto m = moment_z(after, target.mean, var);
  std::vector<double> innovation(n);
  for (std::size_t p = 0; p < n; ++p)
    innovation[p] = after[p] - target.mean - rho * (before[p] - target.mean);
  const auto i = moment_z(innovation, 0.0, (1 - rho * rho) * var);
  return {m.z_mean, m.z_var, i.z_mean, i.z_var};
}

TEST(GaussianAutoregressive, KeepsTheTargetFromAnExactStart) {
  const GaussianTarget target{3.0, 2.0, 0.6};
  for (std::size_t steps : {1, 3}) {
    const auto z = invariance_z(GaussianAutoregressive(steps), target, steps, 40000, 21 + steps);
    EXPECT_LT(z.max_abs(), kZ) << "steps " << steps << ": z mean " << z.z_mean << " var " << z.z_var
                               << " step mean " << z.z_step_mean << " step var " << z.z_step_var;
  }
  // tau = 0 is an exact draw (no memory); tau near 1 barely moves.
  const auto fresh =
      invariance_z(GaussianAutoregressive(1), GaussianTarget{-4, 0.5, 0.0}, 1, 40000, 5);
  EXPECT_LT(fresh.max_abs(), kZ);
  const auto slow =
      invariance_z(GaussianAutoregressive(2), GaussianTarget{-4, 0.5, 0.995}, 2, 40000, 6);
  EXPECT_LT(slow.max_abs(), kZ);
}

TEST(GaussianAutoregressive, InvarianceCheckRejectsBrokenKernels) {
  const GaussianTarget target{3.0, 2.0, 0.6};
  for (auto bug : {BrokenAutoregressive::noise_variance, BrokenAutoregressive::swapped_weights}) {
    const auto z = invariance_z(BrokenAutoregressive{bug, 3}, target, 3, 40000, 24);
    EXPECT_GT(z.max_abs(), kZ) << "bug " << bug << " passes: z mean " << z.z_mean << " var "
                               << z.z_var << " step mean " << z.z_step_mean << " step var "
                               << z.z_step_var;
    std::printf("broken kernel %d: z mean %.1f var %.1f step mean %.1f step var %.1f\n", bug,
                z.z_mean, z.z_var, z.z_step_mean, z.z_step_var);
  }
}

TEST(GaussianAutoregressive, TauOneNeverMovesAndCountsDraws) {
  GaussianBatch batch(3);
  batch.x(0) = 1.25;
  batch.x(1) = -7;
  batch.x(2) = 1e6;
  const auto info = GaussianAutoregressive(4).step(GaussianTarget{0, 1, 1.0}, batch,
                                                   BatchRandom{1, Purpose::test, 0, 0});
  EXPECT_EQ(batch.x(0), 1.25);
  EXPECT_EQ(batch.x(1), -7.0);
  EXPECT_EQ(batch.x(2), 1e6);
  EXPECT_EQ(info.attempted, 12u);
  EXPECT_EQ(info.accepted, 12u);
}

// ---------------------------------------------------------------- the exact marginals

GaussianToySpec paper_spec(std::size_t steps) {
  GaussianToySpec s;
  s.steps_per_temperature = steps;
  return s;
}

TEST(GaussianToyMarginals, JarzynskiHoldsExactlyInBothDirections) {
  std::vector<std::pair<GaussianToySpec, logz::Schedule>> cases;
  cases.emplace_back(paper_spec(1), logz::linear_schedule(1));
  cases.emplace_back(paper_spec(5), logz::linear_schedule(10));
  cases.emplace_back(paper_spec(5), logz::geometric_schedule(100, 1e-3));
  cases.emplace_back(GaussianToySpec{-3, 0.5, 4, 2.5, 0.0, 0.7, 3}, logz::sigmoid_schedule(30));
  cases.emplace_back(GaussianToySpec{1, 1, 1, 1, 0.5, 0.5, 1}, logz::linear_schedule(3));
  for (const auto& [spec, schedule] : cases) {
    const auto r = logz::exact::gaussian_toy_marginals(spec, schedule.fractions());
    const double log_z = std::log(spec.sigma_end / spec.sigma_start);
    EXPECT_NEAR(r.log_z, log_z, 1e-14);
    EXPECT_NEAR(r.forward_work.log_mean_exp, log_z, 1e-10);
    EXPECT_NEAR(r.reverse_work.log_mean_exp, -log_z, 1e-10);
    // The sandwich of Eq. (7), exactly.
    EXPECT_LE(r.lower_bound, log_z + 1e-12);
    EXPECT_GE(r.upper_bound, log_z - 1e-12);
  }
}

TEST(GaussianToyMarginals, OneStepMatchesHandDerivedMoments) {
  // K = 1: W_f = x^2/2 - (x - 20)^2/200, x ~ N(20, 100): a = 0.495, b = 0.2, c = -2, so
  // E = a (100 + 400) + 20 b + c = 249.5, Var = 2 a^2 100^2 + (2 a 20 + b)^2 100 = 44900.5.
  // W_r = (y - 20)^2/200 - y^2/2, y ~ N(0, 1): E = -0.495 + 2, Var = 2 (0.495)^2 + 0.2^2.
  const auto schedule = logz::linear_schedule(1);
  const auto r = logz::exact::gaussian_toy_marginals(paper_spec(1), schedule.fractions());
  EXPECT_NEAR(r.forward_work.mean, 249.5, 1e-10);
  EXPECT_NEAR(r.forward_work.variance, 44900.5, 1e-8);
  EXPECT_NEAR(r.reverse_work.mean, 1.505, 1e-12);
  EXPECT_NEAR(r.reverse_work.variance, 2 * 0.495 * 0.495 + 0.04, 1e-12);
  // Relative weight variance of plain importance sampling N(20, 100) -> N(0, 1):
  // int p1^2 / p0 dx - 1 by the trapezoid rule; RAISE's int p0^2 / p1 diverges.
  auto normal = [](double x, double m, double s) {
    return std::exp(-0.5 * (x - m) * (x - m) / (s * s)) / (s * std::sqrt(2 * std::numbers::pi));
  };
  double integral = 0;
  const double h = 1e-3;
  for (double x = -15; x <= 15; x += h)
    integral += h * normal(x, 0, 1) * normal(x, 0, 1) / normal(x, 20, 10);
  EXPECT_NEAR(r.forward_work.weight_relative_variance, integral - 1, 1e-6 * integral);
  EXPECT_TRUE(std::isinf(r.reverse_work.weight_relative_variance));
  // Base and target traces: E[U_1 - U_0] under p_0 and p_1.
  EXPECT_NEAR(r.equilibrium_energy[0], 249.5, 1e-10);
  EXPECT_NEAR(r.equilibrium_energy[1], -1.505, 1e-12);
  EXPECT_NEAR(r.forward_energy[0], 249.5, 1e-10);
  EXPECT_TRUE(std::isnan(r.forward_energy[1]));
  EXPECT_TRUE(std::isnan(r.reverse_energy[0]));
}

TEST(GaussianToyMarginals, LimitsOfTau) {
  const auto schedule = logz::geometric_schedule(12, 1e-2);
  // tau = 0: every kernel draws exactly, q_k = p_k, and the forward work is a sum of
  // independent terms with E[W_f] = sum_k KL(p_{k-1} || p_k) - log(Z_K / Z_0).
  const GaussianToySpec fresh{20, 10, 0, 1, 0.0, 0.0, 1};
  const auto r = logz::exact::gaussian_toy_marginals(fresh, schedule.fractions());
  const Ends e;
  double kl_sum = 0;
  for (std::size_t k = 1; k < schedule.size(); ++k) {
    const double s1 = 1 / e.precision(schedule[k - 1]), s2 = 1 / e.precision(schedule[k]);
    const double dm = e.mean(schedule[k - 1]) - e.mean(schedule[k]);
    kl_sum += 0.5 * ((s1 + dm * dm) / s2 - 1 + std::log(s2 / s1));
    if (k < schedule.size() - 1) {
      EXPECT_NEAR(r.forward[k].mean, e.mean(schedule[k]), 1e-10);
      EXPECT_NEAR(r.forward[k].variance, 1 / e.precision(schedule[k]), 1e-10);
    }
    EXPECT_NEAR(r.reverse[k].mean, e.mean(schedule[k]), 1e-10);
  }
  EXPECT_NEAR(r.forward_work.mean, kl_sum + std::log(10.0), 1e-9);
  // tau = 1: nothing moves, so the works telescope to the one-step works.
  const GaussianToySpec frozen{20, 10, 0, 1, 1.0, 1.0, 3};
  const auto f = logz::exact::gaussian_toy_marginals(frozen, schedule.fractions());
  const auto one =
      logz::exact::gaussian_toy_marginals(frozen, logz::linear_schedule(1).fractions());
  EXPECT_NEAR(f.forward_work.mean, one.forward_work.mean, 1e-9);
  EXPECT_NEAR(f.forward_work.variance, one.forward_work.variance, 1e-6);
  EXPECT_NEAR(f.reverse_work.mean, one.reverse_work.mean, 1e-12);
  EXPECT_NEAR(f.reverse_work.variance, one.reverse_work.variance, 1e-12);
}

TEST(GaussianToyMarginals, WorkVarianceMatchesTheFullCovariance) {
  // Var W_f from the explicit joint covariance of x_0..x_{K-1} (a double sum, the test's own
  // AR recursion), against the O(K) recursion of the oracle.
  const GaussianToySpec spec{5, 3, -2, 0.5, 0.4, 0.8, 2};
  const auto schedule = logz::sigmoid_schedule(6);
  const auto r = logz::exact::gaussian_toy_marginals(spec, schedule.fractions());
  const Ends e{5, 3, -2, 0.5};
  const std::size_t K = schedule.num_steps();
  std::vector<double> m(K), v(K), rho(K + 1, 1.0);
  m[0] = 5;
  v[0] = 9;
  for (std::size_t k = 1; k < K; ++k) {
    const double t = schedule[k], tau = 0.4 + 0.4 * t;
    rho[k] = tau * tau;
    m[k] = e.mean(t) + rho[k] * (m[k - 1] - e.mean(t));
    v[k] = rho[k] * rho[k] * v[k - 1] + (1 - rho[k] * rho[k]) / e.precision(t);
  }
  // Increment k at x_{k-1}: a x^2 + b x + const.
  std::vector<double> a(K), b(K);
  double mean = 0;
  for (std::size_t i = 0; i < K; ++i) {
    const double t0 = schedule[i], t1 = schedule[i + 1];
    a[i] = 0.5 * (e.precision(t1) - e.precision(t0));
    b[i] = -e.precision(t1) * e.mean(t1) + e.precision(t0) * e.mean(t0);
    mean += e.energy(t1, m[i]) - e.energy(t0, m[i]) + a[i] * v[i];
  }
  double var = 0;
  for (std::size_t i = 0; i < K; ++i)
    for (std::size_t j = 0; j < K; ++j) {
      const std::size_t lo = std::min(i, j), hi = std::max(i, j);
      double c = v[lo];
      for (std::size_t l = lo + 1; l <= hi; ++l) c *= rho[l];
      const double gi = 2 * a[i] * m[i] + b[i], gj = 2 * a[j] * m[j] + b[j];
      var += 2 * a[i] * a[j] * c * c + gi * gj * c;
    }
  EXPECT_NEAR(r.forward_work.mean, mean, 1e-10 * (1 + std::abs(mean)));
  EXPECT_NEAR(r.forward_work.variance, var, 1e-10 * var);
  for (std::size_t k = 0; k < K; ++k) {
    EXPECT_NEAR(r.forward[k].mean, m[k], 1e-12 * (1 + std::abs(m[k])));
    EXPECT_NEAR(r.forward[k].variance, v[k], 1e-12 * v[k]);
  }
}

TEST(GaussianToyMarginals, SimulatedMarginalsMatchThePropagation) {
  // The model and kernel moved by hand, step by step, against the propagated q_k and the
  // reverse marginals (5 SE on mean and variance at every k).
  const std::size_t steps = 5, n = 20000;
  const auto spec = paper_spec(steps);
  const GaussianToy model(spec.mu_start, spec.sigma_start, spec.mu_end, spec.sigma_end,
                          spec.tau_start, spec.tau_end);
  const GaussianAutoregressive kernel(steps);
  const auto schedule = logz::geometric_schedule(10, 3e-3);
  const auto r = logz::exact::gaussian_toy_marginals(spec, schedule.fractions());
  const std::size_t K = schedule.num_steps();

  GaussianBatch batch(n);
  model.sample_base(batch, BatchRandom{31, Purpose::base_sample, 0, 0});
  for (std::size_t k = 0; k < K; ++k) {
    if (k > 0)
      kernel.step(model.at(schedule[k]), batch,
                  BatchRandom{31, Purpose::forward_kernel, static_cast<std::uint32_t>(k), 0});
    const auto z = moment_z(positions(batch), r.forward[k].mean, r.forward[k].variance);
    EXPECT_LT(std::abs(z.z_mean), kZ)
        << "forward k " << k << " mean " << z.mean << " exact " << r.forward[k].mean;
    EXPECT_LT(std::abs(z.z_var), kZ)
        << "forward k " << k << " var " << z.var << " exact " << r.forward[k].variance;
  }
  model.sample_target(batch, BatchRandom{31, Purpose::reverse_start, 0, 0});
  for (std::size_t k = K; k >= 1; --k) {
    if (k < K)
      kernel.step(model.at(schedule[k]), batch,
                  BatchRandom{31, Purpose::reverse_kernel, static_cast<std::uint32_t>(k), 0});
    const auto z = moment_z(positions(batch), r.reverse[k].mean, r.reverse[k].variance);
    EXPECT_LT(std::abs(z.z_mean), kZ)
        << "reverse k " << k << " mean " << z.mean << " exact " << r.reverse[k].mean;
    EXPECT_LT(std::abs(z.z_var), kZ)
        << "reverse k " << k << " var " << z.var << " exact " << r.reverse[k].variance;
  }
  // The marginals lag behind p_k (hysteresis, Fig. 1B): q_k is far from p_k mid-way.
  EXPECT_GT(std::abs(r.forward[5].mean - r.stationary[5].mean), 1.0);
}

TEST(GaussianToyMarginals, RejectsBadInput) {
  const auto spec = paper_spec(1);
  const std::vector<double> not_from_zero = {0.1, 1.0}, not_rising = {0.0, 0.5, 0.5, 1.0};
  EXPECT_THROW(logz::exact::gaussian_toy_marginals(spec, not_from_zero), logz::InvalidArgument);
  EXPECT_THROW(logz::exact::gaussian_toy_marginals(spec, not_rising), logz::InvalidArgument);
  GaussianToySpec bad = spec;
  bad.sigma_end = 0;
  EXPECT_THROW(logz::exact::gaussian_toy_marginals(bad, logz::linear_schedule(2).fractions()),
               logz::InvalidArgument);
  bad = spec;
  bad.steps_per_temperature = 0;
  EXPECT_THROW(logz::exact::gaussian_toy_marginals(bad, logz::linear_schedule(2).fractions()),
               logz::InvalidArgument);
  EXPECT_THROW(logz::exact::gaussian_toy_log_work_moment(spec, logz::linear_schedule(2).fractions(),
                                                         logz::Direction::forward, 0.0),
               logz::InvalidArgument);
}

// ---------------------------------------------------------------- the driver and the runner

TEST(GaussianToy, AnnealingIsTheSameForAnyThreadCount) {
  const GaussianToy model(20, 10, 0, 1, 0.9, 0.995);
  const GaussianAutoregressive kernel(2);
  const auto schedule = logz::linear_schedule(20);
  logz::AnnealOptions o;
  o.num_paths = 203;
  o.seed = 9;
  o.threads = 1;
  const auto one = logz::anneal_forward(model, kernel, schedule, o);
  o.threads = 3;
  const auto three = logz::anneal_forward(model, kernel, schedule, o);
  EXPECT_EQ(one.works, three.works);
  for (std::size_t k = 0; k + 1 < schedule.size(); ++k)
    EXPECT_EQ(one.mean_energy[k], three.mean_energy[k]);
  EXPECT_DOUBLE_EQ(one.acceptance[1], 1.0);
}

TEST(GaussianToyRunner, RunsThePaperSetupWithExactReferences) {
  auto config = logz::Config::from_toml(R"(
[model]
type = "gaussian_toy"
[schedule]
num_steps = 10
[kernel]
steps_per_temperature = 5
[run]
num_paths = 64
threads = 1
)",
                                        "toy.toml");
  const auto r = logz::run_experiment(config);
  ASSERT_TRUE(r.reference.has_value());
  EXPECT_NEAR(r.reference->log_z, 0.5 * std::log(2 * std::numbers::pi), 1e-14);
  EXPECT_NEAR(r.reference->log_z - r.base_log_z, -std::log(10.0), 1e-14);
  EXPECT_LE(r.model["exact_lower_bound"].as_double(), -std::log(10.0));
  EXPECT_GE(r.model["exact_upper_bound"].as_double(), -std::log(10.0));
  EXPECT_DOUBLE_EQ(r.model["tau_start"].as_double(), 0.9);
  EXPECT_DOUBLE_EQ(r.model["tau_end"].as_double(), 0.995);
  EXPECT_EQ(r.equilibrium_energy.size(), 11u);
  ASSERT_TRUE(r.forward && r.reverse);
  EXPECT_EQ(r.forward->works.size(), 64u);
  EXPECT_FALSE(r.estimates.empty());
  EXPECT_EQ(config.resolved()["run"]["reverse_start"], "exact");
  EXPECT_EQ(config.resolved()["kernel"]["type"], "autoregressive");
}

std::string run_error(const std::string& toml) {
  try {
    auto config = logz::Config::from_toml(toml, "bad.toml");
    logz::run_experiment(config);
  } catch (const logz::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GaussianToyRunner, BadInputNamesFileKeyAndExpectation) {
  const std::string head = "[model]\ntype = \"gaussian_toy\"\n";
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos;
  };
  std::string e = run_error(head + "sigma_start = 0\n");
  EXPECT_TRUE(has(e, "bad.toml") && has(e, "[model] sigma_start") && has(e, "> 0")) << e;
  e = run_error(head + "tau = 0.5\ntau_end = 0.9\n");
  EXPECT_TRUE(has(e, "[model] tau") && has(e, "not both")) << e;
  e = run_error(head + "tau = 1.5\n");
  EXPECT_TRUE(has(e, "[model] tau") && has(e, "[0, 1]")) << e;
  e = run_error(head + "sigma = 2\n");
  EXPECT_TRUE(has(e, "sigma")) << e;
  e = run_error(head + "[kernel]\ntype = \"metropolis\"\n");
  EXPECT_TRUE(has(e, "[kernel] type")) << e;
  e = run_error(head + "[run]\nreverse_start = \"ground_state\"\n");
  EXPECT_TRUE(has(e, "[run] reverse_start")) << e;
}

}  // namespace
