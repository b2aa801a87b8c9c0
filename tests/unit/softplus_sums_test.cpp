// The float softplus sums of the marginal RBM paths against the same sums in double: relative
// errors of float order on every length (the vectorised body, the masked last vector and the
// logs of products taken every 64 vectors), the increment without cancellation at small steps,
// and the NaN that sends large steps elsewhere.
#include "logz/math/softplus_sums.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "logz/random/philox.hpp"

namespace {

double softplus(double z) { return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z))); }
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// n inputs of spread `scale` from a fixed stream.
std::vector<float> inputs(std::size_t n, double scale, std::uint64_t seed) {
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(scale * rng.normal());
  return x;
}

TEST(SoftplusSums, MatchDoubleOnEveryLength) {
  for (std::size_t n : {1u, 3u, 7u, 15u, 16u, 17u, 33u, 100u, 500u, 784u, 2500u}) {  // 2500: past 64 vectors
    SCOPED_TRACE(n);
    const auto y = inputs(n, 8.0, n), o = inputs(n, 2.0, n + 1000);
    for (double t : {0.0, 0.3, 1.0}) {
      double want = 0, want_with_offset = 0, want_slope = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double z = static_cast<double>(static_cast<float>(t) * y[i]);
        want += softplus(z);
        want_slope += y[i] * sigmoid(z);
        want_with_offset += softplus(o[i] + t * (y[i] - o[i]));
      }
      EXPECT_NEAR(logz::tempered_softplus_sum(y.data(), nullptr, t, n), want, 1e-6 * want + 1e-6);
      EXPECT_NEAR(logz::tempered_softplus_sum(y.data(), o.data(), t, n), want_with_offset,
                  1e-6 * want_with_offset + 1e-5);
      double got = 0, got_slope = 0;
      logz::softplus_and_slope_sums(y.data(), t, n, got, got_slope);
      EXPECT_NEAR(got, want, 1e-6 * want + 1e-6);
      double slope_scale = 0;
      for (float v : y) slope_scale += std::abs(v);
      EXPECT_NEAR(got_slope, want_slope, 1e-6 * slope_scale);
    }
  }
}

TEST(SoftplusSums, IncrementKeepsItsPrecisionAtSmallSteps) {
  for (std::size_t n : {5u, 500u, 784u}) {
    const auto y = inputs(n, 8.0, 7 * n), o = inputs(n, 2.0, 7 * n + 1);
    for (double step : {1e-6, 1e-4, 1e-2}) {
      for (const float* offset : {static_cast<const float*>(nullptr), o.data()}) {
        const double t = 0.4;
        // The exact difference, term by term in double (log1p form: no cancellation).
        double want = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double oi = offset ? offset[i] : 0.0, d = y[i] - oi;
          want += std::log1p(sigmoid(oi + t * d) * std::expm1(step * d));
        }
        const double got = logz::softplus_increment_sum(y.data(), offset, t, t + step, n);
        EXPECT_NEAR(got, want, 1e-5 * std::abs(want)) << "n " << n << ", step " << step;
      }
    }
  }
}

TEST(SoftplusSums, IncrementIsNanWhereAStepIsTooLarge) {
  std::vector<float> y(20, 0.5f);
  y[17] = 50.0f;  // in the masked last vector on 16-lane machines
  EXPECT_TRUE(std::isnan(logz::softplus_increment_sum(y.data(), nullptr, 0.0, 0.1, y.size())));
  EXPECT_FALSE(std::isnan(logz::softplus_increment_sum(y.data(), nullptr, 0.0, 0.01, y.size())));
}

}  // namespace
