// Binary RBMs: free energies and path energies against the test's own brute-force
// sums, softplus and free energies at activations of +-1e4 (float and double),
// exact log Z by enumeration against brute force, base-rate bases, bad weight
// files, the test log-likelihood, and exact-start invariance of the kernels
// (chi-square over all states of a tiny RBM at a false-failure rate of 1e-6)
// with deliberately broken kernels as controls.
#include "logz/models/rbm.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/core/error.hpp"
#include "logz/estimators/test_log_likelihood.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/io/npz.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/rbm_marginal_metropolis.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/models/rbm_paths.hpp"
#include "support/chi_square.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::ChiSquare;

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

Eigen::VectorXd bits(std::uint64_t state, int n, int offset = 0) {
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<double>((state >> (offset + i)) & 1u);
  return x;
}

// The test's own -E(v, h), written out unit by unit.
double minus_energy(const RbmParameters& p, const Eigen::VectorXd& v, const Eigen::VectorXd& h) {
  double s = 0;
  for (int i = 0; i < v.size(); ++i) s += p.a[i] * v[i];
  for (int k = 0; k < h.size(); ++k) s += p.b[k] * h[k];
  for (int i = 0; i < v.size(); ++i)
    for (int k = 0; k < h.size(); ++k) s += v[i] * p.W(i, k) * h[k];
  return s;
}

double log_sum(const std::vector<double>& x) {
  double m = -std::numeric_limits<double>::infinity(), s = 0;
  for (double v : x) m = std::max(m, v);
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

// ---------------------------------------------------------------- free energies

TEST(Rbm, FreeEnergiesMatchBruteForce) {
  const int m = 5, j = 4;
  const auto p = random_rbm(m, j, 1.0, 1);
  const logz::Rbm<double> rbm(p);
  const logz::Rbm<float> rbm_f(p);
  logz::RbmMatrix<double> V(m, 1 << m), H(j, 1 << j);
  for (int s = 0; s < (1 << m); ++s) V.col(s) = bits(s, m);
  for (int s = 0; s < (1 << j); ++s) H.col(s) = bits(s, j);
  std::vector<double> fv(1 << m), fh(1 << j), fv_f(1 << m);
  rbm.free_energy_visible(V, fv);
  rbm.free_energy_hidden(H, fh);
  rbm_f.free_energy_visible(V.cast<float>(), fv_f);
  for (int s = 0; s < (1 << m); ++s) {
    std::vector<double> terms;
    for (int t = 0; t < (1 << j); ++t) terms.push_back(minus_energy(p, bits(s, m), bits(t, j)));
    EXPECT_NEAR(fv[s], -log_sum(terms), 1e-12);
    EXPECT_NEAR(fv_f[s], -log_sum(terms), 1e-4);
    EXPECT_NEAR(logz::rbm_free_energy_visible(p, bits(s, m)), -log_sum(terms), 1e-12);
  }
  for (int t = 0; t < (1 << j); ++t) {
    std::vector<double> terms;
    for (int s = 0; s < (1 << m); ++s) terms.push_back(minus_energy(p, bits(s, m), bits(t, j)));
    EXPECT_NEAR(fh[t], -log_sum(terms), 1e-12);
    EXPECT_NEAR(logz::rbm_free_energy_hidden(p, bits(t, j)), -log_sum(terms), 1e-12);
  }
  std::vector<double> e(1);
  rbm.energy(V.col(13), H.col(6), e);
  EXPECT_NEAR(e[0], -minus_energy(p, bits(13, m), bits(6, j)), 1e-12);
  EXPECT_NEAR(logz::rbm_energy(p, bits(13, m), bits(6, j)), e[0], 1e-12);
}

TEST(Rbm, SoftplusIsFiniteAtHugeActivations) {
  EXPECT_EQ(logz::softplus(1e4), 1e4);
  EXPECT_EQ(logz::softplus(-1e4), 0.0);
  EXPECT_EQ(logz::softplus(1e4f), 1e4f);
  EXPECT_EQ(logz::softplus(-1e4f), 0.0f);
  EXPECT_NEAR(logz::softplus(0.0), std::log(2.0), 1e-15);
  EXPECT_NEAR(logz::softplus(-30.0), std::exp(-30.0), 1e-25);
  EXPECT_TRUE(std::isnan(logz::softplus(std::nan(""))));
  const double xd[] = {1e4, -1e4, 0.0, 1e5, -1e5};
  const float xf[] = {1e4f, -1e4f, 0.0f, 1e5f, -1e5f};
  EXPECT_NEAR(logz::softplus_sum(xd, 5), 1.1e5 + std::log(2.0), 1e-9);
  EXPECT_NEAR(logz::softplus_sum(xf, 5), 1.1e5 + std::log(2.0), 1e-2);
  // Free energies of an RBM whose units see inputs of +-1e4.
  RbmParameters p;
  p.W = Eigen::MatrixXd::Constant(3, 2, 5e3);
  p.W(1, 1) = -1e4;
  p.a = Eigen::VectorXd::Constant(3, -1e4);
  p.b = Eigen::VectorXd::Constant(2, 1e4);
  const Eigen::MatrixXd V = Eigen::MatrixXd::Ones(3, 1), H = Eigen::MatrixXd::Ones(2, 1);
  std::vector<double> f(1);
  logz::Rbm<float>(p).free_energy_visible(V.cast<float>(), f);
  EXPECT_TRUE(std::isfinite(f[0]));
  EXPECT_NEAR(f[0], 3e4 - (1e4 + 1.5e4) - 1e4, 1.0);  // -a.v - sum softplus(b + W^T v)
  logz::Rbm<double>(p).free_energy_hidden(H, f);
  EXPECT_TRUE(std::isfinite(f[0]));
  logz::Rbm<float>(p).free_energy_hidden(H.cast<float>(), f);
  EXPECT_TRUE(std::isfinite(f[0]));
  logz::Rbm<double>(p).free_energy_visible(V, f);
  EXPECT_NEAR(f[0], -(-3e4) - (1e4 + 1.5e4) - (1e4 + 5e3 - 1e4 + 5e3), 1e-9);
}

// The fused half-sweep draws what sample_bernoulli_logits draws from the logits formed
// first (values chosen so that every product is exact), per-column or shared beta.
template <class Scalar>
void check_tempered_draws() {
  using Matrix = logz::RbmMatrix<Scalar>;
  const int rows = 37, cols = 4;
  Matrix X(rows, cols);
  logz::RbmVector<Scalar> offset(rows);
  for (int i = 0; i < rows; ++i) {
    offset[i] = static_cast<Scalar>(0.5 * (i % 7) - 1.5);
    for (int p = 0; p < cols; ++p)
      X(i, p) = static_cast<Scalar>(0.25 * ((i * 5 + p * 3) % 17) - 2.0);
  }
  const std::vector<double> betas = {1.0, 0.5, 0.25, 0.0};
  Matrix logits(rows, cols);
  for (int p = 0; p < cols; ++p)
    logits.col(p) =
        static_cast<Scalar>(betas[p]) * X.col(p) + static_cast<Scalar>(1.0 - betas[p]) * offset;
  const auto streams = [&] {
    std::vector<logz::RandomStream> s;
    for (int p = 0; p < cols; ++p) s.emplace_back(5, p, logz::Purpose::test, 2);
    return s;
  };
  Matrix expected, fused;
  auto s1 = streams(), s2 = streams();
  logz::sample_bernoulli_logits<Scalar>(logits, expected, s1);
  logz::sample_bernoulli_tempered<Scalar>(X, betas, &offset, fused, s2);
  EXPECT_EQ(fused, expected);
  EXPECT_GT(fused.sum(), 0);
  EXPECT_LT(fused.sum(), rows * cols);
  // One beta for all columns is the same as that beta given per column.
  const std::vector<double> half(cols, 0.5), one_half = {0.5};
  Matrix a, b;
  auto s3 = streams(), s4 = streams();
  logz::sample_bernoulli_tempered<Scalar>(X, half, &offset, a, s3);
  logz::sample_bernoulli_tempered<Scalar>(X, one_half, &offset, b, s4);
  EXPECT_EQ(a, b);
  // Logits of +-1e4 give certain draws; a wrong number of betas is refused.
  Matrix huge = Matrix::Constant(rows, cols, Scalar(1e4));
  huge.col(1).setConstant(Scalar(-1e4));
  auto s5 = streams();
  logz::sample_bernoulli_tempered<Scalar>(huge, one_half, nullptr, a, s5);
  EXPECT_EQ(a.col(0).sum(), rows);
  EXPECT_EQ(a.col(1).sum(), 0);
  const std::vector<double> two = {0.5, 0.5};
  EXPECT_THROW(logz::sample_bernoulli_tempered<Scalar>(X, two, &offset, a, s5), logz::Error);
}

TEST(Rbm, FusedTemperedDrawsEqualDrawsFromFormedLogits) {
  check_tempered_draws<float>();
  check_tempered_draws<double>();
}

TEST(Rbm, BernoulliDrawsHaveTheSigmoidFrequency) {
  // 20000 columns of 3 rows at logits -2, 0.3, 4: each row's frequency of ones within
  // 5 binomial standard errors of sigmoid(logit).
  const int cols = 20000;
  logz::RbmMatrix<float> X(3, cols);
  X.row(0).setConstant(-2.0f);
  X.row(1).setConstant(0.3f);
  X.row(2).setConstant(4.0f);
  std::vector<logz::RandomStream> streams;
  for (int p = 0; p < cols; ++p) streams.emplace_back(9, p, logz::Purpose::test, 0);
  logz::RbmMatrix<float> S;
  logz::sample_bernoulli_logits<float>(X, S, streams);
  for (int i = 0; i < 3; ++i) {
    const double q = 1.0 / (1.0 + std::exp(-static_cast<double>(X(i, 0))));
    const double se = std::sqrt(q * (1 - q) / cols);
    EXPECT_NEAR(S.row(i).cast<double>().mean(), q, 5 * se) << "row " << i;
  }
}

// ---------------------------------------------------------------- exact log Z

TEST(RbmExact, EnumerationMatchesBruteForce) {
  for (auto [m, j] : {std::pair{6, 4}, {3, 8}, {5, 5}, {1, 1}}) {
    const auto p = random_rbm(m, j, 1.5, 10 + m * j);
    std::vector<double> terms;
    for (int s = 0; s < (1 << m); ++s)
      for (int t = 0; t < (1 << j); ++t) terms.push_back(minus_energy(p, bits(s, m), bits(t, j)));
    EXPECT_NEAR(logz::exact::rbm_log_z_brute_force(p), log_sum(terms), 1e-10);
    EXPECT_NEAR(logz::exact::rbm_log_z(p), log_sum(terms), 1e-10) << m << " x " << j;
  }
  // Layers swapped: the same Z.
  const auto p = random_rbm(7, 3, 1.0, 3);
  RbmParameters q{p.W.transpose(), p.b, p.a};
  EXPECT_NEAR(logz::exact::rbm_log_z(p), logz::exact::rbm_log_z(q), 1e-10);
  // An RBM without couplings: Z = prod (1 + e^a) prod (1 + e^b).
  RbmParameters z{Eigen::MatrixXd::Zero(4, 3), Eigen::VectorXd::LinSpaced(4, -2, 2),
                  Eigen::VectorXd::Constant(3, 0.3)};
  double expected = 0;
  for (int i = 0; i < 4; ++i) expected += std::log1p(std::exp(z.a[i]));
  expected += 3 * std::log1p(std::exp(0.3));
  EXPECT_NEAR(logz::exact::rbm_log_z(z), expected, 1e-12);
  EXPECT_THROW(logz::exact::rbm_log_z(random_rbm(40, 31, 1.0, 1)), logz::InvalidArgument);
}

// U_t of every path against the test's own sums, and sum_x exp(-U_t(x)) = Z_t of the
// tempered RBM (exact::rbm_tempered) for all three paths.
TEST(RbmPaths, EnergiesAndPartitionFunctionsAlongThePath) {
  const int m = 4, j = 3;
  const auto p = random_rbm(m, j, 1.2, 21);
  Eigen::VectorXd a0(m);
  a0 << -1.0, 0.5, 0.0, 2.0;
  const logz::RbmBase base{"test", a0};
  const logz::RbmFullPath<double> full(p, base);
  const logz::RbmMarginalVisiblePath<double> mv(p, base);
  const logz::RbmMarginalHiddenPath<double> mh(p, base);
  double log_z0 = j * std::log(2.0);
  for (int i = 0; i < m; ++i) log_z0 += std::log1p(std::exp(a0[i]));
  EXPECT_NEAR(full.base_log_z(), log_z0, 1e-12);
  const std::size_t n = std::size_t{1} << (m + j);
  auto batch = full.make_batch(n);
  auto batch_v = mv.make_batch(n);
  auto batch_h = mh.make_batch(n);
  for (std::size_t s = 0; s < n; ++s) {
    for (auto* b : {&batch, &batch_v, &batch_h}) {
      b->visible_for_update().col(s) = bits(s, m);
      b->hidden_for_update().col(s) = bits(s, j, m);
    }
  }
  for (double t : {0.0, 0.3, 1.0}) {
    SCOPED_TRACE(t);
    std::vector<double> u(n), uv(n), uh(n), minus_u;
    full.energy(t, batch, u);
    mv.energy(t, batch_v, uv);
    mh.energy(t, batch_h, uh);
    // The test's own tempered joint energy.
    auto joint = [&](std::size_t s) {
      const auto v = bits(s, m), h = bits(s, j, m);
      return -((1 - t) * a0.dot(v)) - t * minus_energy(p, v, h);
    };
    for (std::size_t s = 0; s < n; ++s) {
      EXPECT_NEAR(u[s], joint(s), 1e-12);
      minus_u.push_back(-u[s]);
    }
    const double log_zt = logz::exact::rbm_log_z(logz::exact::rbm_tempered(p, a0, t));
    EXPECT_NEAR(log_sum(minus_u), log_zt, 1e-10);
    // Marginal over v: states with h = 0 enumerate v; over h: states with v = 0 enumerate h.
    std::vector<double> terms_v, terms_h;
    for (std::size_t s = 0; s < (std::size_t{1} << m); ++s) {
      std::vector<double> inner;
      for (std::size_t q = 0; q < (std::size_t{1} << j); ++q) inner.push_back(-joint(s + (q << m)));
      EXPECT_NEAR(uv[s], -log_sum(inner), 1e-12);
      terms_v.push_back(-uv[s]);
    }
    for (std::size_t q = 0; q < (std::size_t{1} << j); ++q) {
      std::vector<double> inner;
      for (std::size_t s = 0; s < (std::size_t{1} << m); ++s) inner.push_back(-joint(s + (q << m)));
      EXPECT_NEAR(uh[q << m], -log_sum(inner), 1e-12);
      terms_h.push_back(-uh[q << m]);
    }
    EXPECT_NEAR(log_sum(terms_v), log_zt, 1e-10);
    EXPECT_NEAR(log_sum(terms_h), log_zt, 1e-10);
  }
  // Work increments are differences of energies at the same state.
  std::vector<double> w(n), u0(n), u1(n);
  for (auto [t0, t1] : {std::pair{0.2, 0.7}, {0.7, 0.2}}) {
    full.work_increment(t0, t1, batch, w);
    full.energy(t0, batch, u0);
    full.energy(t1, batch, u1);
    for (std::size_t s = 0; s < n; s += 7) EXPECT_NEAR(w[s], u1[s] - u0[s], 1e-12);
    mv.work_increment(t0, t1, batch_v, w);
    mv.energy(t0, batch_v, u0);
    mv.energy(t1, batch_v, u1);
    for (std::size_t s = 0; s < n; s += 7) EXPECT_NEAR(w[s], u1[s] - u0[s], 1e-12);
    mh.work_increment(t0, t1, batch_h, w);
    mh.energy(t0, batch_h, u0);
    mh.energy(t1, batch_h, u1);
    for (std::size_t s = 0; s < n; s += 7) EXPECT_NEAR(w[s], u1[s] - u0[s], 1e-12);
  }
}

// Float RBMs: the marginal paths' work increments (term by term, the trace 0 -> 1 from float
// sums with marginal_h's sum at t = 0 computed once) are differences of energies at the state.
TEST(RbmPaths, FloatWorkIncrementsAreEnergyDifferences) {
  const int m = 40, j = 24;
  const auto p = random_rbm(m, j, 0.3, 23);
  Eigen::VectorXd a0(m);
  for (int i = 0; i < m; ++i) a0[i] = 0.1 * (i % 7) - 0.3;
  const logz::RbmBase base{"test", a0};
  const logz::RbmMarginalVisiblePath<float> mv(p, base);
  const logz::RbmMarginalHiddenPath<float> mh(p, base);
  const std::size_t n = 16;
  auto batch_v = mv.make_batch(n);
  auto batch_h = mh.make_batch(n);
  mv.sample_base(batch_v, logz::BatchRandom{3, logz::Purpose::test, 0, 0});
  mh.sample_base(batch_h, logz::BatchRandom{4, logz::Purpose::test, 0, 0});
  std::vector<double> w(n), u0(n), u1(n);
  for (auto [t0, t1] : {std::pair{0.0, 1.0}, {0.2, 0.21}, {0.7, 0.2}}) {
    SCOPED_TRACE(std::to_string(t0) + " -> " + std::to_string(t1));
    mv.work_increment(t0, t1, batch_v, w);
    mv.energy(t0, batch_v, u0);
    mv.energy(t1, batch_v, u1);
    for (std::size_t s = 0; s < n; ++s)
      EXPECT_NEAR(w[s], u1[s] - u0[s], 1e-5 * (1 + std::abs(u1[s])));
    mh.work_increment(t0, t1, batch_h, w);
    mh.energy(t0, batch_h, u0);
    mh.energy(t1, batch_h, u1);
    for (std::size_t s = 0; s < n; ++s)
      EXPECT_NEAR(w[s], u1[s] - u0[s], 1e-5 * (1 + std::abs(u1[s])));
  }
}

// The batch keeps (a - a0).v between the marginal_v path's trace and its next work increment:
// a change of the visible layer (a kernel's sweep, a copied particle) must drop it.
TEST(RbmPaths, CachedBiasGapFollowsTheVisibleLayer) {
  const int m = 30, j = 12;
  const auto p = random_rbm(m, j, 0.5, 31);
  Eigen::VectorXd a0(m);
  for (int i = 0; i < m; ++i) a0[i] = 0.05 * (i % 5) - 0.1;
  const logz::RbmMarginalVisiblePath<double> path(p, logz::RbmBase{"test", a0});
  const std::size_t n = 9;
  auto batch = path.make_batch(n);
  auto other = path.make_batch(n);
  path.sample_base(batch, logz::BatchRandom{5, logz::Purpose::test, 0, 0});
  path.sample_base(other, logz::BatchRandom{6, logz::Purpose::test, 0, 0});
  // The increment from t = 0 to 1 from scratch: a fresh batch of the same states.
  auto fresh_increment = [&](const logz::RbmBatch<double>& b) {
    auto copy = path.make_batch(n);
    for (std::size_t q = 0; q < n; ++q) copy.copy_particle(b, q, q);
    std::vector<double> w(n);
    path.work_increment(0.0, 1.0, copy, w);
    return w;
  };
  std::vector<double> w(n);
  path.work_increment(0.0, 1.0, batch, w);  // fills the cache
  EXPECT_EQ(w, fresh_increment(batch));
  batch.visible_for_update().col(2).setZero();  // a change through the layer's write access
  path.work_increment(0.0, 1.0, batch, w);
  EXPECT_EQ(w, fresh_increment(batch));
  batch.copy_particle(other, 4, 6);  // a copied particle
  path.work_increment(0.0, 1.0, batch, w);
  EXPECT_EQ(w, fresh_increment(batch));
  for (std::size_t q = 0; q < n; ++q) batch.copy_particle(other, q, q);
  path.work_increment(0.0, 1.0, batch, w);
  EXPECT_EQ(w, fresh_increment(other));
}

TEST(RbmBase, BaseRateAndUniform) {
  Eigen::MatrixXd data(4, 3);
  data << 1, 0, 1,  //
      1, 0, 0,      //
      1, 0, 1,      //
      1, 0, 0;
  const auto base = logz::base_rate_rbm_base(data, 0.05);
  // p = (c + 0.05 n) / (n + 0.1 n): 4.2/4.4, 0.2/4.4, 2.2/4.4.
  EXPECT_NEAR(base.logits[0], std::log(4.2 / 0.2), 1e-12);
  EXPECT_NEAR(base.logits[1], std::log(0.2 / 4.2), 1e-12);
  EXPECT_NEAR(base.logits[2], 0.0, 1e-12);
  const auto u = logz::uniform_rbm_base(3);
  EXPECT_NEAR(u.log_z(2), 5 * std::log(2.0), 1e-12);
  data(0, 0) = 2;
  EXPECT_THROW(logz::base_rate_rbm_base(data), logz::InvalidArgument);
  EXPECT_THROW(logz::base_rate_rbm_base(Eigen::MatrixXd(0, 3)), logz::InvalidArgument);
}

// ---------------------------------------------------------------- bad weight files

class RbmFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("logz_rbm_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::map<std::string, logz::io::Array>& arrays) {
    const std::string path = (dir_ / name).string();
    logz::io::write_npz(path, arrays);
    return path;
  }
  // The message of the InputError that loading throws (empty if none).
  static std::string load_error(const std::string& path, const logz::RbmKeys& keys = {}) {
    try {
      logz::load_rbm(path, keys);
    } catch (const logz::InputError& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(RbmFiles, BadWeightFilesGiveOneLineErrors) {
  using logz::io::Array;
  const Array w{{3, 2}, {1, 2, 3, 4, 5, 6}}, a{{3}, {0, 0, 0}}, b{{2}, {0, 0}};
  const auto good = write("good.npz", {{"W", w}, {"a", a}, {"b", b}});
  EXPECT_EQ(load_error(good), "");
  EXPECT_EQ(logz::load_rbm(good).W(2, 1), 6.0);
  struct Bad {
    std::string name;
    std::map<std::string, Array> arrays;
    std::string key;
  };
  const std::vector<Bad> cases = {
      {"missing_b.npz", {{"W", w}, {"a", a}}, "b"},
      {"short_a.npz", {{"W", w}, {"a", Array{{2}, {0, 0}}}, {"b", b}}, "a"},
      {"long_b.npz", {{"W", w}, {"a", a}, {"b", Array{{3}, {0, 0, 0}}}}, "b"},
      {"w_1d.npz", {{"W", Array{{6}, {1, 2, 3, 4, 5, 6}}}, {"a", a}, {"b", b}}, "W"},
      {"nan_w.npz", {{"W", Array{{3, 2}, {1, 2, std::nan(""), 4, 5, 6}}}, {"a", a}, {"b", b}}, "W"},
      {"inf_a.npz", {{"W", w}, {"a", Array{{3}, {0, INFINITY, 0}}}, {"b", b}}, "a"},
  };
  for (const auto& c : cases) {
    const std::string msg = load_error(write(c.name, c.arrays));
    SCOPED_TRACE(msg);
    EXPECT_NE(msg.find(c.name), std::string::npos);
    EXPECT_NE(msg.find(c.key), std::string::npos);
    EXPECT_NE(msg.find("expected"), std::string::npos);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  // Configurable keys: the default names are then missing.
  logz::RbmKeys keys{"weights", "vbias", "hbias"};
  const auto renamed = write("renamed.npz", {{"weights", w}, {"vbias", a}, {"hbias", b}});
  EXPECT_EQ(load_error(renamed, keys), "");
  EXPECT_NE(load_error(renamed).find("W"), std::string::npos);
  EXPECT_NE(load_error((dir_ / "absent.npz").string()).find("absent.npz"), std::string::npos);
}

// ---------------------------------------------------------------- test log-likelihood

TEST(TestLogLikelihood, MeanAndCombinedError) {
  const std::vector<double> f = {-10, -12, -14};
  const auto r = logz::test_log_likelihood(f, 5.0, 0.3);
  EXPECT_NEAR(r.mean, 12 - 5, 1e-12);
  EXPECT_NEAR(r.data_std_error, 2.0 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(r.std_error, std::sqrt(4.0 / 3 + 0.09), 1e-12);
  const auto one = logz::test_log_likelihood(std::vector<double>{-3}, 1.0, 0.0);
  EXPECT_TRUE(std::isnan(one.std_error));
  EXPECT_EQ(one.flags.at(0), "too_few_samples");
  EXPECT_THROW(logz::test_log_likelihood(std::vector<double>{}, 1.0, 0.0), logz::InvalidArgument);
  EXPECT_THROW(logz::test_log_likelihood(std::vector<double>{NAN}, 1.0, 0.0),
               logz::InvalidArgument);
  EXPECT_THROW(logz::test_log_likelihood(f, 1.0, -1.0), logz::InvalidArgument);
}

// ---------------------------------------------------------------- exact-start invariance

constexpr int kM = 4, kJ = 3;
constexpr long kParticles = 20000;

struct Tiny {
  RbmParameters p = random_rbm(kM, kJ, 1.0, 77);
  Eigen::VectorXd a0 = Eigen::VectorXd::LinSpaced(kM, -1.0, 1.5);
  // Exact joint probabilities of the tempered RBM at t (the oracle's own state order).
  std::vector<double> joint(double t) const {
    auto lp = logz::exact::rbm_joint_log_probabilities(logz::exact::rbm_tempered(p, a0, t));
    for (double& x : lp) x = std::exp(x);
    return lp;
  }
};

// Particles drawn exactly from prob (joint states), moved by kernel on the path's
// target at t, counted by the states selected by `state_of`.
template <class Path, class Kernel, class StateOf>
std::vector<long> run_from_exact(const Path& path, const Kernel& kernel, double t,
                                 const std::vector<double>& prob, std::size_t num_states,
                                 StateOf state_of, std::uint64_t seed) {
  auto batch = path.make_batch(kParticles);
  std::vector<double> cdf(prob.size());
  double c = 0;
  for (std::size_t s = 0; s < prob.size(); ++s) cdf[s] = c += prob[s];
  for (long q = 0; q < kParticles; ++q) {
    logz::RandomStream rng(seed, q, logz::Purpose::test, 0);
    const double u = rng.uniform() * c;
    const std::size_t s = std::min<std::size_t>(
        std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin(), prob.size() - 1);
    batch.visible_for_update().col(q) = bits(s, kM).cast<typename Path::Batch::Scalar>();
    batch.hidden_for_update().col(q) = bits(s, kJ, kM).cast<typename Path::Batch::Scalar>();
  }
  kernel.step(path.at(t), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(num_states, 0);
  for (long q = 0; q < kParticles; ++q) {
    std::uint64_t s = 0;
    for (int i = 0; i < kM; ++i) s |= static_cast<std::uint64_t>(batch.visible()(i, q) > 0.5) << i;
    for (int k = 0; k < kJ; ++k)
      s |= static_cast<std::uint64_t>(batch.hidden()(k, q) > 0.5) << (kM + k);
    ++counts[state_of(s)];
  }
  return counts;
}

std::vector<double> marginal(const std::vector<double>& joint, bool keep_visible) {
  std::vector<double> out(keep_visible ? 1 << kM : 1 << kJ, 0.0);
  for (std::size_t s = 0; s < joint.size(); ++s)
    out[keep_visible ? s & ((1 << kM) - 1) : s >> kM] += joint[s];
  return out;
}

TEST(RbmKernels, BlockGibbsKeepsTheExactJoint) {
  const Tiny tiny;
  const logz::RbmBase base{"test", tiny.a0};
  const logz::RbmFullPath<double> path(tiny.p, base);
  const logz::RbmFullPath<float> path_f(tiny.p, base);
  auto id = [](std::uint64_t s) { return s; };
  for (double t : {1.0, 0.6}) {
    const auto prob = tiny.joint(t);
    for (bool reversed : {false, true}) {
      SCOPED_TRACE(testing::Message() << "t " << t << " reversed " << reversed);
      const logz::RbmGibbs<double> kernel(2, reversed);
      const auto chi =
          chi_square(run_from_exact(path, kernel, t, prob, prob.size(), id, 11), prob, kParticles);
      EXPECT_LT(chi.statistic, chi.critical);
      const logz::RbmGibbs<float> kernel_f(1, reversed);
      const auto chi_f = chi_square(run_from_exact(path_f, kernel_f, t, prob, prob.size(), id, 12),
                                    prob, kParticles);
      EXPECT_LT(chi_f.statistic, chi_f.critical);
    }
  }
}

TEST(RbmKernels, MarginalKernelsKeepTheExactMarginals) {
  const Tiny tiny;
  const logz::RbmBase base{"test", tiny.a0};
  const logz::RbmMarginalVisiblePath<double> path_v(tiny.p, base);
  const logz::RbmMarginalHiddenPath<double> path_h(tiny.p, base);
  const logz::RbmMarginalHiddenPath<float> path_hf(tiny.p, base);
  auto visible_of = [](std::uint64_t s) { return s & ((1u << kM) - 1); };
  auto hidden_of = [](std::uint64_t s) { return s >> kM; };
  for (double t : {1.0, 0.4}) {
    SCOPED_TRACE(t);
    const auto prob = tiny.joint(t);
    const auto pv = marginal(prob, true), ph = marginal(prob, false);
    const logz::RbmGibbs<double> gibbs(1);
    auto chi = chi_square(run_from_exact(path_v, gibbs, t, prob, pv.size(), visible_of, 21), pv,
                          kParticles);
    EXPECT_LT(chi.statistic, chi.critical) << "gibbs on p(v)";
    chi = chi_square(run_from_exact(path_h, gibbs, t, prob, ph.size(), hidden_of, 22), ph,
                     kParticles);
    EXPECT_LT(chi.statistic, chi.critical) << "gibbs on p(h)";
    const logz::RbmMarginalMetropolis<double> metropolis(5);
    chi = chi_square(run_from_exact(path_h, metropolis, t, prob, ph.size(), hidden_of, 23), ph,
                     kParticles);
    EXPECT_LT(chi.statistic, chi.critical) << "metropolis on p(h)";
    chi = chi_square(run_from_exact(path_v, metropolis, t, prob, pv.size(), visible_of, 24), pv,
                     kParticles);
    EXPECT_LT(chi.statistic, chi.critical) << "metropolis on p(v)";
    const logz::RbmMarginalMetropolis<float> metropolis_f(5);
    chi = chi_square(run_from_exact(path_hf, metropolis_f, t, prob, ph.size(), hidden_of, 25), ph,
                     kParticles);
    EXPECT_LT(chi.statistic, chi.critical) << "float metropolis on p(h)";
  }
  const logz::RbmFullPath<double> full(tiny.p, base);
  auto batch = full.make_batch(1);
  EXPECT_THROW(
      logz::RbmMarginalMetropolis<double>(1).step(full.at(1.0), batch, logz::BatchRandom{}),
      logz::InvalidArgument);
}

// Deliberately broken kernels: the test must reject them.
// (1) both layers drawn from the old state at once (a parallel "block" update);
struct ParallelUpdateGibbs {
  logz::KernelInfo step(const logz::RbmTarget<double>& target, logz::RbmBatch<double>& batch,
                        const logz::BatchRandom& random) const {
    std::vector<logz::RandomStream> streams;
    for (std::size_t p = 0; p < batch.num_particles(); ++p) streams.push_back(random.stream(p));
    const logz::RbmMatrix<double> h_old = batch.hidden();
    logz::rbm_sample_hidden(target, batch, std::span<logz::RandomStream>(streams));
    const logz::RbmMatrix<double> h_new = batch.hidden();
    batch.hidden_for_update() = h_old;
    logz::rbm_sample_visible(target, batch, std::span<logz::RandomStream>(streams));
    batch.hidden_for_update() = h_new;
    return {};
  }
};
// (2) the visible logits forget the base's share (1 - t) a0.
struct NoBaseGibbs {
  logz::KernelInfo step(logz::RbmTarget<double> target, logz::RbmBatch<double>& batch,
                        const logz::BatchRandom& random) const {
    static const logz::RbmVector<double> zero = logz::RbmVector<double>::Zero(kM);
    target.base_logits = &zero;
    return logz::RbmGibbs<double>(1).step(target, batch, random);
  }
};

TEST(RbmKernels, TheTestDetectsBrokenKernels) {
  const Tiny tiny;
  const logz::RbmFullPath<double> path(tiny.p, logz::RbmBase{"test", tiny.a0});
  auto id = [](std::uint64_t s) { return s; };
  const auto prob1 = tiny.joint(1.0), prob6 = tiny.joint(0.6);
  auto chi =
      chi_square(run_from_exact(path, ParallelUpdateGibbs{}, 1.0, prob1, prob1.size(), id, 31),
                 prob1, kParticles);
  EXPECT_GT(chi.statistic, chi.critical);
  chi = chi_square(run_from_exact(path, NoBaseGibbs{}, 0.6, prob6, prob6.size(), id, 32), prob6,
                   kParticles);
  EXPECT_GT(chi.statistic, chi.critical);
}

// ---------------------------------------------------------------- reproducibility

TEST(RbmAnnealing, ResultsDoNotDependOnThreadCount) {
  const auto p = random_rbm(10, 6, 1.0, 5);
  const logz::RbmMarginalVisiblePath<double> path(p, logz::uniform_rbm_base(10));
  const logz::RbmGibbs<double> kernel(1);
  logz::AnnealOptions o;
  o.num_paths = 37;
  o.chunk_size = 5;
  o.seed = 9;
  std::vector<double> reference;
  for (int threads : {1, 2, 3, 8}) {
    o.threads = threads;
    const auto w = logz::anneal_forward(path, kernel, logz::linear_schedule(20), o);
    if (reference.empty()) reference = w.works;
    EXPECT_EQ(w.works, reference) << threads << " threads";
  }
}

}  // namespace

namespace {

TEST(RbmParameters, WeightsWhoseEnergiesOverflowAreRefusedNamingW) {
  logz::RbmParameters p;
  p.W = Eigen::MatrixXd::Constant(6, 4, 1e308);
  p.a = Eigen::VectorXd::Zero(6);
  p.b = Eigen::VectorXd::Zero(4);
  try {
    p.validate("big.npz", {});
    ADD_FAILURE() << "accepted";
  } catch (const logz::InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("big.npz: W: expected parameters whose energies stay finite"),
        std::string::npos)
        << e.what();
  }
  p.W.setConstant(1e290);  // sum |W| = 2.4e291: large but finite energies
  EXPECT_NO_THROW(p.validate("big.npz", {}));
}

}  // namespace

namespace {

TEST(RbmParameters, AWrongShapeIsRefusedFromTheHeaderBeforeTheDataAreInflated) {
  // W as a long 1-D array, deflated; then a byte in the middle of its compressed data is
  // damaged. Were W inflated before its shape was checked, the error would be the damage.
  const std::string path = ::testing::TempDir() + "logz_rbm_wrong_shape.npz";
  std::map<std::string, logz::io::Array> arrays;
  arrays["W"] = logz::io::Array{{1000000}, std::vector<double>(1000000, 0.5)};
  arrays["a"] = logz::io::Array{{3}, std::vector<double>(3, 0.0)};
  arrays["b"] = logz::io::Array{{2}, std::vector<double>(2, 0.0)};
  logz::io::write_npz(path, arrays, true);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t at = bytes.find("W.npy") + bytes.size() / 4;  // inside W's deflate stream
  bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
  std::ofstream(path, std::ios::binary) << bytes;
  try {
    logz::load_rbm(path);
    ADD_FAILURE() << "accepted";
  } catch (const logz::InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("W: expected a 2-D array (visible x hidden), got shape 1000000"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
