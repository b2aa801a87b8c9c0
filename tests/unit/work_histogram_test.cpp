// The binning of the work histogram plot (apps/logz/plots/histogram.hpp): every finite value
// lands in one of 6 to 60 bins of finite width, out to the largest doubles, where the range and
// the interquartile range overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "plots/histogram.hpp"

namespace {

using logz::plots::make_histogram;

// The histogram's densities times the bin width add up to 1: every value was counted once.
void expect_every_value_binned(const std::vector<double>& x) {
  const logz::plots::Histogram h = make_histogram(x);
  EXPECT_EQ(h.n, x.size());
  EXPECT_GE(h.density.size(), 6u);
  EXPECT_LE(h.density.size(), 60u);
  EXPECT_TRUE(std::isfinite(h.width) && h.width > 0) << h.width;
  EXPECT_TRUE(std::isfinite(h.lo)) << h.lo;
  double total = 0;
  for (const double d : h.density) total += d * h.width;
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(WorkHistogram, BinsAsTheFreedmanDiaconisRuleSays) {
  std::vector<double> x;
  for (int i = 0; i < 100; ++i) x.push_back(i);
  const logz::plots::Histogram h = make_histogram(x);
  // IQR 49.5 over 100 values: bins of 2 * 49.5 / 100^(1/3) = 21.3 make 5 over 99, so 6 (the least).
  EXPECT_EQ(h.density.size(), 6u);
  EXPECT_EQ(h.lo, 0.0);
  EXPECT_DOUBLE_EQ(h.width, 16.5);
  expect_every_value_binned(x);
}

TEST(WorkHistogram, ValuesNearTheLargestDoubleAreBinned) {
  const double max = std::numeric_limits<double>::max();
  std::vector<double> alternating, spread, wide;
  for (int i = 0; i < 20; ++i) {
    alternating.push_back(i % 2 ? 1e308 : -1e308);  // the IQR overflows: a NaN bin count
    spread.push_back(1e308 * (1 + i / 40.0));
  }
  wide = {-max, -1.0, 0.0, 1.0, 2.0, max};  // the range overflows: infinite bins
  expect_every_value_binned(alternating);
  expect_every_value_binned(spread);
  expect_every_value_binned(wide);
}

}  // namespace
