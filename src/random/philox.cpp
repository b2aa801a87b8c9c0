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

}  // namespace

void philox4x32_10_x8(const PhiloxCounter& counter, const PhiloxKey& key, std::uint32_t* out) {
  // Eight Philox4x32-10 blocks side by side, one per 32-bit lane (Random123's
  // round: hi/lo of M0 c0 and M1 c2, then c = {hi1^c1^k0, lo1, hi0^c3^k1, lo0}).
  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(counter[0])),
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i c1 = _mm256_set1_epi32(static_cast<int>(counter[1]));
  __m256i c2 = _mm256_set1_epi32(static_cast<int>(counter[2]));
  __m256i c3 = _mm256_set1_epi32(static_cast<int>(counter[3]));
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    __m256i hi0, lo0, hi1, lo1;
    mulhilo8(c0, m0, hi0, lo0);
    mulhilo8(c2, m1, hi1, lo1);
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
    c1 = lo1;
    c3 = lo0;
    k0 += 0x9E3779B9u;  // Weyl key schedule
    k1 += 0xBB67AE85u;
  }
  alignas(32) std::uint32_t w[4][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[0]), c0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[1]), c1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[2]), c2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(w[3]), c3);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = w[j][i];
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

#endif

}  // namespace logz
