// The experts of a product of experts over a batch (expert_functions.hpp), vectorised with
// Highway's log and dispatched at run time. Compiled once per Highway target.
#include <algorithm>
#include <cstddef>

#include "hwy_dispatch.hpp"  // before Highway: the targets it dispatches to
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/expert_functions.cpp"
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include "models/expert_functions.hpp"

HWY_BEFORE_NAMESPACE();
namespace logz::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

struct Laplace {
  template <class D, class V>
  static void Apply(D, V u, V lam, V& term, V& psi) {
    term = hn::Mul(lam, hn::Abs(u));
    psi = hn::CopySignToAbs(lam, u);
    psi = hn::IfThenZeroElse(hn::Eq(u, hn::Zero(D())), psi);
  }
};

struct StudentT {
  template <class D, class V>
  static void Apply(D d, V u, V lam, V& term, V& psi) {
    const V q = hn::MulAdd(u, u, hn::Set(d, 1.0));
    term = hn::Mul(lam, hn::Log(d, q));
    psi = hn::Div(hn::Mul(hn::Add(lam, lam), u), q);
  }
};

// acc + the terms, in double (a float vector's two halves promoted).
template <class DD, class V>
HWY_INLINE hn::Vec<DD> AddTerms(DD dd, hn::Vec<DD> acc, V term) {
  using T = hn::TFromV<V>;
  if constexpr (sizeof(T) == sizeof(double)) {
    return hn::Add(acc, term);
  } else {
#if HWY_TARGET == HWY_SCALAR
    return hn::Add(acc, hn::PromoteTo(dd, term));  // one lane either way
#else
    const hn::Rebind<T, DD> dh;  // half a float vector: as many lanes as dd
    acc = hn::Add(acc, hn::PromoteTo(dd, hn::LowerHalf(dh, term)));
    return hn::Add(acc, hn::PromoteTo(dd, hn::UpperHalf(dh, term)));
#endif
  }
}

template <class Expert, class T>
void ExpertColumns(T* U, std::size_t L, std::size_t P, const T* lambda, double* e) {
  const hn::ScalableTag<T> d;
  const hn::ScalableTag<double> dd;
  const std::size_t N = std::min(hn::Lanes(d), kMaxLanes);
  const std::size_t whole = L - L % N, rest = L - whole;
  // The last rows through a buffer, lambda = 0 past the end (no energy there).
  HWY_ALIGN T lam_tail[kMaxLanes], u_tail[kMaxLanes];
  for (std::size_t j = 0; j < N; ++j) lam_tail[j] = j < rest ? lambda[whole + j] : T(0);
  for (std::size_t p = 0; p < P; ++p) {
    T* u = U + p * L;
    auto acc = hn::Zero(dd);
    hn::Vec<decltype(d)> term, psi;
    for (std::size_t l = 0; l < whole; l += N) {
      Expert::Apply(d, hn::LoadU(d, u + l), hn::LoadU(d, lambda + l), term, psi);
      acc = AddTerms(dd, acc, term);
      hn::StoreU(psi, d, u + l);
    }
    if (rest > 0) {
      for (std::size_t j = 0; j < N; ++j) u_tail[j] = j < rest ? u[whole + j] : T(0);
      Expert::Apply(d, hn::Load(d, u_tail), hn::Load(d, lam_tail), term, psi);
      acc = AddTerms(dd, acc, term);
      hn::Store(psi, d, u_tail);
      std::copy(u_tail, u_tail + rest, u + whole);
    }
    e[p] = hn::GetLane(hn::SumOfLanes(dd, acc));
  }
}

void LaplaceD(double* U, std::size_t L, std::size_t P, const double* lambda, double* e) {
  ExpertColumns<Laplace>(U, L, P, lambda, e);
}
void LaplaceF(float* U, std::size_t L, std::size_t P, const float* lambda, double* e) {
  ExpertColumns<Laplace>(U, L, P, lambda, e);
}
void StudentTD(double* U, std::size_t L, std::size_t P, const double* lambda, double* e) {
  ExpertColumns<StudentT>(U, L, P, lambda, e);
}
void StudentTF(float* U, std::size_t L, std::size_t P, const float* lambda, double* e) {
  ExpertColumns<StudentT>(U, L, P, lambda, e);
}

}  // namespace logz::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace logz::detail {

HWY_EXPORT(LaplaceD);
HWY_EXPORT(LaplaceF);
HWY_EXPORT(StudentTD);
HWY_EXPORT(StudentTF);

void laplace_experts(double* U, std::size_t L, std::size_t P, const double* lambda, double* e) {
  HWY_DYNAMIC_DISPATCH(LaplaceD)(U, L, P, lambda, e);
}
void laplace_experts(float* U, std::size_t L, std::size_t P, const float* lambda, double* e) {
  HWY_DYNAMIC_DISPATCH(LaplaceF)(U, L, P, lambda, e);
}
void student_t_experts(double* U, std::size_t L, std::size_t P, const double* lambda, double* e) {
  HWY_DYNAMIC_DISPATCH(StudentTD)(U, L, P, lambda, e);
}
void student_t_experts(float* U, std::size_t L, std::size_t P, const float* lambda, double* e) {
  HWY_DYNAMIC_DISPATCH(StudentTF)(U, L, P, lambda, e);
}

}  // namespace logz::detail
#endif
