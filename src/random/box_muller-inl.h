// The Box-Muller transform on vectors, per Highway target: included by the sources that make
// normals (box_muller.cpp, particle_draws.cpp) inside their HWY_NAMESPACE, so that both give
// the same numbers from the same bits. Per-target include guard, Highway's pattern.
#if defined(LOGZ_RANDOM_BOX_MULLER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LOGZ_RANDOM_BOX_MULLER_INL_H_
#undef LOGZ_RANDOM_BOX_MULLER_INL_H_
#else
#define LOGZ_RANDOM_BOX_MULLER_INL_H_
#endif

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cstddef>

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 53 of the 64 bits hi:lo (each word in the low half of a 64-bit lane, or together as
// hi << 32 | lo) as a double in (0, 1): detail::unit_interval lane by lane.
template <class D, class VU>
HWY_INLINE hn::Vec<D> UnitFromBits(D d, VU hi_lo) {
  const hn::RebindToSigned<D> di;
  return hn::Mul(
      hn::Add(hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<11>(hi_lo))), hn::Set(d, 0.5)),
      hn::Set(d, 0x1.0p-53));
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1). The reduction is exact: 4u = q + f with q the
// quadrant, and g = min(f, 1 - f) <= 1/2, so only sin and cos of pi g / 2 <= pi / 4 remain:
// sin = g P(g^2) and cos = 1 + g^2 Q(g^2), Taylor polynomials whose coefficients ((pi/2)^k / k!
// with signs, highest first) the caller gives for its precision. (Cheaper than general sin and
// cos, which reduce a rounded 2 pi u by pi.)
template <class D, std::size_t NP, std::size_t NQ>
HWY_INLINE void SinCos2PiFrom(D d, hn::Vec<D> u, const hn::TFromD<D> (&p)[NP],
                              const hn::TFromD<D> (&q_coeffs)[NQ], hn::Vec<D>& s, hn::Vec<D>& c) {
  using T = hn::TFromD<D>;
  const auto w = hn::Mul(u, hn::Set(d, T(4)));
  const auto q = hn::Floor(w);
  const auto f = hn::Sub(w, q);
  const auto one = hn::Set(d, T(1));
  const auto big = hn::Gt(f, hn::Set(d, T(0.5)));
  const auto g = hn::IfThenElse(big, hn::Sub(one, f), f);
  const auto y = hn::Mul(g, g);
  auto ps = hn::Set(d, p[0]);
  for (std::size_t k = 1; k < NP; ++k) ps = hn::MulAdd(ps, y, hn::Set(d, p[k]));
  const auto sg = hn::Mul(ps, g);
  auto pc = hn::Set(d, q_coeffs[0]);
  for (std::size_t k = 1; k < NQ; ++k) pc = hn::MulAdd(pc, y, hn::Set(d, q_coeffs[k]));
  const auto cg = hn::MulAdd(pc, y, one);
  // sin and cos of pi f / 2 (swapped past f = 1/2), then of the quadrant's angle.
  const auto sf = hn::IfThenElse(big, cg, sg), cf = hn::IfThenElse(big, sg, cg);
  const auto odd = hn::Or(hn::Eq(q, one), hn::Eq(q, hn::Set(d, T(3))));
  const auto a = hn::IfThenElse(odd, cf, sf), b = hn::IfThenElse(odd, sf, cf);
  const auto two = hn::Set(d, T(2));
  s = hn::IfThenElse(hn::Ge(q, two), hn::Neg(a), a);                          // quadrants 2, 3
  c = hn::IfThenElse(hn::Or(hn::Eq(q, one), hn::Eq(q, two)), hn::Neg(b), b);  // quadrants 1, 2
}

// In double precision: the polynomials' first omitted terms are below 1e-16.
template <class D>
HWY_INLINE void SinCos2Pi(D d, hn::Vec<D> u, hn::Vec<D>& s, hn::Vec<D>& c) {
  static constexpr double kSin[] = {
      -6.688035109811468e-10, 5.692172921967927e-08, -3.598843235212085e-06, 0.00016044118478735983,
      -0.004681754135318688,  0.07969262624616705,   -0.6459640975062463,    1.5707963267948966};
  static constexpr double kCos[] = {
      6.565963114979473e-11, -6.386603083791852e-09, 4.710874778818172e-07, -2.5202042373060607e-05,
      0.0009192602748394266, -0.02086348076335296,   0.25366950790104803,   -1.2337005501361697};
  SinCos2PiFrom(d, u, kSin, kCos, s, c);
}

// z0 = r cos(2 pi u2), z1 = r sin(2 pi u2), r = sqrt(-2 log u1). u1 >= 2^-54 is never
// subnormal, so Highway's log skips its rescaling of subnormals (the same value for normal
// inputs, a compare, a blend and a multiply fewer).
template <class D>
HWY_INLINE void BoxMullerPair(D d, hn::Vec<D> u1, hn::Vec<D> u2, hn::Vec<D>& z0, hn::Vec<D>& z1) {
  const auto log_u1 = hn::impl::Log<D, hn::Vec<D>, /*kAllowSubnormals=*/false>(d, u1);
  const auto r = hn::Sqrt(hn::Mul(hn::Set(d, -2.0), log_u1));
  hn::Vec<D> s, c;
  SinCos2Pi(d, u2, s, c);
  z0 = hn::Mul(r, c);
  z1 = hn::Mul(r, s);
}

// Single precision: a float in (0, 1] from the 32-bit word w, (w >> 1) 2^-31 + 2^-32 (the
// smallest value 2^-32, so r reaches 6.66; values near 1 round to the float grid, 1 included),
// and a float in [0, 1) from its top 24 bits, exactly.
template <class DF, class VU>
HWY_INLINE hn::Vec<DF> OpenUnitFromWordF(DF df, VU w) {
  const hn::RebindToSigned<DF> di;
  return hn::MulAdd(hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<1>(w))),
                    hn::Set(df, 0x1.0p-31f), hn::Set(df, 0x1.0p-32f));
}
template <class DF, class VU>
HWY_INLINE hn::Vec<DF> UnitFromWordF(DF df, VU w) {
  const hn::RebindToSigned<DF> di;
  return hn::Mul(hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<8>(w))), hn::Set(df, 0x1.0p-24f));
}

// In single precision: the polynomials cut where the next term is below 2^-26 (g <= 1/2).
template <class DF>
HWY_INLINE void SinCos2PiF(DF d, hn::Vec<DF> u, hn::Vec<DF>& s, hn::Vec<DF>& c) {
  static constexpr float kSin[] = {0.00016044118f, -0.0046817541f, 0.079692626f, -0.64596410f,
                                   1.5707963f};
  static constexpr float kCos[] = {-2.5202042e-05f, 0.00091926027f, -0.020863481f, 0.25366951f,
                                   -1.2337006f};
  SinCos2PiFrom(d, u, kSin, kCos, s, c);
}

// Box-Muller in single precision on the words w1 (for r) and w2 (for the angle).
template <class DF, class VU>
HWY_INLINE void BoxMullerPairF(DF d, VU w1, VU w2, hn::Vec<DF>& z0, hn::Vec<DF>& z1) {
  const auto log_u1 =
      hn::impl::Log<DF, hn::Vec<DF>, /*kAllowSubnormals=*/false>(d, OpenUnitFromWordF(d, w1));
  const auto r = hn::Sqrt(hn::Mul(hn::Set(d, -2.0f), log_u1));
  hn::Vec<DF> s, c;
  SinCos2PiF(d, UnitFromWordF(d, w2), s, c);
  z0 = hn::Mul(r, c);
  z1 = hn::Mul(r, s);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // LOGZ_RANDOM_BOX_MULLER_INL_H_
