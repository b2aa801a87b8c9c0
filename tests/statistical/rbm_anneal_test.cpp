// End-to-end known answers for binary RBMs: forward AIS, RAISE started from
// data (a data row, h ~ p(h | v), 100 Gibbs sweeps at t = 1) and BAR, for the
// full (v, h) path with block Gibbs, the marginal p(v) path with Gibbs and the
// marginal p(h) path with single-site Metropolis, on random RBMs with 12-20
// hidden units and on one trained by CD-1 in this file, against exact log Z
// by enumeration (exact/rbm_enumeration.hpp). The reverse weight formula is
// checked on an RBM small enough to enumerate, against the variant that
// evaluates the weight after the transition instead of before it.
//
// Tolerance: |estimate - exact| <= 5 SE + SE^2 (SE^2: twice the leading-order
// bias of the log of a mean), with SE the estimator's own error, finite and
// below a target fixed in advance. Sandwich: lower <= exact + 5 SE,
// upper >= exact - 5 SE, lower <= upper + 5 SE. z = 5 keeps the false-failure rate below 1e-6 per
// assertion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/rbm_marginal_metropolis.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_paths.hpp"

namespace {

using logz::RbmParameters;

RbmParameters random_rbm(int m, int j, double scale, std::uint64_t seed) {
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  RbmParameters p;
  p.W.resize(m, j);
  p.a.resize(m);
  p.b.resize(j);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < j; ++k) p.W(i, k) = scale * rng.normal();
  for (int i = 0; i < m; ++i) p.a[i] = 0.5 * scale * rng.normal();
  for (int k = 0; k < j; ++k) p.b[k] = 0.5 * scale * rng.normal();
  return p;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Exact samples of v (rows), by the test's own code: h from p(h) = exp(-F(h)) / Z by
// enumerating the hidden layer, then v ~ p(v | h).
Eigen::MatrixXd exact_visible_samples(const RbmParameters& p, int n, std::uint64_t seed) {
  const int m = static_cast<int>(p.W.rows()), j = static_cast<int>(p.W.cols());
  std::vector<double> log_p(std::size_t{1} << j);
  for (std::size_t h = 0; h < log_p.size(); ++h) {
    double s = 0;
    Eigen::VectorXd hv(j);
    for (int k = 0; k < j; ++k) s += p.b[k] * (hv[k] = static_cast<double>((h >> k) & 1));
    const Eigen::VectorXd x = p.a + p.W * hv;
    for (int i = 0; i < m; ++i)
      s += x[i] > 0 ? x[i] + std::log1p(std::exp(-x[i])) : std::log1p(std::exp(x[i]));
    log_p[h] = s;
  }
  const double lz = logz::log_sum_exp(log_p);
  std::vector<double> cdf(log_p.size());
  double c = 0;
  for (std::size_t h = 0; h < log_p.size(); ++h) cdf[h] = c += std::exp(log_p[h] - lz);
  Eigen::MatrixXd data(n, m);
  for (int r = 0; r < n; ++r) {
    logz::RandomStream rng(seed, r, logz::Purpose::test, 1);
    const double u = rng.uniform() * c;
    const auto h = std::min<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin(),
                                         cdf.size() - 1);
    Eigen::VectorXd hv(j);
    for (int k = 0; k < j; ++k) hv[k] = static_cast<double>((h >> k) & 1);
    const Eigen::VectorXd x = p.a + p.W * hv;
    for (int i = 0; i < m; ++i) data(r, i) = rng.uniform() < sigmoid(x[i]) ? 1.0 : 0.0;
  }
  return data;
}

struct Settings {
  std::size_t num_steps, num_paths;
  double se_target;  // every estimator's SE must be below this (nats)
  std::uint64_t seed;
};

template <class Path, class Kernel>
void check(const char* name, const Path& path, const Kernel& kernel, const RbmParameters& p,
           const Eigen::MatrixXd& data, const Settings& s) {
  const auto schedule = logz::linear_schedule(s.num_steps);
  logz::AnnealOptions options;
  options.num_paths = s.num_paths;
  options.seed = s.seed;
  options.threads = 2;
  options.chunk_size = 50;
  const auto forward = logz::anneal_forward(path, kernel, schedule, options);
  auto start = [&](typename Path::Batch& b, const logz::ChunkStreams& streams) {
    logz::rbm_start_from_data(path, b, data, 100, streams.random(0));
  };
  const auto reverse = logz::anneal_reverse(path, kernel, schedule, start, options);
  const double exact = logz::exact::rbm_log_z(p) - path.base_log_z();
  for (const auto& e : {logz::ais(forward.works), logz::raise(reverse.works),
                        logz::bar(forward.works, reverse.works)}) {
    SCOPED_TRACE(e.method);
    std::printf("%-28s %-5s %9.4f +- %.4f (exact %.4f, z %+.2f)\n", name, e.method.c_str(), e.log_z,
                e.std_error, exact, (e.log_z - exact) / e.std_error);
    ASSERT_TRUE(std::isfinite(e.std_error));
    EXPECT_LT(e.std_error, s.se_target);
    EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + e.std_error * e.std_error)
        << "estimate " << e.log_z << " exact " << exact << " SE " << e.std_error;
  }
  const auto lower = logz::lower_bound(forward.works), upper = logz::upper_bound(reverse.works);
  std::printf("%-28s bounds %9.4f <= %.4f <= %.4f\n", name, lower.log_z, exact, upper.log_z);
  EXPECT_LE(lower.log_z, exact + 5 * lower.std_error);
  EXPECT_GE(upper.log_z, exact - 5 * upper.std_error);
  // Near equilibrium the two bounds nearly meet, so they may cross by noise.
  EXPECT_LE(lower.log_z, upper.log_z + 5 * std::hypot(lower.std_error, upper.std_error));
}

TEST(RbmAnnealing, FullPathBlockGibbsRandom20x14) {
  const auto p = random_rbm(20, 14, 0.5, 1);
  const auto data = exact_visible_samples(p, 500, 1);
  const logz::RbmFullPath<double> path(p, logz::uniform_rbm_base(20));
  check("full/gibbs 20x14 uniform", path, logz::RbmGibbs<double>(1), p, data, {300, 400, 0.05, 11});
}

TEST(RbmAnnealing, FullPathBlockGibbsFloatRandom24x20) {
  const auto p = random_rbm(24, 20, 0.4, 2);
  const auto data = exact_visible_samples(p, 500, 2);
  const logz::RbmFullPath<float> path(p, logz::base_rate_rbm_base(data));
  check("full/gibbs float 24x20", path, logz::RbmGibbs<float>(1), p, data, {300, 400, 0.05, 12});
}

TEST(RbmAnnealing, MarginalVisibleGibbsRandom30x16) {
  const auto p = random_rbm(30, 16, 0.5, 3);
  const auto data = exact_visible_samples(p, 500, 3);
  const logz::RbmMarginalVisiblePath<double> path(p, logz::base_rate_rbm_base(data));
  check("marginal_v/gibbs 30x16", path, logz::RbmGibbs<double>(1), p, data, {300, 400, 0.05, 13});
}

TEST(RbmAnnealing, MarginalHiddenMetropolisRandom16x12) {
  const auto p = random_rbm(16, 12, 0.5, 4);
  const auto data = exact_visible_samples(p, 500, 4);
  const logz::RbmMarginalHiddenPath<double> path(p, logz::uniform_rbm_base(16));
  check("marginal_h/metropolis 16x12", path, logz::RbmMarginalMetropolis<double>(12), p, data,
        {300, 400, 0.05, 14});
}

TEST(RbmAnnealing, MarginalHiddenGibbsRandom18x18) {
  const auto p = random_rbm(18, 18, 0.5, 5);
  const auto data = exact_visible_samples(p, 500, 5);
  const logz::RbmMarginalHiddenPath<double> path(p, logz::base_rate_rbm_base(data));
  check("marginal_h/gibbs 18x18", path, logz::RbmGibbs<double>(1), p, data, {300, 400, 0.05, 15});
}

// A trained RBM: CD-1 (plain, in this file) on noisy copies of 4 prototype patterns.
TEST(RbmAnnealing, TrainedByCd1MarginalVisible) {
  const int m = 25, j = 15, n = 400;
  logz::RandomStream rng(7, 0, logz::Purpose::test, 2);
  Eigen::MatrixXd protos(4, m), data(n, m);
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < m; ++i) protos(q, i) = rng.uniform() < 0.5;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < m; ++i)
      data(r, i) = rng.uniform() < 0.15 ? 1 - protos(r % 4, i) : protos(r % 4, i);
  RbmParameters p = random_rbm(m, j, 0.01, 8);
  auto bernoulli = [&](const Eigen::VectorXd& x) {
    Eigen::VectorXd s(x.size());
    for (int i = 0; i < x.size(); ++i) s[i] = rng.uniform() < sigmoid(x[i]);
    return s;
  };
  for (int epoch = 0; epoch < 10; ++epoch)
    for (int r = 0; r < n; ++r) {
      const Eigen::VectorXd v0 = data.row(r).transpose();
      const Eigen::VectorXd ph0 =
          (p.b + p.W.transpose() * v0).unaryExpr([](double x) { return sigmoid(x); });
      const Eigen::VectorXd v1 = bernoulli(p.a + p.W * bernoulli(p.b + p.W.transpose() * v0));
      const Eigen::VectorXd ph1 =
          (p.b + p.W.transpose() * v1).unaryExpr([](double x) { return sigmoid(x); });
      const double lr = 0.02;
      p.W += lr * (v0 * ph0.transpose() - v1 * ph1.transpose());
      p.a += lr * (v0 - v1);
      p.b += lr * (ph0 - ph1);
    }
  std::printf("trained RBM: max |W| %.2f\n", p.W.cwiseAbs().maxCoeff());
  const logz::RbmMarginalVisiblePath<double> path(p, logz::base_rate_rbm_base(data));
  check("marginal_v/gibbs trained 25x15", path, logz::RbmGibbs<double>(1), p, data,
        {1000, 400, 0.1, 16});
}

// The reverse weight: with x_k the state at temperature k (k = K, ..., 1), the
// increment U_{k-1}(x_k) - U_k(x_k) must be taken BEFORE the transition T_{k-1}
// moves x_k to x_{k-1}; then E[exp(-W_r)] = Z_0 / Z_K exactly (each factor
// f_{k-1}(x_k) / f_k(x_k) averages to Z_{k-1} / Z_k over x_k ~ p_k, and T_{k-1}
// keeps p_{k-1}). Evaluating the same ratio after the transition averages
// f_{k-1} / f_k over p_{k-1} instead, which is biased. A tiny RBM, 4 temperatures
// and exact starts make the difference plain.
TEST(RbmAnnealing, ReverseWeightIsTakenBeforeTheTransition) {
  const auto p = random_rbm(6, 5, 0.8, 9);
  const logz::RbmFullPath<double> path(p, logz::uniform_rbm_base(6));
  const logz::RbmGibbs<double> kernel(1);
  const auto schedule = logz::linear_schedule(3);
  const double exact = logz::exact::rbm_log_z(p) - path.base_log_z();
  // Exact joint samples from the oracle's probabilities.
  const auto lp = logz::exact::rbm_joint_log_probabilities(p);
  std::vector<double> cdf(lp.size());
  double c = 0;
  for (std::size_t s = 0; s < lp.size(); ++s) cdf[s] = c += std::exp(lp[s]);
  const std::uint64_t seed = 21;
  auto exact_start = [&](logz::RbmBatch<double>& b, const logz::ChunkStreams& streams) {
    for (std::size_t q = 0; q < streams.range().size(); ++q) {
      logz::RandomStream rng = streams.random(0).stream(q);
      const auto s = std::min<std::size_t>(
          std::lower_bound(cdf.begin(), cdf.end(), rng.uniform() * c) - cdf.begin(),
          cdf.size() - 1);
      for (int i = 0; i < 6; ++i) b.visible_for_update()(i, q) = static_cast<double>((s >> i) & 1);
      for (int k = 0; k < 5; ++k)
        b.hidden_for_update()(k, q) = static_cast<double>((s >> (6 + k)) & 1);
    }
  };
  logz::AnnealOptions o;
  o.num_paths = 20000;
  o.seed = seed;
  o.threads = 2;
  o.chunk_size = 500;
  const auto reverse = logz::anneal_reverse(path, kernel, schedule, exact_start, o);
  const auto right = logz::raise(reverse.works);
  // The same runs with the increment taken after each transition (the test's own loop).
  std::vector<double> wrong_works(o.num_paths, 0.0);
  const auto betas = schedule.fractions();
  const auto reverse_kernel = kernel.reversed();
  for (std::size_t chunk = 0; chunk < o.num_paths / o.chunk_size; ++chunk) {
    const logz::ChunkRange r{chunk, chunk * o.chunk_size, (chunk + 1) * o.chunk_size};
    auto b = path.make_batch(r.size());
    exact_start(b, logz::ChunkStreams(seed, logz::Purpose::reverse_start, r));
    std::vector<double> buf(r.size());
    for (std::size_t k = betas.size() - 1; k >= 1; --k) {
      if (k > 1)
        reverse_kernel.step(path.at(betas[k - 1]), b,
                            logz::BatchRandom{seed, logz::Purpose::reverse_kernel,
                                              static_cast<std::uint32_t>(k - 1), r.begin});
      else
        kernel.step(path.at(betas[0]), b,
                    logz::BatchRandom{seed, logz::Purpose::reverse_kernel, 0, r.begin});
      path.work_increment(betas[k], betas[k - 1], b, buf);
      for (std::size_t q = 0; q < r.size(); ++q) wrong_works[r.begin + q] += buf[q];
    }
  }
  const auto wrong = logz::raise(wrong_works);
  std::printf("RAISE before transition %.4f +- %.4f, after transition %.4f +- %.4f, exact %.4f\n",
              right.log_z, right.std_error, wrong.log_z, wrong.std_error, exact);
  ASSERT_TRUE(std::isfinite(right.std_error));
  EXPECT_LT(right.std_error, 0.02);
  EXPECT_LE(std::abs(right.log_z - exact), 5 * right.std_error + right.std_error * right.std_error);
  EXPECT_GT(std::abs(wrong.log_z - exact), 10 * wrong.std_error);
}

}  // namespace
