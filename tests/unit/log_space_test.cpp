#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "logz/math/log_sum_exp.hpp"
#include "logz/math/running_moments.hpp"

namespace {

TEST(LogSumExp, LargeMagnitudesDoNotOverflow) {
  const std::vector<double> big = {1e5, 1e5, 1e5 - 1.0};
  EXPECT_NEAR(logz::log_sum_exp(big), 1e5 + std::log(2.0 + std::exp(-1.0)), 1e-9);
  const std::vector<double> small = {-1e5, -1e5};
  EXPECT_NEAR(logz::log_sum_exp(small), -1e5 + std::log(2.0), 1e-9);
  const std::vector<double> mixed = {1e5, -1e5};
  EXPECT_DOUBLE_EQ(logz::log_sum_exp(mixed), 1e5);
  EXPECT_NEAR(logz::log_mean_exp(big), 1e5 + std::log((2.0 + std::exp(-1.0)) / 3.0), 1e-9);
}

TEST(LogSumExp, EdgeCases) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(logz::log_sum_exp(std::vector<double>{}), -inf);
  EXPECT_EQ(logz::log_sum_exp(std::vector<double>{-inf, -inf}), -inf);
  EXPECT_EQ(logz::log_sum_exp(std::vector<double>{1.0, inf}), inf);
  EXPECT_TRUE(std::isnan(logz::log_sum_exp(std::vector<double>{1.0, std::nan("")})));
  EXPECT_NEAR(logz::log_add_exp(1e5, 1e5), 1e5 + std::log(2.0), 1e-9);
  EXPECT_NEAR(logz::log_add_exp(-1e5, 0.0), 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(logz::log1p_exp(1e5), 1e5);
  EXPECT_DOUBLE_EQ(logz::log1p_exp(-1e5), 0.0);
  EXPECT_NEAR(logz::log1p_exp(0.0), std::log(2.0), 1e-15);
}

TEST(RunningMoments, MatchesTwoPassAndMergesInOrder) {
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.push_back(std::sin(i * 0.7) * 3.0 + 1e6);
  double mean = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  var /= (x.size() - 1);
  logz::RunningMoments all, a, b;
  for (std::size_t i = 0; i < x.size(); ++i) {
    all.add(x[i]);
    (i < 300 ? a : b).add(x[i]);
  }
  a.merge(b);
  EXPECT_NEAR(all.mean(), mean, 1e-8);
  EXPECT_NEAR(all.variance(), var, 1e-6);
  EXPECT_NEAR(a.mean(), mean, 1e-8);
  EXPECT_NEAR(a.variance(), var, 1e-6);
  EXPECT_EQ(a.count(), 1000);
  logz::RunningMoments one;
  one.add(2.0);
  EXPECT_TRUE(std::isnan(one.variance()));
  EXPECT_TRUE(std::isnan(one.std_error_of_mean()));
}

}  // namespace
