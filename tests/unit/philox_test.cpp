#include "logz/random/philox.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// Random123 tests/kat_vectors, the three "philox4x32 10" lines: ctr[4] key[2] -> out[4].
TEST(Philox, KnownAnswerVectors) {
  struct Kat {
    logz::PhiloxCounter ctr;
    logz::PhiloxKey key;
    logz::PhiloxCounter out;
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const auto& k : kats) EXPECT_EQ(logz::philox4x32_10(k.ctr, k.key), k.out);
}

TEST(RandomStream, AddressedNotOrdered) {
  // The same address gives the same numbers, whatever was drawn elsewhere before.
  logz::RandomStream a(42, 7, logz::Purpose::forward_kernel, 3);
  logz::RandomStream other(42, 8, logz::Purpose::forward_kernel, 3);
  for (int i = 0; i < 10; ++i) other.next_u32();
  logz::RandomStream b(42, 7, logz::Purpose::forward_kernel, 3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_u32(), b.next_u32());
  // Different particle, purpose, step or seed: different numbers.
  logz::RandomStream c(42, 7, logz::Purpose::reverse_kernel, 3);
  logz::RandomStream d(42, 7, logz::Purpose::forward_kernel, 4);
  logz::RandomStream e(43, 7, logz::Purpose::forward_kernel, 3);
  logz::RandomStream f(42, 7, logz::Purpose::forward_kernel, 3);
  const auto x = f.next_u32();
  EXPECT_NE(x, c.next_u32());
  EXPECT_NE(x, d.next_u32());
  EXPECT_NE(x, e.next_u32());
}

TEST(RandomStream, UniformMoments) {
  logz::RandomStream s(1, 0, logz::Purpose::test, 0);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = s.uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // SE of the mean of U(0,1) is sqrt(1/12/n); z = 5.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
}

TEST(RandomStream, NormalMoments) {
  logz::RandomStream s(2, 0, logz::Purpose::test, 0);
  const int n = 200000;
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = s.normal();
    m1 += z;
    m2 += z * z;
    m3 += z * z * z;
    m4 += z * z * z * z;
  }
  m1 /= n, m2 /= n, m3 /= n, m4 /= n;
  // Standard errors: mean 1/sqrt(n), E z^2: sqrt(2/n), E z^3: sqrt(15/n), E z^4: sqrt(96/n).
  EXPECT_NEAR(m1, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(m2, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m3, 0.0, 5 * std::sqrt(15.0 / n));
  EXPECT_NEAR(m4, 3.0, 5 * std::sqrt(96.0 / n));
}

TEST(RandomStream, BelowIsUniform) {
  // Chi-square over 7 cells; critical value at p = 1e-6 for 6 dof is about 37.
  logz::RandomStream s(3, 0, logz::Purpose::test, 0);
  const int n = 70000, cells = 7;
  std::vector<int> counts(cells, 0);
  for (int i = 0; i < n; ++i) {
    const auto v = s.below(cells);
    ASSERT_LT(v, static_cast<std::uint32_t>(cells));
    ++counts[v];
  }
  double chi2 = 0;
  const double expected = static_cast<double>(n) / cells;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 37.0);
}

}  // namespace

namespace {

TEST(Philox, BulkBlocksEqualScalarBlocks) {
  // Every count up to past two vectors of the widest target (2 x 16 blocks) and beyond, so
  // that the paired, single and partial vectors all run; includes a counter whose draw word
  // wraps around 2^32 inside the blocks.
  for (std::uint32_t d0 : {0u, 0x243f6a88u, 0xfffffff3u}) {
    const logz::PhiloxCounter c = {d0, 0x85a308d3, 0x13198a2e, 0x03707344};
    const logz::PhiloxKey k = {0xa4093822, 0x299f31d0};
    for (std::uint32_t n = 1; n <= 70; ++n) {
      std::vector<std::uint32_t> out(4 * n + 1, 0xdeadbeefu);
      logz::philox4x32_10_blocks(c, k, out.data(), n);
      for (std::uint32_t i = 0; i < n; ++i) {
        const auto b = logz::philox4x32_10({d0 + i, c[1], c[2], c[3]}, k);
        for (int j = 0; j < 4; ++j)
          ASSERT_EQ(out[4 * i + j], b[j]) << d0 << " of " << n << ", block " << i;
      }
      EXPECT_EQ(out[4 * n], 0xdeadbeefu) << "wrote past " << n << " blocks";
    }
  }
}

}  // namespace

namespace {

TEST(Philox, BulkFillContinuesTheStream) {
  // From any position in the buffered block and for any length, fill_u32 gives
  // the numbers next_u32 would have given, and leaves the stream where they would.
  for (int skip : {0, 5, 31, 32, 33}) {
    for (std::size_t n : {0u, 3u, 32u, 64u, 70u, 100u, 200u}) {
      logz::RandomStream a(7, 3, logz::Purpose::test, 11), b(7, 3, logz::Purpose::test, 11);
      for (int i = 0; i < skip; ++i) a.next_u32(), b.next_u32();
      std::vector<std::uint32_t> bulk(n);
      a.fill_u32(bulk.data(), n);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(bulk[i], b.next_u32()) << skip << " " << i;
      EXPECT_EQ(a.next_u32(), b.next_u32()) << skip << " " << n;
    }
  }
}

}  // namespace

// fill_normal is normal() in bulk: the same numbers, whatever the split into calls and
// wherever a spare (the sine of a pair) is pending.
TEST(RandomStream, FillNormalGivesWhatNormalGives) {
  for (std::size_t n : {1u, 2u, 7u, 36u, 64u, 65u, 200u}) {
    logz::RandomStream a(5, 3, logz::Purpose::test, 1), b(5, 3, logz::Purpose::test, 1);
    a.normal();  // leaves a spare pending
    b.normal();
    std::vector<double> bulk(n);
    a.fill_normal(bulk.data(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(bulk[i], b.normal()) << n << " " << i;
    EXPECT_EQ(a.normal(), b.normal()) << n;  // the streams stay in step
  }
}

// The vectorised transform against the scalar formula (libm's log, cos and sin) on the same
// bits: a few units in the last place.
TEST(RandomStream, BoxMullerMatchesTheScalarFormula) {
  logz::RandomStream s(11, 0, logz::Purpose::test, 0);
  std::vector<std::uint32_t> bits(4 * 1000);
  s.fill_u32(bits.data(), bits.size());
  std::vector<double> z(2000);
  logz::box_muller(bits.data(), z.data(), 1000);
  for (std::size_t i = 0; i < 1000; ++i) {
    const double u1 = logz::detail::unit_interval(bits[4 * i], bits[4 * i + 1]);
    const double u2 = logz::detail::unit_interval(bits[4 * i + 2], bits[4 * i + 3]);
    const double r = std::sqrt(-2.0 * std::log(u1)), theta = 6.283185307179586476925286766559 * u2;
    EXPECT_NEAR(z[2 * i], r * std::cos(theta), 1e-14 * (1.0 + r)) << i;
    EXPECT_NEAR(z[2 * i + 1], r * std::sin(theta), 1e-14 * (1.0 + r)) << i;
  }
}
