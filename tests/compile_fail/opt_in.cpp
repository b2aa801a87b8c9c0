// Opting into a fast path with a wrong signature must not compile (core/*.hpp): built once per
// LOGZ_CASE by tests/CMakeLists.txt, which expects the static_assert naming the member; case 0
// is the same types done right and must compile, so a failure can only come from the opt-in.
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/level_energies_path.hpp"
#include "logz/core/levels_kernel.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/random/philox.hpp"

namespace {

struct Batch {
  std::size_t num_particles() const { return 1; }
  void copy_particle(const Batch&, std::size_t, std::size_t) {}
};
struct Target {};

struct Path {
  using Batch = ::Batch;
  Batch make_batch(std::size_t) const { return {}; }
  void sample_base(Batch&, const logz::BatchRandom&) const {}
  void work_increment(double, double, const Batch&, std::span<double>) const {}
  void trace_energy(const Batch&, std::span<double>) const {}
  Target at(double) const { return {}; }
#if LOGZ_CASE == 1
  static constexpr bool provides_level_energies = true;  // one vector too few
  void level_energies(std::span<const double>, const Batch&, std::vector<double>&) const {}
#elif LOGZ_CASE == 2
  static constexpr bool provides_at_levels = true;  // the member is misspelt
  Target at_level(std::span<const double>) const { return {}; }
#elif LOGZ_CASE == 4
  static constexpr int trace_is_slope = 1;  // not a bool
#else
  static constexpr bool provides_level_energies = true;
  void level_energies(std::span<const double>, const Batch&, std::vector<double>&,
                      std::vector<double>&) const {}
  static constexpr bool provides_at_levels = true;
  Target at_levels(std::span<const double>) const { return {}; }
  static constexpr bool trace_is_slope = true;
#endif
};

struct Kernel {
  logz::KernelInfo step(const Target&, Batch&, const logz::BatchRandom&) const { return {}; }
  static constexpr bool provides_step_levels = true;
#if LOGZ_CASE == 3
  // The fractions as a vector instead of a span.
  logz::KernelInfo step_levels(const Path&, const std::vector<double>&, Batch&, int) const {
    return {};
  }
#else
  logz::KernelInfo step_levels(const Path&, std::span<const double>, Batch&,
                               const logz::BatchRandom&) const {
    return {};
  }
#endif
};

}  // namespace

#if LOGZ_CASE == 1 || LOGZ_CASE == 0
static_assert(logz::uses_level_energies<Path>);
#endif
#if LOGZ_CASE == 2 || LOGZ_CASE == 0
static_assert(logz::uses_at_levels<Path, Kernel>);
#endif
#if LOGZ_CASE == 3 || LOGZ_CASE == 0
static_assert(logz::uses_step_levels<Kernel, Path>);
#endif
#if LOGZ_CASE == 4 || LOGZ_CASE == 0
static_assert(logz::path_trace_is_slope<Path>);
#endif
#if LOGZ_CASE == 0
static_assert(logz::AnnealingPath<Path> && logz::TemperingPath<Path> &&
              logz::KernelFor<Kernel, Path>);
#endif
