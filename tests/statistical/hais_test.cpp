// Continuous targets, statistical tier (fixed seeds; tolerances |est - exact| <= 5 SE plus a
// stated bias allowance, with SE targets fixed in advance):
//  - the HMC sampler on the tutorial's 5-d correlated Gaussian (moments, acceptance);
//  - exact-start invariance of every continuous kernel on an intermediate distribution of a
//    geometric path (positions and, for HAIS, momenta), and three deliberately broken kernels
//    (the paper's printed refresh "+ gamma r"; HMC without its accept test; Langevin steps
//    without MALA's) that fail it;
//  - reflection: draws stay inside the constraints with the truncated target's moments;
//  - log Z by HAIS, AIS-HMC, AIS-MALA, AIS-Barker and AIS-MH on complete products of experts
//  (Laplace, Student-t)
//    and by HAIS on the linear-Gaussian model, against exact answers; the Phi = 0 check.
#include "logz/kernels/hais.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/kernels/barker.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/mala.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/linear_generative.hpp"
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/samplers/hmc_sampler.hpp"
#include "support/ais_check.hpp"

namespace logz {
namespace {

using test_support::kZ;

// The tutorial's 5-d Gaussian (its printed mu and covariance, numpy seed 123).
Eigen::VectorXd tutorial_mean() {
  Eigen::VectorXd m(5);
  m << 6.96469186, 2.86139335, 2.26851454, 5.51314769, 7.1946897;
  return m;
}
Eigen::MatrixXd tutorial_cov() {
  Eigen::MatrixXd c(5, 5);
  c << 1., 0.66197111, 0.71141257, 0.55766643, 0.35753822,  //
      0.66197111, 1., 0.31053199, 0.45455485, 0.37991646,   //
      0.71141257, 0.31053199, 1., 0.62800335, 0.38004541,   //
      0.55766643, 0.45455485, 0.62800335, 1., 0.50807871,   //
      0.35753822, 0.37991646, 0.38004541, 0.50807871, 1.;
  return c;
}

TEST(HmcSampler, TutorialGaussianMomentsAndAcceptance) {
  const GaussianBase target(tutorial_mean(), tutorial_cov());
  HmcSamplerOptions o;
  o.burn_in = 1000;
  o.num_draws = 2000;
  o.initial_step_size = 1e-3;  // the tutorial's test: initial 1e-3, maximum 0.5
  o.adaptation.max_step = 0.5;
  o.seed = 123;
  o.threads = 1;
  Eigen::MatrixXd init(5, 12);
  RandomStream s(1, 0, Purpose::test, 0);
  for (int j = 0; j < 12; ++j)
    for (int i = 0; i < 5; ++i) init(i, j) = s.normal();
  const auto r = sample_hmc(target, init, o);
  const Eigen::VectorXd mu = tutorial_mean();
  const Eigen::MatrixXd cov = tutorial_cov();
  const double n = static_cast<double>(r.num_draws * r.num_chains);
  Eigen::VectorXd m = Eigen::VectorXd::Zero(5);
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(5, 5);
  for (std::size_t t = 0; t < r.num_draws; ++t)
    for (std::size_t ch = 0; ch < r.num_chains; ++ch)
      for (int i = 0; i < 5; ++i) m(i) += r.draw(t, ch, i) / n;
  for (std::size_t t = 0; t < r.num_draws; ++t)
    for (std::size_t ch = 0; ch < r.num_chains; ++ch)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
          c(i, j) += (r.draw(t, ch, i) - m(i)) * (r.draw(t, ch, j) - m(j)) / (n - 1);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(std::isfinite(r.ess[i]));
    EXPECT_GT(r.ess[i], 2000.0);  // target fixed in advance: at least 2000 effective draws
    EXPECT_NEAR(m(i), mu(i), kZ * std::sqrt(cov(i, i) / r.ess[i])) << i;
    for (int j = 0; j < 5; ++j) {
      const double ess = std::min(r.ess[i], r.ess[j]);
      EXPECT_NEAR(c(i, j), cov(i, j),
                  kZ * std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / ess))
          << i << "," << j;
    }
  }
  EXPECT_NEAR(r.acceptance_rate, 0.9, 0.1);  // the tutorial's own criterion
  EXPECT_NEAR(r.average_acceptance, 0.9, 0.1);
  EXPECT_GE(r.final_step_size, 0.001);
  EXPECT_LE(r.final_step_size, 0.5);
}

// ---------------------------------------------------------------- exact-start invariance

// The intermediate distribution at t of the path N(0, I) -> N(m, S): Gaussian with
// precision (1 - t) I + t S^{-1} and mean P^{-1} t S^{-1} m (computed here, not by the path).
struct Intermediate {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
};
Intermediate intermediate(const Eigen::VectorXd& m, const Eigen::MatrixXd& S, double t) {
  const Eigen::MatrixXd Si = S.inverse();
  const Eigen::MatrixXd P = (1 - t) * Eigen::MatrixXd::Identity(m.size(), m.size()) + t * Si;
  const Eigen::MatrixXd C = P.inverse();
  return {C * (t * Si * m), 0.5 * (C + C.transpose())};
}

// Largest |z| over the means, variances and covariances of the columns of X against the truth
// (independent particles: SE of a mean sd/sqrt(P); of a covariance sqrt((S_ii S_jj + S_ij^2)/P)).
double max_moment_z(const Eigen::MatrixXd& X, const Eigen::VectorXd& mean,
                    const Eigen::MatrixXd& cov) {
  const double n = static_cast<double>(X.cols());
  const Eigen::VectorXd m = X.rowwise().mean();
  const Eigen::MatrixXd D = X.colwise() - m;
  const Eigen::MatrixXd c = D * D.transpose() / (n - 1);
  double z = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    z = std::max(z, std::abs(m(i) - mean(i)) / std::sqrt(cov(i, i) / n));
    for (Eigen::Index j = 0; j <= i; ++j)
      z = std::max(z, std::abs(c(i, j) - cov(i, j)) /
                          std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / n));
  }
  return z;
}

// The paper's printed refresh v <- -sqrt(1 - g) v + g r: does not keep N(0, I).
struct PrintedRefreshHais {
  double eps, gamma;
  template <class T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    auto streams = detail::particle_streams(random, b.num_particles());
    std::vector<double> u(b.num_particles());
    for (std::size_t p = 0; p < u.size(); ++p) u[p] = streams[p].uniform();
    ContinuousKernelInfo info;
    detail::hamiltonian_move(target, b, u, eps, 1, info);
    for (Eigen::Index p = 0; p < b.V.cols(); ++p)
      for (Eigen::Index i = 0; i < b.V.rows(); ++i)
        b.V(i, p) = -std::sqrt(1 - gamma) * b.V(i, p) + gamma * streams[p].normal();
    return info;
  }
};

// HMC that accepts every proposal (no Metropolis correction).
struct UncorrectedHmc {
  double eps;
  int steps;
  template <class T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    for (Eigen::Index p = 0; p < b.V.cols(); ++p) {
      RandomStream s = random.stream(p);
      for (Eigen::Index i = 0; i < b.V.rows(); ++i) b.V(i, p) = s.normal();
    }
    if (!parts_valid_for(target, b.parts, true)) evaluate_parts(target, b.X, b.parts, true);
    leapfrog(target, b.X, b.V, b.parts, eps, steps);
    return {};
  }
};

class ExactStart : public ::testing::Test {
 protected:
  static constexpr int kDim = 3, kParticles = 20000;
  static constexpr double kT = 0.6;
  Eigen::VectorXd m = Eigen::Vector3d(1.0, -0.5, 2.0);
  Eigen::MatrixXd S =
      (Eigen::MatrixXd(3, 3) << 0.3, 0.1, 0.05, 0.1, 0.5, -0.1, 0.05, -0.1, 0.2).finished();
  GeometricPath<GaussianBase, GaussianBase> path{GaussianBase::isotropic(3, 1.0),
                                                 GaussianBase(m, S)};
  Intermediate truth = intermediate(m, S, kT);

  // Exact draws of the intermediate distribution, momenta N(0, I); then `steps` kernel calls.
  template <class Kernel>
  ContinuousBatch run(const Kernel& kernel, int steps) {
    ContinuousBatch b(kDim, kParticles);
    const GaussianBase exact(truth.mean, truth.cov);
    exact.sample(b.X, BatchRandom{77, Purpose::test, 0, 0});
    path.sample_momentum(b, BatchRandom{77, Purpose::test, 1, 0});
    const auto target = path.at(kT);
    for (int k = 0; k < steps; ++k)
      kernel.step(target, b,
                  BatchRandom{77, Purpose::forward_kernel, static_cast<std::uint32_t>(k), 0});
    return b;
  }
  double position_z(const ContinuousBatch& b) { return max_moment_z(b.X, truth.mean, truth.cov); }
  double momentum_z(const ContinuousBatch& b) {
    return max_moment_z(b.V, Eigen::VectorXd::Zero(kDim), Eigen::MatrixXd::Identity(kDim, kDim));
  }
};

TEST_F(ExactStart, HaisKeepsPositionsAndMomenta) {
  const auto b = run(Hais(0.2, Hais::half_life_refresh(0.2, 1)), 60);
  EXPECT_LT(position_z(b), kZ);
  EXPECT_LT(momentum_z(b), kZ);
  const auto r = run(Hais(0.2, 0.3).reversed(), 60);
  EXPECT_LT(position_z(r), kZ);
  EXPECT_LT(momentum_z(r), kZ);
}

// Momenta refreshed or redrawn from single-precision normals: still invariant (to the 6.66 sd
// cut of their tails, far below these tests' resolution).
TEST_F(ExactStart, SinglePrecisionNormalsKeepPositionsAndMomenta) {
  const auto b =
      run(Hais(0.2, Hais::half_life_refresh(0.2, 1)).with_normals(NormalPrecision::single), 60);
  EXPECT_LT(position_z(b), kZ);
  EXPECT_LT(momentum_z(b), kZ);
  const auto r = run(Hais(0.2, 0.3).with_normals(NormalPrecision::single).reversed(), 60);
  EXPECT_LT(position_z(r), kZ);
  EXPECT_LT(momentum_z(r), kZ);
  EXPECT_LT(position_z(run(Hmc(0.2, 1).with_normals(NormalPrecision::single), 60)), kZ);
}

TEST_F(ExactStart, AisHmcAndHmcKeepPositions) {
  EXPECT_LT(position_z(run(Hmc(0.2, 1), 60)), kZ);
  EXPECT_LT(position_z(run(Hmc(0.25, 10), 10)), kZ);
}

TEST_F(ExactStart, RandomWalkMetropolisKeepsPositions) {
  EXPECT_LT(position_z(run(RandomWalkMetropolis(0.1), 60)), kZ);
  EXPECT_LT(position_z(run(RandomWalkMetropolis(0.5, 3), 20)), kZ);
}

TEST_F(ExactStart, BarkerKeepsPositions) {
  EXPECT_LT(position_z(run(Barker(0.3), 60)), kZ);
  EXPECT_LT(position_z(run(Barker(1.5), 30)), kZ);  // far past the target's scales: still exact
}

TEST_F(ExactStart, MalaKeepsPositions) {
  EXPECT_LT(position_z(run(Mala(0.3), 60)), kZ);
  EXPECT_LT(position_z(run(Mala(0.6).with_normals(NormalPrecision::single), 30)), kZ);
}

// Langevin steps without the Metropolis correction (what MALA corrects): biased.
struct UnadjustedLangevin {
  double eps;
  template <class T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    evaluate_parts(target, b.X, b.parts, true);
    combined_grad(target, b.parts, b.grad);
    for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
      RandomStream s = random.stream(p);
      for (Eigen::Index i = 0; i < b.X.rows(); ++i)
        b.X(i, p) += -0.5 * eps * eps * b.grad(i, p) + eps * s.normal();
    }
    b.parts.invalidate();
    return {};
  }
};

TEST_F(ExactStart, BrokenKernelsFail) {
  EXPECT_GT(position_z(run(UnadjustedLangevin{0.45}, 60)), 20.0);
  // The test has power: each deliberately broken kernel is flagged far beyond 5 SE.
  const auto printed = run(PrintedRefreshHais{0.2, Hais::half_life_refresh(0.2, 1)}, 60);
  EXPECT_GT(momentum_z(printed), 20.0);
  EXPECT_GT(position_z(run(UncorrectedHmc{0.45, 10}, 10)), 20.0);
}

// ---------------------------------------------------------------- reflection

struct ConstrainedGaussian {
  GaussianBase g;
  LinearConstraints c;
  int dim() const { return g.dim(); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const { g.energy(X, e); }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    g.energy_and_grad(X, e, G);
  }
  const LinearConstraints* constraints() const { return &c; }
};

double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
double normal_sf(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

TEST(Reflection, ConstrainedTargetsKeepInsideWithTheRightMoments) {
  // (a) x >= 0 for N(0, I) in 2-d: half-normal marginals, mean sqrt(2/pi), variance 1 - 2/pi.
  // (b) the half-plane x0 + x1 >= 1: along a/|a| a normal truncated at c = 1/sqrt(2), mean
  //     pdf(c)/sf(c); across it N(0, 1).
  struct Case {
    LinearConstraints c;
    Eigen::Vector2d mean;
    Eigen::Vector2d sd;
  };
  const double hm = std::sqrt(2 / M_PI);
  LinearConstraints plane;
  plane.A = (Eigen::MatrixXd(1, 2) << 1.0, 1.0).finished();
  plane.b = Eigen::VectorXd::Constant(1, 1.0);
  const double c = 1 / std::sqrt(2.0), tm = normal_pdf(c) / normal_sf(c);
  const double tvar = 1 + c * tm - tm * tm;  // truncated normal variance
  const double along = tm / std::sqrt(2.0);
  const double var_i = 0.5 * tvar + 0.5;  // each coordinate: half along, half across
  std::vector<Case> cases = {{LinearConstraints::nonnegative(2),
                              {hm, hm},
                              {std::sqrt(1 - hm * hm), std::sqrt(1 - hm * hm)}},
                             {plane, {along, along}, {std::sqrt(var_i), std::sqrt(var_i)}}};
  for (const auto& k : cases) {
    const ConstrainedGaussian target{GaussianBase::isotropic(2, 1.0), k.c};
    HmcSamplerOptions o;
    o.burn_in = 300;
    o.num_draws = 3000;
    o.leapfrog_steps = 10;
    o.initial_step_size = 0.1;
    o.adaptation.max_step = 0.5;
    o.threads = 1;
    const Eigen::MatrixXd init = Eigen::MatrixXd::Constant(2, 8, 1.0);
    const auto r = sample_hmc(target, init, o);
    EXPECT_GT(r.reflections, 0u);
    double min_slack = 1e300;
    Eigen::Vector2d m = Eigen::Vector2d::Zero();
    for (std::size_t t = 0; t < r.num_draws; ++t)
      for (std::size_t ch = 0; ch < r.num_chains; ++ch) {
        const Eigen::Vector2d x(r.draw(t, ch, 0), r.draw(t, ch, 1));
        min_slack = std::min(min_slack, k.c.min_slack(x));
        m += x / static_cast<double>(r.num_draws * r.num_chains);
      }
    EXPECT_GE(min_slack, -1e-12);
    for (int i = 0; i < 2; ++i) {
      EXPECT_GT(r.ess[i], 1000.0);
      EXPECT_NEAR(m(i), k.mean(i), kZ * k.sd(i) / std::sqrt(r.ess[i])) << i;
    }
  }
}

// ---------------------------------------------------------------- log Z

using test_support::AisCheck;
using test_support::expect_agrees;
using test_support::run_ais;

TEST(AisLogZ, CompleteProductsOfExperts) {
  for (auto type : {ExpertType::laplace, ExpertType::student_t}) {
    // Student-t shapes lambda in [1.5, 3]: finite variance experts (the paper's harder
    // lambda < 1 regime is left to the examples).
    ProductOfExperts poe = ProductOfExperts::random(type, 6, 6, 100);
    if (type == ExpertType::student_t)
      poe = ProductOfExperts(type, poe.phi(), (poe.lambda().array() * 1.2 + 0.6).matrix());
    const double exact = *poe.exact_log_z();
    const GeometricPath path(GaussianBase::isotropic(6, 2.0), poe);
    const std::string name = to_string(type);
    const double gamma = Hais::half_life_refresh(0.2, 1);
    expect_agrees(run_ais(path, Hais(0.2, gamma), 1000, 200, 1), exact, 0.05, "HAIS " + name);
    expect_agrees(run_ais(path, Hmc(0.2, 1), 3000, 200, 2), exact, 0.1, "AIS-HMC " + name);
    expect_agrees(run_ais(path, RandomWalkMetropolis(0.1), 6000, 200, 3), exact, 0.15,
                  "AIS-MH " + name);
    // MALA is HMC with one leapfrog step written on x alone: the same draws give the same works
    // up to rounding, and the same agreement.
    const AisCheck mala = run_ais(path, Mala(0.2), 3000, 200, 2);
    expect_agrees(mala, exact, 0.1, "AIS-MALA " + name);
    EXPECT_NEAR(mala.estimate, run_ais(path, Hmc(0.2, 1), 3000, 200, 2).estimate, 1e-9) << name;
    expect_agrees(run_ais(path, Barker(0.2), 3000, 200, 6), exact, 0.1, "AIS-Barker " + name);
  }
}

// Single precision filter products (works still in double): the same agreement, on the
// complete 36-d Laplace product of the paper's run and a 6-d Student-t one.
TEST(AisLogZ, ProductsOfExpertsInSinglePrecision) {
  const double gamma = Hais::half_life_refresh(0.2, 1);
  const ProductOfExperts laplace =
      ProductOfExperts::random(ExpertType::laplace, 36, 36, 1).with_single_precision();
  const GeometricPath path36(GaussianBase::isotropic(36, 1.5), laplace);
  expect_agrees(run_ais(path36, Hais(0.2, gamma), 3000, 200, 4), *laplace.exact_log_z(), 0.1,
                "HAIS laplace 36 float");
  expect_agrees(
      run_ais(path36, Hais(0.2, gamma).with_normals(NormalPrecision::single), 3000, 200, 5),
      *laplace.exact_log_z(), 0.1, "HAIS laplace 36 float, single-precision normals");
  ProductOfExperts t = ProductOfExperts::random(ExpertType::student_t, 6, 6, 100);
  t = ProductOfExperts(ExpertType::student_t, t.phi(), (t.lambda().array() * 1.2 + 0.6).matrix())
          .with_single_precision();
  const GeometricPath path6(GaussianBase::isotropic(6, 2.0), t);
  expect_agrees(run_ais(path6, Hais(0.2, gamma), 1000, 200, 1), *t.exact_log_z(), 0.05,
                "HAIS student_t float");
}

TEST(AisLogZ, LinearGaussianPerDataPoint) {
  const auto model = LinearGenerative::random(6, 3, 0.1, PriorType::gaussian, 200);
  Eigen::MatrixXd data(6, 3);
  model.sample_data(data, BatchRandom{201, Purpose::test, 0, 0});

  for (int i = 0; i < 2; ++i) {
    // The posterior is narrow (sd about 0.07): eps = 0.1 and many temperatures.
    const LinearGenerativePosterior post(model, data.col(i));
    const GeometricPath path(GaussianBase::isotropic(3, 1.0), post);
    const double exact = *model.exact_log_likelihood(data.col(i));
    expect_agrees(run_ais(path, Hais(0.1, Hais::half_life_refresh(0.1, 1)), 10000, 100, 10 + i),
                  exact, 0.08, "HAIS linear-Gaussian x" + std::to_string(i));
  }
}

TEST(AisLogZ, ZeroBasisSanityCheck) {
  // Phi = 0: p(x) = N(x; 0, sigma_n^2 I) whatever the prior (the paper's eq. 41).
  for (auto prior : {PriorType::gaussian, PriorType::laplace}) {
    const LinearGenerative model(Eigen::MatrixXd::Zero(4, 3), 0.1, prior);
    const Eigen::Vector4d x(0.05, -0.1, 0.02, 0.13);
    const double exact = -x.squaredNorm() / (2 * 0.01) - 2.0 * std::log(2 * M_PI * 0.01);
    const LinearGenerativePosterior post(model, x);
    const GeometricPath path(GaussianBase::isotropic(3, 1.0), post);
    const auto c = run_ais(path, Hais(0.2, Hais::half_life_refresh(0.2, 1)), 500, 100, 7);
    if (prior == PriorType::gaussian) {
      // Base = prior: every work is the same constant, the estimate exact to rounding.
      EXPECT_NEAR(c.estimate, exact, 1e-9);
    } else {
      expect_agrees(c, exact, 0.05, "HAIS Phi=0 Laplace prior");
    }
  }
}

}  // namespace
}  // namespace logz
