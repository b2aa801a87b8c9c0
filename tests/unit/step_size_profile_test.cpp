// Step sizes that follow the annealing path (kernels/step_size_profile.hpp) and the pilot that
// measures them (services/families/continuous_family.hpp): the profile's interpolation and its
// checks, a one-knot profile giving the bits of the plain kernel in both directions, and the
// pilot keeping annealing moving from N(0, I) to a target a hundred times narrower, where the
// configured step size freezes it.
#include "logz/kernels/step_size_profile.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "logz/anneal/annealer.hpp"
#include "logz/core/error.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "services/families/continuous_family.hpp"

namespace logz {
namespace {

TEST(StepSizeProfile, IsLogLinearBetweenKnotsAndConstantBeyond) {
  const StepSizeProfile p({0.1, 0.5, 1.0}, {1.0, 0.01, 0.04});
  EXPECT_EQ(p.at(0.0), 1.0);
  EXPECT_EQ(p.at(0.1), 1.0);
  EXPECT_EQ(p.at(0.5), 0.01);          // a knot: its own value, bit for bit
  EXPECT_NEAR(p.at(0.3), 0.1, 1e-15);  // halfway in log between 1 and 0.01
  EXPECT_NEAR(p.at(0.75), 0.02, 1e-15);
  EXPECT_EQ(p.at(1.0), 0.04);
  EXPECT_EQ(StepSizeProfile(0.3).at(0.7), 0.3);
  EXPECT_THROW(StepSizeProfile({0.1, 0.1}, {1.0, 1.0}), InvalidArgument);
  EXPECT_THROW(StepSizeProfile({0.1, 0.2}, {1.0}), InvalidArgument);
  EXPECT_THROW(StepSizeProfile({0.1}, {0.0}), InvalidArgument);
  EXPECT_THROW(StepSizeProfile({0.1}, {std::nan("")}), InvalidArgument);
  EXPECT_THROW(StepSizeProfile(std::vector<double>{}, std::vector<double>{}), InvalidArgument);
}

using NarrowingPath = GeometricPath<GaussianBase, GaussianBase>;

NarrowingPath narrowing_path(int dim, double sigma) {
  return NarrowingPath(GaussianBase::isotropic(dim, 1.0), GaussianBase::isotropic(dim, sigma));
}

AnnealOptions options(std::size_t paths) {
  AnnealOptions o;
  o.num_paths = paths;
  o.chunk_size = 16;
  o.threads = 2;
  o.seed = 7;
  return o;
}

TEST(ProfiledStepSize, OneKnotGivesThePlainKernelsBitsInBothDirections) {
  const auto path = narrowing_path(5, 0.3);
  ContinuousKernelOptions o;
  o.step_size = 0.15;
  o.half_life = 1.0;
  const ProfiledStepSize<Hais> profiled(o, std::make_shared<const StepSizeProfile>(0.15));
  const Hais plain = Hais::from_options(o, 0.15);
  const Schedule s = linear_schedule(40);
  const Works a = anneal_forward(path, profiled, s, options(64));
  const Works b = anneal_forward(path, plain, s, options(64));
  EXPECT_EQ(a.works, b.works);
  EXPECT_TRUE(profiled.reversed().at(0.5).refresh_first());
  EXPECT_FALSE(profiled.at(0.5).refresh_first());
}

TEST(ProfiledStepSize, PerTemperaturePilotKeepsAnnealingMovingToANarrowTarget) {
  // N(0, I) to N(0, 0.1^2 I) in 10 dimensions: log(Z1/Z0) = 10 log 0.1. The fixed step size
  // 0.2 is two target sds, the leapfrog's limit of stability: nothing is accepted near t = 1.
  const int dim = 10;
  const double sigma = 0.1, exact = dim * std::log(sigma);
  const auto path = narrowing_path(dim, sigma);
  const Schedule schedule = geometric_schedule(1000);
  continuous::KernelSettings ks;
  ks.type = "hais";
  ks.gamma = 0.5;  // as read_kernel sets it under per_temperature
  ks.tuning = StepSizeTuning::per_temperature;
  ks.rule.min_step = 1e-8;
  ks.rule.max_step = 1e4;
  continuous::run_pilot(path, ks, schedule, 7, 1000);
  ASSERT_TRUE(ks.profile);
  // The last knot near the narrow target's scale (HAIS with one leapfrog step at acceptance
  // 0.9: a fraction of sigma), the first near the base's.
  EXPECT_LT(ks.profile->at(1.0), sigma);
  EXPECT_GT(ks.profile->at(1.0), 0.2 * sigma);
  EXPECT_GT(ks.profile->step_sizes().front(), 0.1);
  const AnnealOptions o = options(256);
  Works fixed, tuned;
  continuous::KernelSettings plain = ks;
  plain.profile.reset();
  continuous::with_annealing_kernel<NarrowingPath>(
      plain, [&](const auto& k) { fixed = anneal_forward(path, k, schedule, o); });
  continuous::with_annealing_kernel<NarrowingPath>(
      ks, [&](const auto& k) { tuned = anneal_forward(path, k, schedule, o); });
  const std::size_t last = schedule.num_steps() - 1;  // the last temperature with moves
  EXPECT_LT(fixed.acceptance[last], 0.05);
  EXPECT_GT(tuned.acceptance[last], 0.7);
  const Estimate e = ais(tuned.works);
  // z = 5 on the estimate's SE; a bias allowance of 0.05 nat (AIS's log of a mean weight is
  // biased low by about SE^2 / 2: below 0.005 at SE < 0.1).
  EXPECT_LT(e.std_error, 0.1);
  EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + 0.05)
      << "log Z " << e.log_z << " +- " << e.std_error << ", exact " << exact;
}

}  // namespace
}  // namespace logz
