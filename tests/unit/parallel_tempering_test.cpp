// Parallel tempering (tempering/parallel_tempering.hpp): the ladder's adaptation, every level's
// stationary law (the mean energy of independent draws beside enumeration), log Z by stepping
// stone and MBAR beside Kaufman within their error bars, the same bits for any thread count, and
// the non-reversible round-trip rate beside Syed et al.'s prediction from the swap rejections.
#include "logz/tempering/parallel_tempering.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "logz/estimators/mbar.hpp"
#include "logz/estimators/stepping_stone.hpp"
#include "logz/exact/ising_enumeration.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/models/ising.hpp"

namespace parallel_tempering_test {

using logz::HeatBath;
using logz::IsingModel;
using logz::ParallelTemperingOptions;
using logz::ParallelTemperingResult;
using logz::SiteOrder;

ParallelTemperingResult pt_ising(const IsingModel& model, int sweeps,
                                 const ParallelTemperingOptions& o) {
  const HeatBath kernel(SiteOrder::checkerboard, sweeps);
  return logz::parallel_tempering(model, logz::pt_level_move(model, kernel), o);
}

TEST(ParallelTemperingLadder, EqualBarrierIncrements) {
  const std::vector<double> t = {0.0, 0.25, 0.5, 1.0};
  // Cumulative barrier 0, 0.1, 0.2, 1.0: thirds at 1/3 and 2/3 fall in the last pair.
  const auto next = logz::detail::equal_barrier_schedule(t, std::vector<double>{0.1, 0.1, 0.8}, 4);
  ASSERT_EQ(next.size(), 4u);
  EXPECT_DOUBLE_EQ(next[0], 0.0);
  EXPECT_NEAR(next[1], 0.5 + 0.5 * (1.0 / 3.0 - 0.2) / 0.8, 1e-12);
  EXPECT_NEAR(next[2], 0.5 + 0.5 * (2.0 / 3.0 - 0.2) / 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(next[3], 1.0);
  // Even rejections keep an even ladder, with more levels too; none at all as well.
  const auto even = logz::detail::equal_barrier_schedule(t, std::vector<double>{0.2, 0.2, 0.4}, 5);
  for (std::size_t j = 0; j < even.size(); ++j) EXPECT_NEAR(even[j], 0.25 * j, 1e-12);
  const auto none = logz::detail::equal_barrier_schedule(t, std::vector<double>{0, 0, 0}, 3);
  EXPECT_NEAR(none[1], 0.25 + 0.25 * 0.5, 1e-12);
  EXPECT_EQ(logz::detail::nearest_levels(t, std::vector<double>{0.0, 0.3, 0.9, 1.0}),
            (std::vector<std::size_t>{0, 1, 3, 3}));
}

// A bound on the last round's samples caps the ladder Lambda asks for, and says so.
TEST(ParallelTemperingLadder, TheLastLadderFitsTheSampleBudget) {
  ParallelTemperingOptions o;
  o.num_chains = 3;
  o.rounds = 5;
  o.seed = 2;
  const IsingModel model(16, 16, 1.0, 1.0);  // Lambda about 10: more than 9 replicas wanted
  const ParallelTemperingResult free = pt_ising(model, 1, o);
  const std::size_t wanted = free.last().schedule.size();
  ASSERT_GT(wanted, 9u);
  EXPECT_FALSE(free.capped_by_memory);
  o.max_sample_bytes = logz::detail::last_round_sample_bytes(o, 9, 32, false);
  const ParallelTemperingResult capped = pt_ising(model, 1, o);
  EXPECT_TRUE(capped.capped_by_memory);
  EXPECT_EQ(capped.last().schedule.size(), 9u);
  EXPECT_LE(capped.stats.sample_delta.size() * 16, o.max_sample_bytes);
  // Earlier rounds are as before: only the last ladder is capped.
  EXPECT_EQ(capped.rounds[3].schedule, free.rounds[3].schedule);
}

TEST(ParallelTemperingLadder, ReplicasFromTheBarrier) {
  ParallelTemperingOptions o;
  EXPECT_EQ(logz::detail::next_num_replicas(o, 0.5), logz::kMinAutoReplicas);
  EXPECT_EQ(logz::detail::next_num_replicas(o, 10.2), 22u);  // ceil(20.4) + 1
  o.max_replicas = 12;
  EXPECT_EQ(logz::detail::next_num_replicas(o, 10.2), 12u);
  o.num_replicas = 5;
  EXPECT_EQ(logz::detail::next_num_replicas(o, 10.2), 5u);
}

// Every level's law: the last scan of 4000 independent chains gives independent draws at each
// level (blocks_per_chain = scans: a pseudo-chain per scan); their mean energy against
// enumeration of the 4 x 4 torus at beta_k = t_k beta, within 5 standard errors.
TEST(ParallelTempering, EveryLevelsMeanEnergyMatchesEnumeration) {
  const double beta = 0.6;
  const IsingModel model(4, 4, 1.0, beta);
  ParallelTemperingOptions o;
  o.num_replicas = 6;
  o.rounds = 3;
  o.blocks_per_chain = 8;
  o.num_chains = 4000;
  o.chunk_size = 100;
  o.seed = 5;
  o.threads = 2;
  const ParallelTemperingResult r = pt_ising(model, 2, o);
  const auto& s = r.stats;
  const std::vector<double>& t = r.last().schedule;
  std::vector<double> sum(t.size(), 0.0), sq(t.size(), 0.0), n(t.size(), 0.0);
  for (std::size_t j = 0; j < s.sample_delta.size(); ++j) {
    if (s.sample_chain[j] % 8 != 7) continue;    // the last scan
    const double e = -s.sample_delta[j] / beta;  // g = beta E
    sum[s.sample_level[j]] += e;
    sq[s.sample_level[j]] += e * e;
    n[s.sample_level[j]] += 1.0;
  }
  for (std::size_t k = 0; k < t.size(); ++k) {
    ASSERT_EQ(n[k], 4000.0);
    const double mean = sum[k] / n[k], var = sq[k] / n[k] - mean * mean;
    const double se = std::sqrt(var / n[k]);
    const double exact = logz::exact::ising_mean_energy_enumeration(4, 4, t[k] * beta);
    EXPECT_LE(std::abs(mean - exact), 5.0 * se + 1e-9)
        << "level " << k << " t " << t[k] << " mean " << mean << " exact " << exact;
  }
}

// log Z of the 6 x 6 torus at beta = 1 (ordered phase, below the transition) by stepping stone
// and MBAR on the last round, within 5 jackknife SEs of Kaufman's value; stepping stone's
// log-mean bias, about sum_k (1/ESS_k - 1/n_k) / 2, is below 0.001 here (its "log_mean_bias").
TEST(ParallelTempering, IsingBesideKaufman) {
  const IsingModel model(6, 6, 1.0, 1.0);
  ParallelTemperingOptions o;
  o.rounds = 9;
  o.seed = 3;
  o.threads = 2;
  const ParallelTemperingResult r = pt_ising(model, 1, o);
  const double exact = logz::exact::ising_log_z_kaufman(6, 6, 1.0) - model.base_log_z();
  const auto ss = logz::stepping_stone(r.stats, r.last().schedule, 20, 2);
  logz::MbarOptions mo;
  mo.initial_log_z = ss.log_z;
  const auto mbar = logz::mbar_tempered(r.stats, r.last().schedule, mo);
  std::printf("  replicas %zu barrier %.3f: stepping stone %.4f +- %.4f, MBAR %.4f, exact %.4f\n",
              r.last().schedule.size(), r.last().global_barrier, ss.last.log_z, ss.last.std_error,
              mbar.last.log_z, exact);
  ASSERT_TRUE(std::isfinite(ss.last.std_error));
  EXPECT_GT(ss.last.std_error, 0.0);
  EXPECT_LE(std::abs(ss.last.log_z - exact), 5.0 * ss.last.std_error + 0.001);
  // MBAR's asymptotic SE treats correlated draws as independent: held to stepping stone's.
  EXPECT_LE(std::abs(mbar.last.log_z - exact), 5.0 * ss.last.std_error + 0.001);
  EXPECT_EQ(r.non_finite, 0u);
  EXPECT_EQ(r.rounds.size(), 9u);
}

TEST(ParallelTempering, SameBitsForAnyThreadCount) {
  const IsingModel model(5, 5, 1.0, 0.8);
  ParallelTemperingOptions o;
  o.rounds = 5;
  o.num_chains = 7;
  o.chunk_size = 2;
  o.seed = 11;
  std::vector<ParallelTemperingResult> runs;
  for (int threads : {1, 2, 3}) {
    o.threads = threads;
    runs.push_back(pt_ising(model, 1, o));
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].stats.sample_delta, runs[0].stats.sample_delta);
    EXPECT_EQ(runs[i].stats.sample_chain, runs[0].stats.sample_chain);
    EXPECT_EQ(runs[i].last().schedule, runs[0].last().schedule);
    EXPECT_EQ(runs[i].last().rejection, runs[0].last().rejection);
    EXPECT_EQ(runs[i].last().round_trips, runs[0].last().round_trips);
  }
}

// With enough local exploration per scan (20 heat-bath sweeps of an 8 x 8 torus), the measured
// non-reversible round-trip rate is within 25% of 1 / (2 + 2 sum r_k / (1 - r_k)) from the
// measured rejections (Syed et al. 2021, their efficient-local-exploration condition), and above
// the reversible scheme's on the same ladder size.
TEST(ParallelTempering, RoundTripRateMatchesPrediction) {
  const IsingModel model(8, 8, 1.0, 1.0);
  ParallelTemperingOptions o;
  o.rounds = 9;
  o.num_chains = 10;
  o.seed = 2;
  o.threads = 2;
  const ParallelTemperingResult deo = pt_ising(model, 20, o);
  const double measured = deo.round_trip_rate(o.num_chains);
  const double predicted = deo.predicted_round_trip_rate(logz::SwapScheme::nonreversible);
  o.scheme = logz::SwapScheme::reversible;
  const ParallelTemperingResult seo = pt_ising(model, 20, o);
  const double seo_rate = seo.round_trip_rate(o.num_chains);
  std::printf(
      "  DEO: %zu replicas, Lambda %.3f, rate %.4f predicted %.4f limit %.4f; SEO %.4f "
      "(predicted %.4f)\n",
      deo.last().schedule.size(), deo.last().global_barrier, measured, predicted,
      deo.limit_round_trip_rate(), seo_rate,
      seo.predicted_round_trip_rate(logz::SwapScheme::reversible));
  EXPECT_NEAR(measured / predicted, 1.0, 0.25);
  EXPECT_LE(predicted, deo.limit_round_trip_rate());
  EXPECT_LT(seo_rate, measured);
}

TEST(ParallelTempering, RefusesBadOptions) {
  const IsingModel model(3, 3, 1.0, 1.0);
  ParallelTemperingOptions o;
  o.num_replicas = 1;
  EXPECT_THROW(pt_ising(model, 1, o), logz::InvalidArgument);
  o = {};
  o.rounds = 0;
  EXPECT_THROW(pt_ising(model, 1, o), logz::InvalidArgument);
  o = {};
  o.rounds = 2;
  o.blocks_per_chain = 5;  // more than the last round's 4 scans
  EXPECT_THROW(pt_ising(model, 1, o), logz::InvalidArgument);
}

}  // namespace parallel_tempering_test
