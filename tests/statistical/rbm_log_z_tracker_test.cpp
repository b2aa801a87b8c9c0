// Tracking log Z while an RBM's parameters change: a tiny RBM moved in 400 small steps along a
// line between two parameter sets, the tracker (reweighting, 5 Gibbs sweeps, eq. 24 per step)
// compared with exact enumeration along the way.
//
// Tolerance: 0.4 nat at every checkpoint, while log Z itself moves by 7.7 nats. Over seeds 5, 6
// and 7 the tracking errors at the four checkpoints (5 sweeps per step) had both signs and an
// RMS of 0.08 nat (1 sweep per step: 0.17), so 0.4 is 5 RMS.
#include "logz/training/rbm_log_z_tracker.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "logz/core/error.hpp"
#include "logz/exact/rbm_enumeration.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/random/philox.hpp"

namespace {

logz::RbmParameters random_rbm(std::uint64_t seed, double scale) {
  logz::RbmParameters p{Eigen::MatrixXd(10, 6), Eigen::VectorXd(10), Eigen::VectorXd(6)};
  logz::RandomStream s(seed, 0, logz::Purpose::test, 0);
  for (Eigen::Index i = 0; i < p.W.size(); ++i) p.W.data()[i] = scale * s.normal();
  for (Eigen::Index i = 0; i < 10; ++i) p.a(i) = 0.5 * s.normal();
  for (Eigen::Index j = 0; j < 6; ++j) p.b(j) = 0.5 * s.normal();
  return p;
}

logz::RbmParameters mix(const logz::RbmParameters& x, const logz::RbmParameters& y, double t) {
  return {(1 - t) * x.W + t * y.W, (1 - t) * x.a + t * y.a, (1 - t) * x.b + t * y.b};
}

TEST(RbmLogZTracker, FollowsAChangingRbm) {
  const logz::RbmParameters from = random_rbm(1, 0.3), to = random_rbm(2, 1.2);
  logz::RbmBase base = logz::uniform_rbm_base(10);
  logz::RbmLogZTrackerOptions o;
  o.num_temperatures = 20;
  o.num_chains = 100;
  o.chunk_size = 25;
  o.seed = 5;
  o.single_precision = false;
  o.sweeps = 5;
  logz::RbmLogZTracker tracker(from, base, o);
  ASSERT_TRUE(tracker.initialize());
  EXPECT_NEAR(tracker.log_z(), logz::exact::rbm_log_z(from), 0.1);
  const int steps = 400;
  double moved = 0.0;
  for (int u = 1; u <= steps; ++u) {
    const logz::RbmParameters p = mix(from, to, static_cast<double>(u) / steps);
    tracker.update(p);
    if (u % 100 == 0) {
      const double exact = logz::exact::rbm_log_z(p);
      moved = exact - logz::exact::rbm_log_z(from);
      EXPECT_NEAR(tracker.log_z(), exact, 0.4) << "after " << u << " steps";
      std::printf("step %d: tracked %.4f exact %.4f\n", u, tracker.log_z(), exact);
    }
  }
  EXPECT_GT(std::abs(moved), 2.0);  // the test follows a real change
  EXPECT_EQ(tracker.steps(), static_cast<std::size_t>(steps));
}

TEST(RbmLogZTracker, RejectsNonFiniteParameters) {
  const logz::RbmParameters p = random_rbm(1, 0.3);
  logz::RbmLogZTracker tracker(p, logz::uniform_rbm_base(10), {});
  logz::RbmParameters bad = p;
  bad.W(0, 0) = std::nan("");
  EXPECT_THROW(tracker.update(bad), logz::NumericalError);
}

}  // namespace
