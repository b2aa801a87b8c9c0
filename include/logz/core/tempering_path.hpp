// A path that simulated tempering can run on: batches, exact base draws and targets at(t) as
// for annealing (core/annealing_path.hpp), plus every level's energy U_k(x) - U_1(x) once per
// sweep, which comes one of two ways, each declared explicitly:
//   `static constexpr bool geometric_path = true;`  U_t(x) - U_0(x) = t (U_1(x) - U_0(x)), so
//       one work_increment(0, 1, batch, out) per sweep gives every level's energy;
//   `static constexpr bool provides_level_energies = true;` and level_energies(...) (see
//       core/level_energies_path.hpp) for paths not linear in t.
#pragma once

#include <cstddef>
#include <span>

#include "logz/core/level_energies_path.hpp"
#include "logz/core/opt_in.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// True when P declares `static constexpr bool geometric_path = true;` (U_t linear in t).
template <class P>
inline constexpr bool is_geometric_path = [] {
  constexpr bool on =
      declared<P>([]<class U>() -> decltype(U::geometric_path) { return U::geometric_path; });
  static_assert(
      !on || requires(const P& p, const typename P::Batch& b,
                      std::span<double> out) { p.work_increment(0.0, 1.0, b, out); },
      "geometric_path = true needs the member "
      "void work_increment(double t_from, double t_to, const Batch&, std::span<double> out) const");
  return on;
}();

template <class P>
concept TemperingPath = requires(const P& path, typename P::Batch& batch, const BatchRandom& random,
                                 double t, std::size_t n) {
  { path.make_batch(n) } -> std::same_as<typename P::Batch>;
  path.sample_base(batch, random);
  path.at(t);
}
&&(is_geometric_path<P> || uses_level_energies<P>);

}  // namespace logz
