// dot_in_double against exact sums: every length up to a few vectors (the zero-padded tail
// included), exactly on small integers, to double rounding on random floats.
#include "logz/math/dot_in_double.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "logz/random/philox.hpp"

namespace {

TEST(DotInDouble, ExactOnIntegersAndCloseOnRandomFloatsAtEveryLength) {
  logz::RandomStream rng(3, 0, logz::Purpose::test, 0);
  for (std::size_t n = 0; n <= 41; ++n) {
    std::vector<float> a(n), b(n), x(n), y(n);
    double exact = 0.0;
    long double want = 0.0L, scale = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(std::floor(20.0 * rng.uniform()) - 10.0);
      b[i] = static_cast<float>(std::floor(20.0 * rng.uniform()) - 10.0);
      exact += static_cast<double>(a[i]) * b[i];
      x[i] = static_cast<float>(1e3 * rng.normal());
      y[i] = static_cast<float>(rng.normal());
      want += static_cast<long double>(x[i]) * y[i];
      scale += std::abs(static_cast<long double>(x[i]) * y[i]);
    }
    EXPECT_EQ(logz::dot_in_double(a.data(), b.data(), n), exact) << n;
    EXPECT_NEAR(logz::dot_in_double(x.data(), y.data(), n), static_cast<double>(want),
                4e-16 * static_cast<double>(scale) + 1e-300)
        << n;
  }
}

}  // namespace
