#include "logz/random/philox.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace logz {

#if defined(__AVX2__)

namespace {

// The high and low 32 bits of eight 32 x 32 -> 64-bit products.
inline void mulhilo8(__m256i a, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(a, m);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

// G groups of eight Philox4x32-10 blocks side by side, one block per 32-bit lane
// (Random123's round: hi/lo of M0 c0 and M1 c2, then c = {hi1^c1^k0, lo1, hi0^c3^k1, lo0});
// independent groups interleave, so the multiplies' latency is hidden. Group g holds
// blocks draw + 8 g .. draw + 8 g + 7, written block after block to out[32 g ..].
template <int G>
void philox_groups(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  __m256i c0[G], c1[G], c2[G], c3[G];
  for (int g = 0; g < G; ++g) {
    c0[g] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(counter[0] + 8u * g)),
                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    c1[g] = _mm256_set1_epi32(static_cast<int>(counter[1]));
    c2[g] = _mm256_set1_epi32(static_cast<int>(counter[2]));
    c3[g] = _mm256_set1_epi32(static_cast<int>(counter[3]));
  }
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const __m256i key0 = _mm256_set1_epi32(static_cast<int>(k0));
    const __m256i key1 = _mm256_set1_epi32(static_cast<int>(k1));
    for (int g = 0; g < G; ++g) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo8(c0[g], m0, hi0, lo0);
      mulhilo8(c2[g], m1, hi1, lo1);
      c0[g] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[g]), key0);
      c2[g] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[g]), key1);
      c1[g] = lo1;
      c3[g] = lo0;
    }
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
  for (int g = 0; g < G; ++g) {
    // Transpose four words x eight lanes into eight blocks of four words.
    const __m256i a = _mm256_unpacklo_epi32(c0[g], c1[g]);  // w0 w1 of lanes 0 1 | 4 5
    const __m256i b = _mm256_unpackhi_epi32(c0[g], c1[g]);  // lanes 2 3 | 6 7
    const __m256i c = _mm256_unpacklo_epi32(c2[g], c3[g]);
    const __m256i d = _mm256_unpackhi_epi32(c2[g], c3[g]);
    const __m256i l0 = _mm256_unpacklo_epi64(a, c);  // blocks 0 | 4
    const __m256i l1 = _mm256_unpackhi_epi64(a, c);  // blocks 1 | 5
    const __m256i l2 = _mm256_unpacklo_epi64(b, d);  // blocks 2 | 6
    const __m256i l3 = _mm256_unpackhi_epi64(b, d);  // blocks 3 | 7
    __m256i* o = reinterpret_cast<__m256i*>(out + 32 * g);
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(l0, l1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(l2, l3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(l0, l1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(l2, l3, 0x31));
  }
}

}  // namespace

void philox4x32_10_x8(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  philox_groups<1>(counter, key, out);
}

void philox4x32_10_x16(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  philox_groups<2>(counter, key, out);
}

#else

void philox4x32_10_x8(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  PhiloxCounter c = counter;
  for (int i = 0; i < 8; ++i) {
    const PhiloxCounter b = philox4x32_10(c, key);
    for (int j = 0; j < 4; ++j) out[4 * i + j] = b[j];
    ++c[0];
  }
}

void philox4x32_10_x16(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  philox4x32_10_x8(counter, key, out);
  PhiloxCounter next = counter;
  next[0] += 8;
  philox4x32_10_x8(next, key, out + 32);
}

#endif

}  // namespace logz
