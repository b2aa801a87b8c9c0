// Exact-start invariance: particles drawn exactly from the 3 x 3 Ising torus at
// beta, moved by the kernel, must still follow the exact distribution
// (chi-square over all 512 states at a false-failure rate of 1e-6).
#include "logz/kernels/spin_flip_metropolis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "logz/models/ising.hpp"
#include "support/chi_square.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::ChiSquare;

constexpr int kSide = 3, kSites = kSide * kSide, kStates = 1 << kSites;

// The test's own energy: -sum over right and down bonds of s_i s_j (torus).
int test_bond_sum(int state) {
  auto spin = [&](int r, int c) {
    return (state >> (((r + kSide) % kSide) * kSide + (c + kSide) % kSide)) & 1 ? 1 : -1;
  };
  int sum = 0;
  for (int r = 0; r < kSide; ++r)
    for (int c = 0; c < kSide; ++c) sum += spin(r, c) * (spin(r, c + 1) + spin(r + 1, c));
  return sum;
}

std::vector<double> exact_probabilities(double beta) {
  std::vector<double> p(kStates);
  double z = 0;
  for (int s = 0; s < kStates; ++s) z += p[s] = std::exp(beta * test_bond_sum(s));
  for (double& v : p) v /= z;
  return p;
}

// Draws n exact samples at beta_sample, applies the kernel at target beta_kernel, returns counts.
std::vector<long> run_kernel(const logz::SpinFlipMetropolis& kernel, double beta_sample,
                             double beta_kernel, long n, std::uint64_t seed) {
  const logz::IsingModel model(kSide, kSide, 1.0, beta_kernel);
  const auto p = exact_probabilities(beta_sample);
  std::vector<double> cdf(kStates);
  double acc = 0;
  for (int s = 0; s < kStates; ++s) cdf[s] = acc += p[s];
  logz::SpinBatch batch(static_cast<std::size_t>(n), kSites);
  for (long i = 0; i < n; ++i) {
    logz::RandomStream rng(seed, i, logz::Purpose::test, 0);
    const double u = rng.uniform() * acc;
    int s = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    s = std::min(s, kStates - 1);
    for (int j = 0; j < kSites; ++j) batch.sites(i)[j] = (s >> j) & 1 ? 1 : -1;
    batch.bond_sum(i) = model.bond_sum(batch.sites(i));
  }
  kernel.step(model.at(1.0), batch, logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  std::vector<long> counts(kStates, 0);
  for (long i = 0; i < n; ++i) {
    int s = 0;
    for (int j = 0; j < kSites; ++j) s |= (batch.sites(i)[j] > 0) << j;
    ++counts[s];
    // The kernel keeps the bond sum up to date.
    EXPECT_EQ(batch.bond_sum(i), test_bond_sum(s));
    if (batch.bond_sum(i) != test_bond_sum(s)) break;
  }
  return counts;
}

TEST(SpinFlipMetropolis, RandomSiteKeepsExactDistribution) {
  const double beta = 0.25;
  const long n = 300000;
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 7);
  const auto chi = chi_square(run_kernel(kernel, beta, beta, n, 11), exact_probabilities(beta), n);
  EXPECT_LT(chi.statistic, chi.critical);
}

TEST(SpinFlipMetropolis, CheckerboardAndItsReversalKeepExactDistribution) {
  const double beta = 0.25;
  const long n = 300000;
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  for (const auto& k : {kernel, kernel.reversed()}) {
    const auto chi = chi_square(run_kernel(k, beta, beta, n, 12), exact_probabilities(beta), n);
    EXPECT_LT(chi.statistic, chi.critical);
  }
}

TEST(SpinFlipMetropolis, TheTestDetectsAWrongKernel) {
  // A kernel for beta = 0.5 moves exact beta = 0.25 samples away from beta = 0.25.
  const long n = 300000;
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 7);
  const auto chi = chi_square(run_kernel(kernel, 0.25, 0.5, n, 13), exact_probabilities(0.25), n);
  EXPECT_GT(chi.statistic, chi.critical);
}

TEST(SpinFlipMetropolis, AcceptanceCountsAreConsistent) {
  const logz::IsingModel model(4, 4, 1.0, 1.0);
  logz::SpinBatch batch = model.make_batch(3);
  model.sample_base(batch, logz::BatchRandom{5, logz::Purpose::base_sample, 0, 0});
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 100);
  const auto hot =
      kernel.step(model.at(0.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
  EXPECT_EQ(hot.attempted, 300u);
  EXPECT_EQ(hot.accepted, 300u);  // beta = 0: every flip is accepted
  const logz::SpinFlipMetropolis sweep(logz::SiteOrder::checkerboard, 2);
  const auto info =
      sweep.step(model.at(1.0), batch, logz::BatchRandom{5, logz::Purpose::forward_kernel, 2, 0});
  EXPECT_EQ(info.attempted, 3u * 2u * 16u);
  EXPECT_LE(info.accepted, info.attempted);
  for (std::size_t p = 0; p < 3; ++p) EXPECT_EQ(batch.bond_sum(p), model.bond_sum(batch.sites(p)));
}

TEST(SpinFlipMetropolis, BondSumStaysExactOnNarrowTori) {
  // 1-wide tori have self-bonds (constant), 2-wide ones double bonds.
  for (const auto& [rows, cols] :
       {std::pair{1, 4}, std::pair{4, 1}, std::pair{2, 3}, std::pair{1, 1}}) {
    const logz::IsingModel model(rows, cols, 1.0, 0.7);
    auto batch = model.make_batch(4);
    model.sample_base(batch, logz::BatchRandom{9, logz::Purpose::base_sample, 0, 0});
    for (auto order : {logz::SiteOrder::random, logz::SiteOrder::checkerboard}) {
      const logz::SpinFlipMetropolis kernel(order, 50);
      kernel.step(model.at(1.0), batch, logz::BatchRandom{9, logz::Purpose::forward_kernel, 1, 0});
      for (std::size_t p = 0; p < 4; ++p)
        EXPECT_EQ(batch.bond_sum(p), model.bond_sum(batch.sites(p))) << rows << "x" << cols;
    }
  }
}

}  // namespace
