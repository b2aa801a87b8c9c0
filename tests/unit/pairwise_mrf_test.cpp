// The pairwise binary MRF's pieces on their own: the path's energies and fields on hand-computed
// states (models/pairwise_mrf.hpp), the Gray-code log Z and log weights against brute-force
// sums over all states (exact/pairwise_mrf_enumeration.hpp), the exact sampler's frequencies and
// the heat-bath kernel's invariance by chi-square over all 2^5 states of a random 5-unit model
// (kernels/pairwise_mrf_heat_bath.hpp). The chi-square critical value is the upper 1e-6
// quantile (support/chi_square.hpp): a correct sampler fails a given seed with probability
// 1e-6; each check has a control with the wrong beta that must fail.
#include "logz/models/pairwise_mrf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/exact/pairwise_mrf_enumeration.hpp"
#include "logz/kernels/pairwise_mrf_heat_bath.hpp"
#include "support/chi_square.hpp"

namespace {

constexpr long kPairwiseMrfDraws = 200000;

// E(x) = -sum_{i<j} W_ij x_i x_j - sum_i b_i x_i for state s (x_i = bit i of s), each pair
// summed once from W's upper triangle: code of its own, not the Gray-code walk nor refresh().
double pairwise_mrf_brute_energy(const logz::PairwiseMrfParameters& m, std::uint64_t s) {
  double e = 0.0;
  for (int i = 0; i < m.size(); ++i) {
    if (!((s >> i) & 1u)) continue;
    e -= m.b(i);
    for (int j = i + 1; j < m.size(); ++j)
      if ((s >> j) & 1u) e -= m.W(i, j);
  }
  return e;
}

// log Z by summing exp(-beta E) over all states (shifted by the largest term).
double pairwise_mrf_brute_log_z(const logz::PairwiseMrfParameters& m, double beta) {
  std::vector<double> lw;
  for (std::uint64_t s = 0; s < (std::uint64_t{1} << m.size()); ++s)
    lw.push_back(-beta * pairwise_mrf_brute_energy(m, s));
  const double top = *std::max_element(lw.begin(), lw.end());
  double sum = 0.0;
  for (double v : lw) sum += std::exp(v - top);
  return top + std::log(sum);
}

std::vector<double> pairwise_mrf_brute_probabilities(const logz::PairwiseMrfParameters& m,
                                                     double beta) {
  const double log_z = pairwise_mrf_brute_log_z(m, beta);
  std::vector<double> p;
  for (std::uint64_t s = 0; s < (std::uint64_t{1} << m.size()); ++s)
    p.push_back(std::exp(-beta * pairwise_mrf_brute_energy(m, s) - log_z));
  return p;
}

// The state of particle p as s = sum_i x_i 2^i.
std::uint64_t pairwise_mrf_state_of(const logz::PairwiseMrfBatch& batch, std::size_t p) {
  std::uint64_t s = 0;
  for (int i = batch.num_units() - 1; i >= 0; --i) s = 2 * s + batch.x(p)[i];
  return s;
}

// Chi-square of the batch's states against p; fails the test where a particle's energy is not
// the brute-force energy of its state (1e-9: a few hundred O(1) updates of the kept energy, each
// rounding by about 1e-16).
logz::test_support::ChiSquare pairwise_mrf_batch_chi_square(const logz::PairwiseMrfParameters& m,
                                                            const logz::PairwiseMrfBatch& batch,
                                                            const std::vector<double>& p) {
  std::vector<long> counts(p.size(), 0);
  for (std::size_t i = 0; i < batch.num_particles(); ++i) {
    const std::uint64_t s = pairwise_mrf_state_of(batch, i);
    ++counts[s];
    if (std::abs(batch.energy(i) - pairwise_mrf_brute_energy(m, s)) > 1e-9) {
      ADD_FAILURE() << "particle " << i << ": energy " << batch.energy(i) << " vs "
                    << pairwise_mrf_brute_energy(m, s);
      break;
    }
  }
  return logz::test_support::chi_square(counts, p, static_cast<long>(batch.num_particles()));
}

// Three units with dyadic couplings and fields, so that every energy below is exact.
logz::PairwiseMrfParameters pairwise_mrf_three_units() {
  logz::PairwiseMrfParameters m{Eigen::MatrixXd::Zero(3, 3), Eigen::VectorXd(3)};
  m.W(0, 1) = m.W(1, 0) = 1.5;
  m.W(0, 2) = m.W(2, 0) = -2.0;
  m.W(1, 2) = m.W(2, 1) = 0.5;
  m.b << 0.25, -1.0, 3.0;
  return m;
}

TEST(PairwiseMrfModel, EnergiesAndFieldsOfHandComputedStates) {
  const logz::PairwiseMrfPath path(pairwise_mrf_three_units(), 0.5);
  EXPECT_DOUBLE_EQ(path.base_log_z(), 3 * std::log(2.0));
  // x -> E(x) = -(1/2) x^T W x - b^T x, worked by hand:
  //   000: 0;  110: -1.5 - (0.25 - 1) = -0.75;  101: 2 - (0.25 + 3) = -1.25;
  //   111: -(1.5 - 2 + 0.5) - (0.25 - 1 + 3) = -2.25;  001: -3.
  const std::vector<std::vector<std::uint8_t>> states = {
      {0, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 1, 1}, {0, 0, 1}};
  const std::vector<double> energies = {0.0, -0.75, -1.25, -2.25, -3.0};
  logz::PairwiseMrfBatch batch = path.make_batch(states.size());
  for (std::size_t p = 0; p < states.size(); ++p) {
    std::copy(states[p].begin(), states[p].end(), batch.x(p));
    path.refresh(batch, p);
    EXPECT_EQ(batch.energy(p), energies[p]) << "state " << p;
  }
  // Fields b + W x of 110: 0.25 + 1.5, -1 + 1.5, 3 - 2 + 0.5.
  EXPECT_EQ(batch.field(1)[0], 1.75);
  EXPECT_EQ(batch.field(1)[1], 0.5);
  EXPECT_EQ(batch.field(1)[2], 1.5);
  // The path's energy is t beta E: work (t' - t) beta E, trace E.
  std::vector<double> work(states.size()), trace(states.size());
  path.work_increment(0.25, 0.75, batch, work);
  path.trace_energy(batch, trace);
  for (std::size_t p = 0; p < states.size(); ++p) {
    EXPECT_EQ(work[p], 0.5 * 0.5 * energies[p]);
    EXPECT_EQ(trace[p], energies[p]);
  }
  EXPECT_EQ(path.at(0.5).beta, 0.25);
}

TEST(PairwiseMrfModel, CopyParticleCopiesStateFieldsAndEnergy) {
  const logz::PairwiseMrfPath path(pairwise_mrf_three_units(), 1.0);
  logz::PairwiseMrfBatch from = path.make_batch(2), to = path.make_batch(3);
  from.x(1)[0] = from.x(1)[2] = 1;
  path.refresh(from, 1);
  to.copy_particle(from, 1, 2);
  EXPECT_EQ(pairwise_mrf_state_of(to, 2), 5u);
  EXPECT_EQ(to.energy(2), -1.25);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(to.field(2)[i], from.field(1)[i]);
  EXPECT_EQ(pairwise_mrf_state_of(to, 1), 0u);
}

// Gray-code and brute-force sums differ by rounding only: the walk's energy after up to 2^6
// updates of n = 6 terms of size <= 3 (scale 1) is off by at most ~64 * 6 * 3 * 2.2e-16 = 3e-13,
// times beta <= 2; 1e-10 leaves room and still catches any wrong term (>= 1e-3 here).
TEST(PairwiseMrfEnumeration, LogZMatchesBruteForce) {
  for (int n : {1, 4, 6})
    for (double beta : {0.0, 0.7, 2.0}) {
      const auto m = logz::random_pairwise_mrf_parameters(n, 1.0, 17 + n);
      EXPECT_NEAR(logz::exact::pairwise_mrf_log_z_enumeration(m, beta),
                  pairwise_mrf_brute_log_z(m, beta), 1e-10)
          << n << " units, beta " << beta;
    }
  // beta = 0: every state weighs 1.
  const auto m = logz::random_pairwise_mrf_parameters(5, 1.0, 3);
  EXPECT_NEAR(logz::exact::pairwise_mrf_log_z_enumeration(m, 0.0), 5 * std::log(2.0), 1e-14);
}

TEST(PairwiseMrfEnumeration, LogWeightsAreIndexedByState) {
  const auto m = logz::random_pairwise_mrf_parameters(5, 1.0, 11);
  const std::vector<double> lw = logz::exact::pairwise_mrf_log_weights(m, 0.9);
  ASSERT_EQ(lw.size(), 32u);
  for (std::uint64_t s = 0; s < 32; ++s)
    EXPECT_NEAR(lw[s], -0.9 * pairwise_mrf_brute_energy(m, s), 1e-10) << "state " << s;
}

TEST(PairwiseMrfEnumeration, RefusesModelsTooLargeToEnumerate) {
  const auto big = logz::random_pairwise_mrf_parameters(31, 1.0, 1);
  EXPECT_THROW(logz::exact::pairwise_mrf_log_z_enumeration(big, 1.0), logz::Error);
  const auto medium = logz::random_pairwise_mrf_parameters(21, 1.0, 1);
  EXPECT_THROW(logz::exact::pairwise_mrf_log_weights(medium, 1.0), logz::Error);
  const logz::PairwiseMrfPath path(medium, 1.0);
  EXPECT_THROW(logz::exact::PairwiseMrfExactSampler{path}, logz::Error);
}

TEST(PairwiseMrfExactSampler, DrawsFollowTheBoltzmannDistribution) {
  const double beta = 0.8;
  const logz::PairwiseMrfPath path(logz::random_pairwise_mrf_parameters(5, 1.0, 5), beta);
  const logz::exact::PairwiseMrfExactSampler sampler(path);
  logz::PairwiseMrfBatch batch = path.make_batch(kPairwiseMrfDraws);
  sampler.sample(batch, logz::BatchRandom{61, logz::Purpose::reverse_start, 0, 0});
  const auto chi = pairwise_mrf_batch_chi_square(
      path.parameters(), batch, pairwise_mrf_brute_probabilities(path.parameters(), beta));
  EXPECT_LT(chi.statistic, chi.critical);
  // Control: the same draws are far from the distribution at another beta.
  const auto wrong = pairwise_mrf_batch_chi_square(
      path.parameters(), batch, pairwise_mrf_brute_probabilities(path.parameters(), 1.0));
  EXPECT_GT(wrong.statistic, wrong.critical);
  std::printf("exact draws: chi2 %.0f, against beta 1.0 %.0f (critical %.0f)\n", chi.statistic,
              wrong.statistic, chi.critical);
}

// Exact draws at beta_sample (inverse CDF over the brute-force probabilities, independent of
// the sampler), one call of the heat bath at beta_kernel, chi-square against beta_sample.
logz::test_support::ChiSquare pairwise_mrf_heat_bath_chi_square(std::size_t steps,
                                                                double beta_sample,
                                                                double beta_kernel,
                                                                std::uint64_t seed) {
  const logz::PairwiseMrfPath path(logz::random_pairwise_mrf_parameters(5, 1.0, 9), beta_kernel);
  const std::vector<double> p = pairwise_mrf_brute_probabilities(path.parameters(), beta_sample);
  std::vector<double> cdf(p.size());
  double c = 0.0;
  for (std::size_t s = 0; s < p.size(); ++s) cdf[s] = c += p[s];
  logz::PairwiseMrfBatch batch = path.make_batch(kPairwiseMrfDraws);
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  for (long i = 0; i < kPairwiseMrfDraws; ++i) {
    const double u = rng.uniform() * cdf.back();
    const auto s =
        static_cast<std::uint64_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    for (int j = 0; j < 5; ++j) batch.x(i)[j] = (s >> j) & 1u;
    path.refresh(batch, i);
  }
  const logz::PairwiseMrfHeatBath kernel(steps);
  const logz::BatchRandom random{seed, logz::Purpose::forward_kernel, 1, 0};
  const logz::KernelInfo info = kernel.step(path.at(1.0), batch, random);
  EXPECT_EQ(info.attempted, steps * kPairwiseMrfDraws);
  EXPECT_GT(info.accepted, 0u);
  EXPECT_LT(info.accepted, info.attempted);
  return pairwise_mrf_batch_chi_square(path.parameters(), batch, p);
}

TEST(PairwiseMrfHeatBath, KeepsTheBoltzmannDistribution) {
  for (std::size_t steps : {1, 7}) {
    const auto chi = pairwise_mrf_heat_bath_chi_square(steps, 0.8, 0.8, 70 + steps);
    EXPECT_LT(chi.statistic, chi.critical) << steps << " steps";
  }
}

TEST(PairwiseMrfHeatBath, TheTestDetectsAWrongKernel) {
  // A kernel for beta = 1.6 moves exact beta = 0.8 draws away from beta = 0.8.
  const auto chi = pairwise_mrf_heat_bath_chi_square(7, 0.8, 1.6, 81);
  EXPECT_GT(chi.statistic, chi.critical);
  std::printf("wrong-beta control: heat bath chi2 %.0f (critical %.0f)\n", chi.statistic,
              chi.critical);
}

}  // namespace
