// The bulk draws of a batch are bitwise the numbers each particle's own stream gives.
#include "logz/random/particle_draws.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using logz::BatchRandom;
using logz::DrawOrder;
using logz::NormalPrecision;

void expect_stream_numbers(const BatchRandom& random, DrawOrder order, std::size_t particles,
                           std::size_t n, NormalPrecision precision = NormalPrecision::double_) {
  const std::size_t stride = n + 3;  // a column longer than its normals: the rest is untouched
  std::vector<double> u(particles), z(particles * stride, -7.0);
  logz::draw_uniform_and_normals(random, order, u, z.data(), n, stride, precision);
  std::vector<double> zs(n);
  for (std::size_t p = 0; p < particles; ++p) {
    logz::RandomStream s = random.stream(p);
    double us = 0;
    if (order == DrawOrder::uniform_first) us = s.uniform();
    if (precision == NormalPrecision::single) {
      s.fill_normal_single(zs.data(), n);
    } else {
      s.fill_normal(zs.data(), n);
    }
    if (order == DrawOrder::normals_first) us = s.uniform();
    ASSERT_EQ(u[p], us) << p << " " << n;
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(z[p * stride + i], zs[i]) << p << " " << i << " " << n;
    for (std::size_t i = n; i < stride; ++i) ASSERT_EQ(z[p * stride + i], -7.0);
  }
}

TEST(ParticleDraws, AreEachParticlesStreamNumbers) {
  for (DrawOrder order : {DrawOrder::uniform_first, DrawOrder::normals_first})
    for (std::size_t n : {0u, 1u, 2u, 3u, 35u, 36u, 37u, 64u, 100u})
      for (std::size_t particles : {1u, 7u, 8u, 17u, 200u})
        for (NormalPrecision precision : {NormalPrecision::double_, NormalPrecision::single})
          expect_stream_numbers(BatchRandom{12345, logz::Purpose::forward_kernel, 77, 3}, order,
                                particles, n, precision);
}

TEST(ParticleDraws, AddressParticlesBeyond32Bits) {
  // Particle words cross 2^32 inside one vector of lanes: the high word goes into the purpose word.
  const BatchRandom random{0xDEADBEEFCAFEull, logz::Purpose::reverse_kernel, 5,
                           (std::uint64_t{1} << 32) - 3};
  expect_stream_numbers(random, DrawOrder::uniform_first, 9, 36);
  expect_stream_numbers(random, DrawOrder::normals_first, 9, 5);
  expect_stream_numbers(random, DrawOrder::uniform_first, 9, 36, NormalPrecision::single);
}

// The single-precision normals are standard normal: the first four moments and the mass of 16
// equiprobable bins of 4 x 10^6 of them (z = 5 standard errors; the bins by chi-square).
TEST(ParticleDraws, SinglePrecisionNormalsAreStandardNormal) {
  constexpr std::size_t kParticles = 2000, kN = 2000;
  std::vector<double> u(kParticles), z(kParticles * kN);
  logz::draw_uniform_and_normals(BatchRandom{7, logz::Purpose::test, 1, 0},
                                 DrawOrder::uniform_first, u, z.data(), kN, kN,
                                 NormalPrecision::single);
  const double n = static_cast<double>(z.size());
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0, largest = 0;
  constexpr int kBins = 16;
  std::vector<double> counts(kBins, 0.0);
  for (double x : z) {
    m1 += x, m2 += x * x, m3 += x * x * x, m4 += x * x * x * x;
    largest = std::max(largest, std::abs(x));
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    counts[std::min(kBins - 1, static_cast<int>(cdf * kBins))] += 1;
  }
  m1 /= n, m2 /= n, m3 /= n, m4 /= n;
  // Standard errors of the sample moments of N(0, 1): sqrt(Var(x^k) / n) with Var(x) = 1,
  // Var(x^2) = 2, Var(x^3) = 15, Var(x^4) = 96.
  EXPECT_LE(std::abs(m1), 5 * std::sqrt(1 / n));
  EXPECT_LE(std::abs(m2 - 1), 5 * std::sqrt(2 / n));
  EXPECT_LE(std::abs(m3), 5 * std::sqrt(15 / n));
  EXPECT_LE(std::abs(m4 - 3), 5 * std::sqrt(96 / n));
  EXPECT_LE(largest, 6.67);  // the smallest u1, 2^-32, gives r = 6.66
  double chi2 = 0;
  for (double c : counts) chi2 += (c - n / kBins) * (c - n / kBins) / (n / kBins);
  EXPECT_LT(chi2, 44.3);  // chi-square with 15 degrees of freedom: P(> 44.3) = 1e-4
}

}  // namespace
