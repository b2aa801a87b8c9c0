// Hamiltonian machinery, deterministic tier: leapfrog reversibility (also with reflections),
// O(eps^2) energy error, gradient-call accounting, the momentum-refresh rule, the tutorial's
// step-size rule, the ESS estimator on series with known autocorrelation time, and
// bitwise-identical results for any thread count.
#include "logz/kernels/hmc.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <atomic>
#include <cmath>

#include "logz/anneal/annealer.hpp"
#include "logz/core/error.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/leapfrog.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/kernels/reflection.hpp"
#include "logz/models/box_constraints.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/laplace_base.hpp"
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/samplers/hmc_sampler.hpp"

namespace logz {
namespace {

Eigen::MatrixXd normals(int rows, int cols, std::uint64_t seed) {
  Eigen::MatrixXd m(rows, cols);
  RandomStream s(seed, 0, Purpose::test, 0);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = s.normal();
  return m;
}

// A Gaussian target with linear constraints (for reflection tests).
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
static_assert(ConstrainedTarget<ConstrainedGaussian>);

// Counts energy_and_grad calls.
struct CountingTarget {
  GaussianBase g = GaussianBase::isotropic(3, 1.0);
  mutable int grad_calls = 0, energy_calls = 0;
  int dim() const { return 3; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    ++energy_calls;
    g.energy(X, e);
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    ++grad_calls;
    g.energy_and_grad(X, e, G);
  }
};

template <class T>
double roundtrip_error(const T& target, Eigen::MatrixXd X0, Eigen::MatrixXd V0, double eps,
                       int steps) {
  Eigen::MatrixXd X = X0, V = V0;
  EnergyParts parts;
  evaluate_parts(target, X, parts, true);
  leapfrog(target, X, V, parts, eps, steps);
  V = -V;
  leapfrog(target, X, V, parts, eps, steps);
  V = -V;
  return std::max((X - X0).cwiseAbs().maxCoeff(), (V - V0).cwiseAbs().maxCoeff());
}

TEST(Leapfrog, IsReversibleToRounding) {
  const auto poe = ProductOfExperts::random(ExpertType::student_t, 5, 8, 1);
  EXPECT_LT(roundtrip_error(poe, normals(5, 10, 2), normals(5, 10, 3), 0.1, 20), 1e-12);
  const GeometricPath path(GaussianBase::isotropic(5, 2.0),
                           ProductOfExperts::random(ExpertType::laplace, 5, 5, 4));
  EXPECT_LT(roundtrip_error(path.at(0.6), normals(5, 10, 5), normals(5, 10, 6), 0.05, 30), 1e-12);
}

TEST(Leapfrog, IsReversibleWithReflections) {
  // x >= 0 in every coordinate plus the slanted face x0 + 2 x1 >= 1.
  ConstrainedGaussian t{GaussianBase::isotropic(3, 1.0), LinearConstraints::nonnegative(3)};
  t.c.A.conservativeResize(4, 3);
  t.c.b.conservativeResize(4);
  t.c.A.row(3) = Eigen::RowVector3d(1.0, 2.0, 0.0);
  t.c.b(3) = 1.0;
  Eigen::MatrixXd X = normals(3, 20, 7).cwiseAbs();
  X.row(1).array() += 0.6;  // inside the slanted face
  Eigen::MatrixXd V = 3.0 * normals(3, 20, 8);
  EnergyParts parts;
  evaluate_parts(t, X, parts, true);
  Eigen::MatrixXd Xf = X, Vf = V;
  const auto reflections = leapfrog(t, Xf, Vf, parts, 0.2, 25);
  EXPECT_GT(reflections, 20u);
  for (int p = 0; p < 20; ++p) EXPECT_GE(t.c.min_slack(Xf.col(p)), -1e-12);
  EXPECT_LT(roundtrip_error(t, X, V, 0.2, 25), 1e-11);
}

TEST(Reflection, BilliardInAWedgeStaysInsideAndReverses) {
  LinearConstraints c;
  c.A.resize(2, 2);
  c.A << 1.0, 0.3, -0.2, 1.0;
  c.b = Eigen::Vector2d(0.0, 0.0);
  Eigen::Vector2d x(0.5, 0.2), v(-3.0, -2.5);
  const Eigen::Vector2d x0 = x, v0 = v;
  const int n = reflected_drift(c, x, v, 1.0);
  EXPECT_GE(n, 1);
  EXPECT_GE(c.min_slack(x), -1e-12);
  EXPECT_NEAR(v.norm(), v0.norm(), 1e-12);  // reflections keep the kinetic energy
  v = -v;
  reflected_drift(c, x, v, 1.0);
  EXPECT_LT((x - x0).norm(), 1e-12);
  EXPECT_LT((-v - v0).norm(), 1e-12);
}

TEST(Reflection, CoordinateFacesAreRecognisedOnlyWhereEachFaceBoundsOneCoordinate) {
  const auto faces = CoordinateFaces::of(LinearConstraints::nonnegative(3));
  ASSERT_TRUE(faces.has_value());
  EXPECT_EQ(faces->face_of, (std::vector<int>{0, 1, 2}));
  LinearConstraints slanted;
  slanted.A = (Eigen::MatrixXd(1, 2) << 1.0, 0.3).finished();
  slanted.b = Eigen::VectorXd::Zero(1);
  EXPECT_FALSE(CoordinateFaces::of(slanted).has_value());
  LinearConstraints box;  // 0 <= x0 <= 1: two faces on one coordinate
  box.A = (Eigen::MatrixXd(2, 1) << 1.0, -1.0).finished();
  box.b = Eigen::Vector2d(0.0, -1.0);
  EXPECT_FALSE(CoordinateFaces::of(box).has_value());
  // Indexed once where the constraints are made, so that kernels need not scan them per step.
  EXPECT_NE(LinearConstraints::nonnegative(3).coordinate_faces, nullptr);
  EXPECT_NE(LaplaceBase(2, 3).constraints()->coordinate_faces, nullptr);
  box.index_faces();
  EXPECT_EQ(box.coordinate_faces, nullptr);
}

TEST(Reflection, CoordinateFacesFollowTheGeneralBilliard) {
  // x0 >= 0, x2 <= 1.5 and 2 x3 >= -1 in 4 dimensions (x1 free): the O(d) path against the
  // search over faces, from random points inside with momenta large enough to reflect.
  LinearConstraints c;
  c.A = Eigen::MatrixXd::Zero(3, 4);
  c.A(0, 0) = 1.0, c.A(1, 2) = -1.0, c.A(2, 3) = 2.0;
  c.b = Eigen::Vector3d(0.0, -1.5, -1.0);
  const auto faces = CoordinateFaces::of(c);
  ASSERT_TRUE(faces.has_value());
  const Eigen::MatrixXd X = normals(4, 500, 12), V = 3.0 * normals(4, 500, 13);
  int total = 0;
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    Eigen::VectorXd x = X.col(p), v = V.col(p);
    x(0) = std::abs(x(0)), x(2) = std::min(x(2), 1.5), x(3) = std::max(x(3), -0.5);
    Eigen::VectorXd xg = x, vg = v;
    const int n = reflected_drift(*faces, x, v, 0.7);
    EXPECT_EQ(n, reflected_drift(c, xg, vg, 0.7)) << p;
    EXPECT_LT((x - xg).cwiseAbs().maxCoeff(), 1e-12) << p;
    EXPECT_LT((v - vg).cwiseAbs().maxCoeff(), 1e-12) << p;
    EXPECT_GE(c.min_slack(x), -1e-12) << p;
    total += n;
  }
  EXPECT_GT(total, 300);
}

TEST(Reflection, ABoxInWhitenedCoordinatesFollowsTheGeneralBilliard) {
  // A box in 5 dimensions seen through x = m + L z (dense L, then diagonal): the batch of drifts
  // with the faces' products (A A^T) and the slacks taken through the map against the plain
  // search, one particle at a time, from points inside with momenta large enough to reflect.
  const int d = 5;
  const Eigen::VectorXd low = Eigen::VectorXd::Constant(d, -1.0),
                        high = Eigen::VectorXd::Constant(d, 2.0);
  const auto box = box_constraints(low, high);
  for (const bool dense : {true, false}) {
    const Eigen::VectorXd m = 0.1 * normals(d, 1, 30).col(0);
    Eigen::MatrixXd L = Eigen::MatrixXd::Zero(d, d);
    Eigen::VectorXd scale = (0.3 + normals(d, 1, 31).col(0).cwiseAbs().array()).matrix();
    if (dense) {
      L = (0.3 * normals(d, d, 32)).triangularView<Eigen::StrictlyLower>();
      L.diagonal() = scale;
    }
    const Eigen::MatrixXd Lfull = dense ? L : Eigen::MatrixXd(scale.asDiagonal());
    LinearConstraints z;
    z.A = box->A * Lfull;
    z.b = box->b - box->A * m;
    LinearConstraints plain = z;  // neither the products nor the map: A v after every reflection
    z.index_faces();
    ASSERT_EQ(z.coordinate_faces, nullptr);
    ASSERT_EQ(z.face_gram.rows(), 2 * d);
    auto map = CoordinateFacesThroughMap::of(*box, m, dense ? L : Eigen::MatrixXd(), scale);
    ASSERT_TRUE(map.has_value());
    z.through_map = std::make_shared<const CoordinateFacesThroughMap>(std::move(*map));
    // Inside: x uniform in the box, z = L^-1 (x - m).
    Eigen::MatrixXd X = (normals(d, 300, 33).array().tanh() * 1.5 + 0.5).matrix();
    X.colwise() -= m;
    const Eigen::MatrixXd Z = Lfull.triangularView<Eigen::Lower>().solve(X);
    const Eigen::MatrixXd V = 4.0 * normals(d, 300, 34);
    Eigen::MatrixXd Zb = Z, Vb = V;
    Eigen::MatrixXd slack;
    const std::uint64_t batch = reflected_drifts(z, Zb, Vb, 0.7, slack);
    // The slacks it leaves are those at the drifts' ends.
    Eigen::MatrixXd end_slack = plain.A * Zb;
    end_slack.colwise() -= plain.b;
    EXPECT_LT((slack - end_slack).cwiseAbs().maxCoeff(), 1e-10);
    std::uint64_t total = 0;
    for (Eigen::Index p = 0; p < Z.cols(); ++p) {
      Eigen::VectorXd x = Z.col(p), v = V.col(p);
      total += static_cast<std::uint64_t>(reflected_drift(plain, x, v, 0.7));
      EXPECT_LT((x - Zb.col(p)).cwiseAbs().maxCoeff(), 1e-10) << p;
      EXPECT_LT((v - Vb.col(p)).cwiseAbs().maxCoeff(), 1e-10) << p;
      EXPECT_GE(plain.min_slack(Zb.col(p)), -1e-10) << p;
    }
    EXPECT_EQ(batch, total);
    EXPECT_GT(total, 200u) << dense;
  }
}

TEST(Leapfrog, IsReversibleWithCoordinateFaces) {
  ConstrainedGaussian t{GaussianBase::isotropic(3, 1.0), LinearConstraints::nonnegative(3)};
  const Eigen::MatrixXd X = normals(3, 20, 14).cwiseAbs(), V = 3.0 * normals(3, 20, 15);
  EnergyParts parts;
  evaluate_parts(t, X, parts, true);
  Eigen::MatrixXd Xf = X, Vf = V;
  EXPECT_GT(leapfrog(t, Xf, Vf, parts, 0.2, 25), 20u);
  for (int p = 0; p < 20; ++p) EXPECT_GE(t.c.min_slack(Xf.col(p)), -1e-12);
  EXPECT_LT(roundtrip_error(t, X, V, 0.2, 25), 1e-11);
}

TEST(Leapfrog, EnergyErrorIsSecondOrder) {
  // Over a fixed time T = 1, halving eps must divide the energy error by about 4.
  Eigen::MatrixXd cov(3, 3);
  cov << 1.0, 0.5, 0.2, 0.5, 2.0, 0.3, 0.2, 0.3, 0.5;
  const GaussianBase g(Eigen::VectorXd::Zero(3), cov);
  const auto poe = ProductOfExperts::random(ExpertType::student_t, 3, 3, 9);
  auto mean_error = [&](const auto& target, double eps) {
    Eigen::MatrixXd X = normals(3, 200, 10), V = normals(3, 200, 11);
    EnergyParts parts;
    evaluate_parts(target, X, parts, true);
    Eigen::VectorXd h0 = parts.e.row(0).transpose() + 0.5 * V.colwise().squaredNorm().transpose();
    leapfrog(target, X, V, parts, eps, static_cast<int>(std::lround(1.0 / eps)));
    Eigen::VectorXd h1 = parts.e.row(0).transpose() + 0.5 * V.colwise().squaredNorm().transpose();
    return (h1 - h0).cwiseAbs().mean();
  };
  for (double eps : {0.1, 0.05}) {
    const double ratio_g = mean_error(g, eps) / mean_error(g, eps / 2);
    const double ratio_p = mean_error(poe, eps) / mean_error(poe, eps / 2);
    EXPECT_NEAR(ratio_g, 4.0, 0.4) << eps;
    EXPECT_NEAR(ratio_p, 4.0, 0.6) << eps;
  }
}

TEST(Hmc, OneMoveWithLLeapfrogStepsCostsLPlusOneGradients) {
  CountingTarget t;
  ContinuousBatch b(3, 4);
  b.X = normals(3, 4, 12);
  const Hmc hmc(0.1, 7);
  hmc.step(t, b, BatchRandom{1, Purpose::test, 0, 0});
  EXPECT_EQ(t.grad_calls, 8);  // the start point's gradient, then one per leapfrog step
  EXPECT_EQ(t.energy_calls, 0);
  hmc.step(t, b, BatchRandom{1, Purpose::test, 1, 0});
  EXPECT_EQ(t.grad_calls, 15);  // the start point is cached from the last move
}

// The same Gaussian with its gradient alone as well (as logz.evidence's likelihood, whose log L
// and gradient are two functions): the leapfrog's inner steps call it.
struct CountingTargetWithGradient : CountingTarget {
  mutable int grad_alone_calls = 0;
  void grad(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
    ++grad_alone_calls;
    Eigen::VectorXd e;
    g.energy_and_grad(X, e, G);
  }
};
static_assert(GradientAlone<CountingTargetWithGradient>);

TEST(Hmc, InnerLeapfrogStepsAskForTheGradientAloneWhereTheTargetHasOne) {
  CountingTarget plain;
  CountingTargetWithGradient alone;
  ContinuousBatch a(3, 4), b(3, 4);
  a.X = b.X = normals(3, 4, 12);
  const Hmc hmc(0.1, 7);
  hmc.step(plain, a, BatchRandom{1, Purpose::test, 0, 0});
  hmc.step(alone, b, BatchRandom{1, Purpose::test, 0, 0});
  // The start point and the end with energies, the six steps between with the gradient alone.
  EXPECT_EQ(alone.grad_calls, 2);
  EXPECT_EQ(alone.grad_alone_calls, 6);
  EXPECT_EQ(plain.grad_calls, 8);
  // The same trajectory, to the bit, and the end's parts carry their energies.
  EXPECT_EQ(a.X, b.X);
  EXPECT_EQ(a.V, b.V);
  EXPECT_TRUE(parts_valid_for(alone, b.parts, true));
  EXPECT_EQ(a.parts.e, b.parts.e);
  // Two-part targets (a geometric path) pass the gradient alone on, part by part.
  const GaussianBase base = GaussianBase::isotropic(3, 2.0);
  const GeometricPath<GaussianBase, CountingTargetWithGradient> path(base, alone);
  EnergyParts parts;
  evaluate_part_grads(path.at(0.4), a.X, parts);
  EXPECT_FALSE(parts.has_energy);
  EXPECT_FALSE(parts_valid_for(path.at(0.4), parts, true));
  EnergyParts full;
  evaluate_parts(path.at(0.4), a.X, full, true);
  EXPECT_EQ(parts.g[0], full.g[0]);
  EXPECT_EQ(parts.g[1], full.g[1]);
}

TEST(Hais, AnnealingCostsOneEvaluationPerTemperature) {
  // Geometric path, HAIS with one leapfrog step: the parts cached in the batch make each
  // temperature one energy-and-gradient call of base and target, plus one at the start.
  struct CountingPoe {
    ProductOfExperts poe = ProductOfExperts::random(ExpertType::laplace, 3, 3, 13);
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    int dim() const { return 3; }
    void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const { ++*calls, poe.energy(X, e); }
    void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
      ++*calls, poe.energy_and_grad(X, e, G);
    }
  };
  CountingPoe target;
  auto calls = target.calls;
  const GeometricPath path(GaussianBase::isotropic(3, 1.0), target);
  AnnealOptions o;
  o.num_paths = 4;
  o.chunk_size = 4;
  o.threads = 1;
  anneal_forward(path, Hais(0.2, 0.5), linear_schedule(50), o);
  // sample_base: 1 energy; first kernel step: 1 gradient at the start; 49 kernel steps: 49.
  EXPECT_EQ(calls->load(), 1 + 1 + 49);
}

TEST(Hais, HalfLifeRule) {
  const double g = Hais::half_life_refresh(0.2, 1);
  EXPECT_NEAR(g, 1.0 - std::pow(2.0, -0.2), 1e-15);
  EXPECT_NEAR(std::pow(1.0 - g, 1.0 / 0.2), 0.5, 1e-12);  // half the power per unit time
  EXPECT_NEAR(Hais::half_life_refresh(0.1, 4, 2.0), 1.0 - std::pow(2.0, -0.2), 1e-15);
  EXPECT_THROW(Hais(0.2, 0.0), InvalidArgument);
  EXPECT_THROW(Hais(0.2, 1.5), InvalidArgument);
  EXPECT_THROW(Hmc(0.0, 1), InvalidArgument);
  EXPECT_THROW(RandomWalkMetropolis(-1.0), InvalidArgument);
  const Hais h(0.2, 0.3);
  EXPECT_TRUE(h.reversed().refresh_first());
  EXPECT_FALSE(h.reversed().reversed().refresh_first());
}

TEST(StepSizeAdaptation, FollowsTheTutorialRule) {
  const StepSizeAdaptation a;
  double eps = 0.01, avg = 0.9;
  a.update(eps, avg, 1.0);  // avg 0.91 > 0.9: increase
  EXPECT_NEAR(avg, 0.91, 1e-15);
  EXPECT_NEAR(eps, 0.0102, 1e-15);
  a.update(eps, avg, 0.0);  // avg 0.819: decrease
  EXPECT_NEAR(avg, 0.819, 1e-15);
  EXPECT_NEAR(eps, 0.0102 * 0.98, 1e-15);
  eps = 0.25;
  avg = 1.0;
  a.update(eps, avg, 1.0);
  EXPECT_EQ(eps, 0.25);  // clipped at the maximum
  eps = 0.001;
  avg = 0.0;
  a.update(eps, avg, 0.0);
  EXPECT_EQ(eps, 0.001);
}

TEST(EffectiveSampleSize, KnownAutocorrelationTimes) {
  const std::size_t n = 20000, m = 4;
  std::vector<double> iid(n * m), ar(n * m);
  const double phi = 0.6;  // AR(1): tau = (1 + phi) / (1 - phi) = 4
  for (std::size_t c = 0; c < m; ++c) {
    RandomStream s(3, c, Purpose::test, 0);
    double y = s.normal() / std::sqrt(1 - phi * phi);
    for (std::size_t t = 0; t < n; ++t) {
      iid[t * m + c] = s.normal();
      y = phi * y + s.normal();
      ar[t * m + c] = y;
    }
  }
  const double total = static_cast<double>(n * m);
  EXPECT_NEAR(effective_sample_size(iid.data(), n, m, m, 1) / total, 1.0, 0.08);
  EXPECT_NEAR(effective_sample_size(ar.data(), n, m, m, 1) / (total / 4.0), 1.0, 0.12);
  EXPECT_TRUE(std::isnan(effective_sample_size(iid.data(), 3, m, m, 1)));
}

TEST(HmcSampler, SameDrawsForAnyThreadCount) {
  const auto poe = ProductOfExperts::random(ExpertType::student_t, 3, 3, 14);
  HmcSamplerOptions o;
  o.burn_in = 20;
  o.num_draws = 30;
  o.leapfrog_steps = 5;
  o.chunk_size = 2;
  const Eigen::MatrixXd init = normals(3, 7, 15);
  o.threads = 1;
  const auto a = sample_hmc(poe, init, o);
  o.threads = 3;
  const auto b = sample_hmc(poe, init, o);
  EXPECT_EQ(a.draws, b.draws);
  EXPECT_EQ(a.final_step_size, b.final_step_size);
  EXPECT_EQ(a.step_size_trace.size(), 50u);
}

TEST(Annealing, HaisWorksAreBitwiseEqualForAnyThreadCount) {
  const GeometricPath path(GaussianBase::isotropic(4, 1.0),
                           ProductOfExperts::random(ExpertType::student_t, 4, 6, 16));
  AnnealOptions o;
  o.num_paths = 13;
  o.chunk_size = 3;
  o.seed = 5;
  std::vector<double> ref;
  for (int threads : {1, 2, 3, 8}) {
    o.threads = threads;
    const Works w =
        anneal_forward(path, Hais(0.2, Hais::half_life_refresh(0.2, 1)), linear_schedule(40), o);
    const Works r = anneal_reverse(
        path, RandomWalkMetropolis(0.3), linear_schedule(40),
        [&](ContinuousBatch& b, const ChunkStreams& streams) {
          path.sample_base(b, streams.random(0));
        },
        o);
    std::vector<double> all = w.works;
    all.insert(all.end(), r.works.begin(), r.works.end());
    if (ref.empty()) ref = all;
    EXPECT_EQ(all, ref) << threads;
  }
}

}  // namespace
}  // namespace logz
