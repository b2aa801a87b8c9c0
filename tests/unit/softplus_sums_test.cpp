// The float softplus sums of the marginal RBM paths against the same sums in double: relative
// errors of float order on every length (the vectorised body, the masked last vector and the
// logs of products taken every 64 vectors), the increment without cancellation at small steps,
// and the NaN that sends large steps elsewhere.
#include "logz/math/softplus_sums.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
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
  for (std::size_t n :
       {1u, 3u, 7u, 15u, 16u, 17u, 33u, 100u, 500u, 784u, 2500u}) {  // 2500: past 64 vectors
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

// Every level at once: on equally spaced runs of levels the terms are formed in double (close
// to double precision), elsewhere level by level in float lanes; the softplus sums are the same
// bits with the slopes or without.
TEST(SoftplusSums, LevelSumsMatchDoubleOnEveryLadder) {
  std::vector<double> uniform(100), pieces, irregular;
  for (std::size_t k = 0; k < uniform.size(); ++k) uniform[k] = static_cast<double>(k) / 99.0;
  for (double t = 0; t < 0.5; t += 0.01)
    pieces.push_back(t);  // Salakhutdinov's three steps, coarser
  for (double t = 0.5; t < 0.9; t += 0.002) pieces.push_back(t);
  for (double t = 0.9; t <= 1.0; t += 0.0005) pieces.push_back(t);
  for (std::size_t k = 0; k < 40; ++k)
    irregular.push_back(std::pow(static_cast<double>(k) / 39.0, 2.5));
  const std::vector<double> long_run(300, 0.25);  // past one piece of 128 levels (step 0)
  struct Ladder {
    const char* name;
    const std::vector<double>* t;
    double tolerance;  // relative: runs in double, the rest in float
  };
  for (const Ladder& ladder :
       {Ladder{"uniform", &uniform, 1e-11}, Ladder{"pieces", &pieces, 1e-11},
        Ladder{"long run", &long_run, 1e-11}, Ladder{"irregular", &irregular, 1e-6}}) {
    const std::vector<double>& t = *ladder.t;
    for (std::size_t n :
         {1u, 7u, 33u, 500u, 784u, 2500u}) {  // 2500: past a log of 64 groups of vectors
      SCOPED_TRACE(std::string(ladder.name) + ", n " + std::to_string(n));
      const auto y = inputs(n, 8.0, 3 * n + 5);
      std::vector<double> softplus_sums(t.size()), slope_sums(t.size()), alone(t.size());
      logz::softplus_level_sums(y.data(), n, t, softplus_sums.data(), slope_sums.data());
      logz::softplus_level_sums(y.data(), n, t, alone.data(), nullptr);
      double slope_scale = 0;
      for (float v : y) slope_scale += std::abs(v);
      for (std::size_t k = 0; k < t.size(); ++k) {
        double want = 0, want_slope = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double z = ladder.tolerance < 1e-9
                               ? t[k] * y[i]
                               : static_cast<double>(static_cast<float>(t[k]) * y[i]);
          want += softplus(z);
          want_slope += y[i] * sigmoid(z);
        }
        ASSERT_NEAR(softplus_sums[k], want, ladder.tolerance * want + 1e-12) << "level " << k;
        ASSERT_NEAR(slope_sums[k], want_slope, ladder.tolerance * slope_scale) << "level " << k;
        ASSERT_EQ(alone[k], softplus_sums[k]) << "level " << k;
      }
    }
  }
}

TEST(SoftplusSums, LevelSumsKeepANanInput) {
  std::vector<float> y(40, 0.5f);
  y[13] = std::numeric_limits<float>::quiet_NaN();
  std::vector<double> t(20), softplus(20), slope(20);
  for (std::size_t k = 0; k < t.size(); ++k) t[k] = static_cast<double>(k) / 19.0;
  logz::softplus_level_sums(y.data(), y.size(), t, softplus.data(), slope.data());
  for (std::size_t k = 0; k < t.size(); ++k) {
    EXPECT_TRUE(std::isnan(softplus[k])) << k;
    EXPECT_TRUE(std::isnan(slope[k])) << k;
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
