// Adaptive schedules (anneal/adaptive_schedule.hpp): the placement at equal thermodynamic length
// on known spreads, and the pilot's measurement against an exact one: the first step of a
// forward path starts from exact base draws, so its work increment's sd is known.
#include "logz/anneal/adaptive_schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "logz/kernels/heat_bath.hpp"
#include "logz/models/ising.hpp"
#include "logz/parallel/chunk_streams.hpp"

namespace {

TEST(ConstantLengthSchedule, EqualSpreadsGiveTheLinearSchedule) {
  const auto pilot = logz::linear_schedule(10);
  const std::vector<double> sd(10, 0.7);
  const auto s = logz::constant_length_schedule(pilot.fractions(), sd, 40);
  ASSERT_EQ(s.size(), 41u);
  for (std::size_t k = 0; k <= 40; ++k) EXPECT_NEAR(s[k], k / 40.0, 1e-12);
}

TEST(ConstantLengthSchedule, TemperaturesGoWhereTheSpreadIs) {
  // The second quarter holds 3/4 of the length: 3/4 of the steps land there.
  const auto pilot = logz::linear_schedule(4);
  const std::vector<double> sd = {1.0, 3.0, 0.0, std::numeric_limits<double>::quiet_NaN()};
  const auto s = logz::constant_length_schedule(pilot.fractions(), sd, 400);
  int inside = 0;
  for (std::size_t k = 1; k <= 400; ++k) {
    EXPECT_GT(s[k], s[k - 1]);
    inside += s[k] > 0.25 && s[k] <= 0.5;
  }
  EXPECT_NEAR(inside, 300, 1);
  EXPECT_EQ(s[0], 0.0);
  EXPECT_EQ(s[400], 1.0);
  EXPECT_NEAR(logz::thermodynamic_length(sd), 4.0, 1e-15);  // zero and NaN spreads add nothing
}

TEST(ConstantLengthSchedule, NoSpreadAnywhereGivesTheLinearSchedule) {
  const auto pilot = logz::linear_schedule(5);
  const auto s = logz::constant_length_schedule(pilot.fractions(), std::vector<double>(5, 0.0), 7);
  for (std::size_t k = 0; k <= 7; ++k) EXPECT_NEAR(s[k], k / 7.0, 1e-15);
  EXPECT_THROW(logz::constant_length_schedule(pilot.fractions(), std::vector<double>(4, 1.0), 7),
               logz::InvalidArgument);
}

TEST(Pilot, MeasuresTheExactSpreadOfTheFirstStep) {
  // Uniform spins on a 6 x 6 torus: the 72 bond products are independent +-1, so Var(E) = 72
  // and the first increment, t_1 beta E, has sd t_1 beta sqrt(72).
  const logz::IsingModel model(6, 6, 1.0, 0.8);
  const logz::AdaptivePlan plan{50, 4000, 10};
  const auto pilot = logz::run_schedule_pilot(
      model, logz::HeatBath(logz::SiteOrder::checkerboard, 1), plan, 7, 2, 8);
  ASSERT_EQ(pilot.increment_sd.size(), 10u);
  const double exact = 0.1 * 0.8 * std::sqrt(72.0);
  // The sd of n draws has a standard error of about sd / sqrt(2 (n - 1)) (E is near Gaussian).
  EXPECT_NEAR(pilot.increment_sd[0], exact, 5 * exact / std::sqrt(2.0 * 3999));
  // Heat-bath sweeps at the 9 temperatures before the end: 36 site updates each per path.
  EXPECT_EQ(pilot.kernel_updates, 4000u * 9u * 36u);
}

TEST(Pilot, SameMeasurementForAnyThreadCountAndItsOwnSeed) {
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::AdaptivePlan plan{20, 37, 12};
  const logz::HeatBath kernel(logz::SiteOrder::checkerboard, 1);
  const auto one = logz::run_schedule_pilot(model, kernel, plan, 3, 1, 4);
  const auto three = logz::run_schedule_pilot(model, kernel, plan, 3, 3, 4);
  EXPECT_EQ(one.increment_sd, three.increment_sd);
  EXPECT_NE(logz::pilot_seed(3), 3u);
  EXPECT_NE(logz::pilot_seed(3), logz::pilot_seed(4));
}

}  // namespace

namespace {

TEST(Pilot, ReverseFromAStartAndCombinedByRootMeanSquare) {
  // Reverse paths started from uniform spins: their first step, from t = 1 to 0.9, adds
  // 0.1 beta E at those spins, whose sd is 0.1 beta sqrt(72) on a 6 x 6 torus. It is the pilot's
  // last interval.
  const logz::IsingModel model(6, 6, 1.0, 0.8);
  const logz::AdaptivePlan plan{50, 4000, 10, true};
  auto uniform_start = [&](logz::SpinBatch& batch, const logz::ChunkStreams& streams) {
    model.sample_base(batch, streams.random(0));
  };
  const logz::HeatBath kernel(logz::SiteOrder::checkerboard, 1);
  const auto reverse =
      logz::run_reverse_schedule_pilot(model, kernel, plan, 9, 2, 8, uniform_start);
  const double exact = 0.1 * 0.8 * std::sqrt(72.0);
  EXPECT_NEAR(reverse.increment_sd[9], exact, 5 * exact / std::sqrt(2.0 * 3999));
  EXPECT_EQ(reverse.kernel_updates, 4000u * 9u * 36u);
  const auto again = logz::run_reverse_schedule_pilot(model, kernel, plan, 9, 3, 8, uniform_start);
  EXPECT_EQ(reverse.increment_sd, again.increment_sd);
  const logz::PilotRun f{reverse.fractions, std::vector<double>(10, 3.0), 5};
  const logz::PilotRun r{reverse.fractions, std::vector<double>(10, 4.0), 7};
  const auto both = logz::combine_pilots(f, r);
  EXPECT_NEAR(both.increment_sd[3], std::sqrt(12.5), 1e-12);
  EXPECT_EQ(both.kernel_updates, 12u);
}

}  // namespace
