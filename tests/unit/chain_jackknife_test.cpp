// The jackknife over tempered chains (estimators/chain_jackknife.hpp): leaving chains out drops
// exactly their samples, and for the sample mean of equal-length chains the delete-one-chain
// jackknife is the textbook standard error of the chain means.
#include "logz/estimators/chain_jackknife.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "logz/core/error.hpp"

namespace {

// 5 chains of 3 samples each over 2 levels, samples chain after chain.
logz::TemperingStats five_chains() {
  logz::TemperingStats s;
  s.num_levels = 2;
  s.chains.assign(5, logz::ChainTemperingStats(2));
  const double values[5][3] = {{1, 2, 3}, {2, 2, 2}, {0, 5, 1}, {4, 4, 1}, {3, 0, 0}};
  for (std::uint32_t c = 0; c < 5; ++c)
    for (int i = 0; i < 3; ++i) {
      s.sample_delta.push_back(values[c][i]);
      s.sample_level.push_back(static_cast<std::uint32_t>(i % 2));
      s.sample_chain.push_back(c);
      s.chains[c].num_samples += 1;
    }
  return s;
}

std::vector<double> mean_at_both_levels(const logz::TemperingStats& s) {
  const double m = std::accumulate(s.sample_delta.begin(), s.sample_delta.end(), 0.0) /
                   static_cast<double>(s.sample_delta.size());
  return {0.0, m};
}

TEST(ChainJackknife, LeavingChainsOutDropsTheirSamplesAndSums) {
  const auto s = five_chains();
  const auto part = logz::without_chains(s, 1, 3);
  EXPECT_EQ(part.chains.size(), 3u);
  EXPECT_EQ(part.sample_chain, (std::vector<std::uint32_t>{0, 0, 0, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(part.sample_delta, (std::vector<double>{1, 2, 3, 4, 4, 1, 3, 0, 0}));
  EXPECT_EQ(part.sample_level.size(), 9u);
  auto no_chains = s;
  no_chains.sample_chain.clear();
  EXPECT_THROW(logz::without_chains(no_chains, 0, 1), logz::InvalidArgument);
}

TEST(ChainJackknife, DeleteOneChainIsTheStandardErrorOfTheChainMeans) {
  const auto s = five_chains();
  const auto se = logz::chain_jackknife_std_error(s, 5, 2, mean_at_both_levels);
  const std::vector<double> chain_means = {2, 2, 2, 3, 1};
  const double mean = 2.0;
  double ss = 0;
  for (double m : chain_means) ss += (m - mean) * (m - mean);
  EXPECT_NEAR(se[1], std::sqrt(ss / 4.0 / 5.0), 1e-12);
  EXPECT_EQ(se[0], 0.0);
  EXPECT_EQ(logz::chain_jackknife_std_error(s, 5, 1, mean_at_both_levels), se)
      << "threads change nothing";
  // Groups of chains (5 into 2: chains 0-1 and 2-4); one chain gives no error bar.
  EXPECT_TRUE(std::isfinite(logz::chain_jackknife_std_error(s, 2, 1, mean_at_both_levels)[1]));
  EXPECT_TRUE(std::isnan(logz::chain_jackknife_std_error(logz::without_chains(s, 1, 5), 10, 1,
                                                         mean_at_both_levels)[1]));
}

}  // namespace
