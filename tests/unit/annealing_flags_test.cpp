// The flags annealing puts on its estimates (services/annealing_flags.hpp): frozen_sampler from
// the kernel's per-temperature acceptance, for the kernels whose acceptance measures their step
// size only; reverse_starts_resampled on the estimates that read reverse works.
#include "logz/services/annealing_flags.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>

#include "logz/anneal/annealer.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/ising.hpp"
#include "logz/paths/geometric_path.hpp"

namespace logz {
namespace {

// N(0, sd^2 I) in `dim` dimensions, as a continuous target.
struct AnnealingFlagsNarrowGaussian {
  int d;
  double precision;
  int dim() const { return d; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    e = 0.5 * precision * X.colwise().squaredNorm().transpose();
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    energy(X, e);
    G = precision * X;
  }
};

Works annealing_flags_hais_run(double step_size) {
  // d = 50, from N(0, I) to N(0, 0.1^2 I): a leapfrog step of 0.2 is past the stability limit
  // 2 / sqrt(precision) = 0.2 near t = 1, a step of 0.02 is well inside it.
  const GeometricPath path(GaussianBase::isotropic(50, 1.0),
                           AnnealingFlagsNarrowGaussian{50, 100.0});
  AnnealOptions o;
  o.num_paths = 50;
  o.chunk_size = 25;
  o.seed = 3;
  o.threads = 1;
  return anneal_forward(path, Hais(step_size, Hais::half_life_refresh(step_size, 1)),
                        linear_schedule(200), o);
}

Works works_with_acceptance(std::vector<double> acceptance, std::uint64_t per_temperature) {
  Works w;
  const std::size_t n = acceptance.size();
  for (std::size_t k = 0; k < n; ++k) w.fractions.push_back(double(k) / double(n - 1));
  std::uint64_t ran = 0;
  for (double a : acceptance) ran += std::isfinite(a) ? 1 : 0;
  w.acceptance = std::move(acceptance);
  w.kernel_updates = ran * per_temperature;
  w.works = {0.0, 1.0};
  return w;
}

TEST(AnnealingFlags, TheContinuousKernelsAreCheckedTheLatticeAndGibbsKernelsNot) {
  EXPECT_TRUE(acceptance_tracks_step_size<Hais>);
  EXPECT_TRUE(acceptance_tracks_step_size<Hmc>);
  EXPECT_TRUE(acceptance_tracks_step_size<RandomWalkMetropolis>);
  EXPECT_FALSE(acceptance_tracks_step_size<HeatBath>);
  EXPECT_FALSE(acceptance_tracks_step_size<SpinFlipMetropolis>);
  EXPECT_FALSE(acceptance_tracks_step_size<RbmGibbs<double>>);
}

TEST(AnnealingFlags, FrozenWhereAWindowOfTemperaturesAcceptsBelowTheThreshold) {
  const double nan = kNaN;
  // 100 attempts per temperature: each temperature is its own window.
  const auto frozen =
      frozen_temperature(works_with_acceptance({nan, 0.9, 0.5, 0.01, 0.3, nan}, 100));
  ASSERT_TRUE(frozen.has_value());
  EXPECT_DOUBLE_EQ(frozen->fraction, 0.6);
  EXPECT_DOUBLE_EQ(frozen->acceptance, 0.01);
  EXPECT_FALSE(frozen_temperature(works_with_acceptance({nan, 0.9, 0.5, 0.06, nan}, 100)));
  // 2 attempts per temperature: one temperature with 0 of 2 accepted is chance, not a frozen
  // sampler; the windows of 50 temperatures average it away.
  std::vector<double> few(102, 0.5);
  few.front() = few.back() = nan;
  few[40] = 0.0;
  EXPECT_FALSE(frozen_temperature(works_with_acceptance(few, 2)));
  for (std::size_t k = 51; k <= 100; ++k) few[k] = 0.0;
  EXPECT_TRUE(frozen_temperature(works_with_acceptance(few, 2)));
  // No kernel ran: nothing to judge.
  EXPECT_FALSE(frozen_temperature(works_with_acceptance({nan, nan}, 0)));
}

TEST(AnnealingFlags, ATooLargeHaisStepFreezesAndIsFlaggedATunedOneIsNot) {
  const Works big = annealing_flags_hais_run(0.2);
  const auto frozen = frozen_temperature(big);
  ASSERT_TRUE(frozen.has_value());
  EXPECT_LT(frozen->acceptance, kFrozenAcceptance);
  EXPECT_LT(big.acceptance[big.acceptance.size() - 2], 0.01);  // near t = 1
  const Works tuned = annealing_flags_hais_run(0.02);
  EXPECT_FALSE(frozen_temperature(tuned).has_value());
  for (std::size_t k = 1; k + 1 < tuned.acceptance.size(); ++k) EXPECT_GT(tuned.acceptance[k], 0.5);

  std::vector<Estimate> estimates(1);
  estimates[0].method = "ais";
  flag_annealing_estimates(estimates, &big, nullptr, acceptance_tracks_step_size<Hais>, false);
  EXPECT_TRUE(estimates[0].diagnostics.has_flag("frozen_sampler"));
  ASSERT_EQ(estimates[0].diagnostics.values.size(), 2u);
  EXPECT_EQ(estimates[0].diagnostics.values[0].first, "frozen_at_t");
  std::vector<Estimate> tuned_estimates(1);
  tuned_estimates[0].method = "ais";
  flag_annealing_estimates(tuned_estimates, &tuned, nullptr, true, false);
  EXPECT_TRUE(tuned_estimates[0].diagnostics.flags.empty());
}

TEST(AnnealingFlags, HeatBathInAnOrderedPhaseChangesFewSpinsAndIsNotFlagged) {
  // beta = 1 on a 6 x 6 Ising lattice: heat-bath updates rarely change a spin near t = 1, which
  // is equilibrium, not a frozen sampler.
  const IsingModel model(6, 6, 1.0, 1.0);
  AnnealOptions o;
  o.num_paths = 20;
  o.seed = 1;
  o.threads = 1;
  const Works w =
      anneal_forward(model, HeatBath(SiteOrder::checkerboard, 2), linear_schedule(100), o);
  EXPECT_TRUE(frozen_temperature(w).has_value());  // what an unguarded check would say
  std::vector<Estimate> estimates(1);
  estimates[0].method = "ais";
  flag_annealing_estimates(estimates, &w, nullptr, acceptance_tracks_step_size<HeatBath>, false);
  EXPECT_FALSE(estimates[0].diagnostics.has_flag("frozen_sampler"));
}

TEST(AnnealingFlags, ResampledReverseStartsFlagTheEstimatesThatReadReverseWorks) {
  const double nan = kNaN;
  const Works f = works_with_acceptance({nan, 0.7, nan}, 100);
  Works r = f;
  r.direction = Direction::reverse;
  const auto run = [&](bool resampled) {
    std::vector<Estimate> estimates;
    for (const char* m : {"ais", "raise", "bar", "lower_bound", "upper_bound", "cumulant_forward",
                          "cumulant_reverse", "cumulant", "histogram", "crooks_crossing"}) {
      estimates.emplace_back();
      estimates.back().method = m;
    }
    flag_annealing_estimates(estimates, &f, &r, true, resampled);
    std::vector<std::string> flagged;
    for (const Estimate& e : estimates) {
      EXPECT_FALSE(e.diagnostics.has_flag("frozen_sampler")) << e.method;
      if (e.diagnostics.has_flag("reverse_starts_resampled")) flagged.push_back(e.method);
    }
    return flagged;
  };
  EXPECT_EQ(run(true), (std::vector<std::string>{"raise", "bar", "upper_bound", "cumulant_reverse",
                                                 "cumulant", "histogram", "crooks_crossing"}));
  EXPECT_TRUE(run(false).empty());
}

}  // namespace
}  // namespace logz
