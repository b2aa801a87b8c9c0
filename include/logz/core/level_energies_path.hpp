// The tempering extension of a path whose energies are not linear in t: for every particle of
// a batch at once, every level's energy and its own thermodynamic-integration integrand,
//   void level_energies(std::span<const double> t, const Batch& batch,
//                       std::vector<double>& energies, std::vector<double>& slopes) const;
// energies[p K + k] = U_{t_k}(x_p) - U_{t_0}(x_p) and slopes[p K + k] = -dU_t(x_p)/dt at t_k
// (K = t.size()). A path opts in with `static constexpr bool provides_level_energies = true;`;
// opting in without that member is a compile error. It may also have
//   void level_energies(std::span<const double> t, const Batch& batch, std::vector<double>&
//   energies) const;
// the same energies without the integrands, for sweeps that need none (initial iterations, runs
// without a thermodynamic-integration estimator), where leaving them out saves time.
#pragma once

#include <span>
#include <vector>

#include "logz/core/opt_in.hpp"

namespace logz {

template <class P>
concept LevelEnergiesPath = requires(const P& path, std::span<const double> t,
                                     const typename P::Batch& batch, std::vector<double>& energies,
                                     std::vector<double>& slopes) {
  path.level_energies(t, batch, energies, slopes);
};

template <class P>
concept LevelEnergiesOnlyPath = requires(const P& path, std::span<const double> t,
                                         const typename P::Batch& batch,
                                         std::vector<double>& energies) {
  path.level_energies(t, batch, energies);
};

// True when P opts in (and then has the member).
template <class P>
inline constexpr bool uses_level_energies = [] {
  constexpr bool on = declared<P>(
      []<class U>() -> decltype(U::provides_level_energies) { return U::provides_level_energies; });
  static_assert(
      !on || LevelEnergiesPath<P>,
      "provides_level_energies = true needs the member void level_energies(std::span<const double> "
      "t, "
      "const Batch& batch, std::vector<double>& energies, std::vector<double>& slopes) const");
  return on;
}();

}  // namespace logz
