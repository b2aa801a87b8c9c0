// The bulk draws of a batch are bitwise the numbers each particle's own stream gives.
#include "logz/random/particle_draws.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using logz::BatchRandom;
using logz::DrawOrder;

void expect_stream_numbers(const BatchRandom& random, DrawOrder order, std::size_t particles, std::size_t n) {
  const std::size_t stride = n + 3;  // a column longer than its normals: the rest is untouched
  std::vector<double> u(particles), z(particles * stride, -7.0);
  logz::draw_uniform_and_normals(random, order, u, z.data(), n, stride);
  std::vector<double> zs(n);
  for (std::size_t p = 0; p < particles; ++p) {
    logz::RandomStream s = random.stream(p);
    double us = 0;
    if (order == DrawOrder::uniform_first) us = s.uniform();
    s.fill_normal(zs.data(), n);
    if (order == DrawOrder::normals_first) us = s.uniform();
    ASSERT_EQ(u[p], us) << p << " " << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(z[p * stride + i], zs[i]) << p << " " << i << " " << n;
    for (std::size_t i = n; i < stride; ++i) ASSERT_EQ(z[p * stride + i], -7.0);
  }
}

TEST(ParticleDraws, AreEachParticlesStreamNumbers) {
  for (DrawOrder order : {DrawOrder::uniform_first, DrawOrder::normals_first})
    for (std::size_t n : {0u, 1u, 2u, 3u, 35u, 36u, 37u, 64u, 100u})
      for (std::size_t particles : {1u, 7u, 8u, 17u, 200u})
        expect_stream_numbers(BatchRandom{12345, logz::Purpose::forward_kernel, 77, 3}, order, particles, n);
}

TEST(ParticleDraws, AddressParticlesBeyond32Bits) {
  // Particle words cross 2^32 inside one vector of lanes: the high word goes into the purpose word.
  const BatchRandom random{0xDEADBEEFCAFEull, logz::Purpose::reverse_kernel, 5, (std::uint64_t{1} << 32) - 3};
  expect_stream_numbers(random, DrawOrder::uniform_first, 9, 36);
  expect_stream_numbers(random, DrawOrder::normals_first, 9, 5);
}

}  // namespace
