// The tempering extension of a path whose energies are not linear in t: for every particle of
// a batch at once, every level's energy and its own thermodynamic-integration integrand,
//   void level_energies(std::span<const double> t, const Batch& batch,
//                       std::vector<double>& energies, std::vector<double>& slopes) const;
// energies[p K + k] = U_{t_k}(x_p) - U_{t_0}(x_p) and slopes[p K + k] = -dU_t(x_p)/dt at t_k
// (K = t.size()). A path opts in with `static constexpr bool provides_level_energies = true;`;
// opting in without that member is a compile error.
#pragma once

#include <span>
#include <type_traits>
#include <vector>

namespace logz {

template <class P>
concept LevelEnergiesPath = requires(const P& path, std::span<const double> t, const typename P::Batch& batch,
                                     std::vector<double>& energies, std::vector<double>& slopes) {
  path.level_energies(t, batch, energies, slopes);
};

namespace detail {

template <class P>
consteval bool read_provides_level_energies() {
  if constexpr (requires { P::provides_level_energies; }) {
    static_assert(std::is_same_v<decltype(P::provides_level_energies), const bool>,
                  "provides_level_energies must be declared `static constexpr bool provides_level_energies = ...;`");
    static_assert(!P::provides_level_energies || LevelEnergiesPath<P>,
                  "provides_level_energies = true needs the member void level_energies(std::span<const double> t, "
                  "const Batch& batch, std::vector<double>& energies, std::vector<double>& slopes) const");
    return P::provides_level_energies;
  } else {
    return false;
  }
}

}  // namespace detail

// True when P opts in (and then has the member).
template <class P>
inline constexpr bool uses_level_energies = detail::read_provides_level_energies<P>();

}  // namespace logz
