// Every Highway target compiled into this build and supported by this processor, forced in turn
// (hwy::SetSupportedTargetsForTest), against the best one: the integer kernels (Philox blocks,
// value ranges, the particles' bulk uniforms, the multi-spin Ising sweeps, whose vectors hold
// 1 to 8 groups of 64 paths by target) give the same bits on every target, the
// floating-point ones (Box-Muller, the particles' bulk normals, the log-space arrays, Fermi and
// softplus sums, float dot products in double) agree to a few units in the last place of their
// precision. A portable build (LOGZ_NATIVE=OFF) holds SSSE3 to
// AVX-512 on x86-64; a native build only the build machine's best (docs/performance.md,
// "Portable binaries").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <span>
#include <string>
#include <vector>

// hwy_dispatch.hpp sets the targets before any Highway header reads them.
// clang-format off
#include "hwy_dispatch.hpp"  // the same targets as the library's dispatched sources
#include <hwy/targets.h>
// clang-format on
#include "logz/kernels/multispin_metropolis.hpp"
#include "logz/math/dot_in_double.hpp"
#include "logz/math/fermi_sums.hpp"
#include "logz/math/log_space_arrays.hpp"
#include "logz/math/softplus_sums.hpp"
#include "logz/math/value_range.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/random/particle_draws.hpp"
#include "logz/random/philox.hpp"

namespace {

// What each dispatched kernel gives on a fixed input.
struct Outputs {
  std::vector<std::uint32_t> philox;
  logz::ValueRange range{};
  std::vector<double> normals, softplus, level_softplus, level_slope;
  std::vector<double> particle_uniforms, particle_normals;  // bulk draws, both orders
  std::vector<double> single_uniforms, single_normals;  // the same with single-precision normals
  std::vector<int> ising_spins;  // multi-spin Ising sweeps of 11 groups (the last partly used)
  std::vector<long> ising_bond_sums;
  std::uint64_t ising_accepted = 0;
  double log_sum = 0.0, fermi = 0.0, fermi_slope = 0.0;
  double softplus_sum = 0.0, slope_sum = 0.0, increment_sum = 0.0, dot = 0.0;
};

Outputs run_kernels() {
  Outputs o;
  o.philox.resize(4 * 37);  // a partial vector at the end on every target
  logz::philox4x32_10_blocks({0xfffffff0u, 7, 8, 9}, {11, 12}, o.philox.data(), 37);
  std::vector<double> x(1003);
  std::vector<float> y(1003), offset(1003);
  logz::RandomStream rng(42, 0, logz::Purpose::test, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 30.0 * rng.normal();
    y[i] = static_cast<float>(8.0 * rng.normal());
    offset[i] = static_cast<float>(rng.normal());
  }
  o.range = logz::value_range(x);
  o.normals.resize(2 * 37);
  logz::box_muller(o.philox.data(), o.normals.data(), 37);  // 37 pairs from the blocks above
  // 13 particles (a partial vector on every target), 37 normals each (a transposed square and
  // a remainder), in both orders.
  constexpr std::size_t kParticles = 13, kNormals = 37;
  o.particle_uniforms.resize(2 * kParticles);
  o.particle_normals.resize(2 * kParticles * kNormals);
  const logz::BatchRandom batch{99, logz::Purpose::forward_kernel, 5, 3};
  logz::draw_uniform_and_normals(batch, logz::DrawOrder::uniform_first,
                                 std::span<double>(o.particle_uniforms.data(), kParticles),
                                 o.particle_normals.data(), kNormals, kNormals);
  logz::draw_uniform_and_normals(
      batch, logz::DrawOrder::normals_first,
      std::span<double>(o.particle_uniforms.data() + kParticles, kParticles),
      o.particle_normals.data() + kParticles * kNormals, kNormals, kNormals);
  o.single_uniforms.resize(kParticles);
  o.single_normals.resize(kParticles * kNormals);
  logz::draw_uniform_and_normals(batch, logz::DrawOrder::uniform_first, o.single_uniforms,
                                 o.single_normals.data(), kNormals, kNormals,
                                 logz::NormalPrecision::single);
  // 700 paths: 11 groups, in vectors of 8 + 2 + 1 with AVX-512, 4 + 4 + 2 + 1 with AVX2.
  const logz::IsingModel ising(6, 6, 1.0, 0.44);
  const logz::PackedIsingModel packed(ising);
  auto spins = packed.make_batch(700);
  logz::RandomStream start(7, 0, logz::Purpose::test, 0);
  for (std::size_t p = 0; p < spins.num_particles(); ++p)
    for (int j = 0; j < spins.num_sites(); ++j) spins.set_spin(p, j, start.below(2) ? 1 : -1);
  o.ising_accepted = logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 3)
                         .step(ising.at(0.9), spins, batch)
                         .accepted;
  for (std::size_t p = 0; p < spins.num_particles(); ++p) {
    for (int j = 0; j < spins.num_sites(); ++j) o.ising_spins.push_back(spins.spin(p, j));
    o.ising_bond_sums.push_back(static_cast<long>(spins.bond_sum(p)));
  }
  o.softplus.resize(x.size());
  logz::log1p_exp(x, o.softplus);
  o.log_sum = logz::log_sum_exp_scaled(x, 0.5);
  const logz::FermiSums f = logz::FermiTerms(x).at(-3.0);
  o.fermi = f.log_f();
  o.fermi_slope = f.slope();
  logz::softplus_and_slope_sums(y.data(), 0.7, y.size(), o.softplus_sum, o.slope_sum);
  o.softplus_sum += logz::tempered_softplus_sum(y.data(), offset.data(), 0.3, y.size());
  o.increment_sum = logz::softplus_increment_sum(y.data(), offset.data(), 0.3, 0.31, y.size());
  o.dot = logz::dot_in_double(y.data(), offset.data(), y.size());
  std::vector<double> ladder(150);  // equally spaced: the levels formed in double
  for (std::size_t k = 0; k < ladder.size(); ++k) ladder[k] = static_cast<double>(k) / 149.0;
  o.level_softplus.resize(ladder.size());
  o.level_slope.resize(ladder.size());
  logz::softplus_level_sums(y.data(), y.size(), ladder, o.level_softplus.data(),
                            o.level_slope.data());
  return o;
}

// The largest relative difference of a from b, element by element (non-finite ones must match).
double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return std::numeric_limits<double>::infinity();
      continue;
    }
    largest = std::max(largest, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), 1e-300));
  }
  return largest;
}

TEST(DispatchTargets, EveryTargetGivesTheBestTargetsNumbers) {
  const Outputs best = run_kernels();
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (const std::int64_t target : targets) {
    const std::string name = hwy::TargetName(target);
    hwy::SetSupportedTargetsForTest(target);
    const Outputs o = run_kernels();
    hwy::SetSupportedTargetsForTest(0);  // back to what the processor supports
    EXPECT_EQ(o.philox, best.philox) << name;
    EXPECT_EQ(o.range.lowest, best.range.lowest) << name;
    EXPECT_EQ(o.range.highest, best.range.highest) << name;
    EXPECT_EQ(o.particle_uniforms, best.particle_uniforms)
        << name;  // integer bits to a double: exact
    EXPECT_EQ(o.single_uniforms, best.single_uniforms) << name;
    EXPECT_EQ(o.ising_spins, best.ising_spins) << name;
    EXPECT_EQ(o.ising_bond_sums, best.ising_bond_sums) << name;
    EXPECT_EQ(o.ising_accepted, best.ising_accepted) << name;
    // Double kernels: Highway's exp, log, sin and cos differ between targets with and without
    // FMA by up to a few tens of units in the last place (2.2e-16 each).
    const double doubles =
        std::max({max_relative_difference(o.normals, best.normals),
                  max_relative_difference(o.particle_normals, best.particle_normals),
                  max_relative_difference(o.softplus, best.softplus),
                  max_relative_difference({o.log_sum, o.fermi, o.fermi_slope, o.dot},
                                          {best.log_sum, best.fermi, best.fermi_slope, best.dot})});
    EXPECT_LE(doubles, 1e-13) << name;
    // Level sums in double lanes: 1003 terms added in 2, 4 or 8 lanes (another order per width),
    // and each slope the difference of a positive and a negative part.
    const double levels = std::max(max_relative_difference(o.level_softplus, best.level_softplus),
                                   max_relative_difference(o.level_slope, best.level_slope));
    EXPECT_LE(levels, 1e-12) << name;
    // Float terms summed in blocks of a number of vectors: roundings differ with the width.
    const double floats =
        max_relative_difference({o.softplus_sum, o.slope_sum, o.increment_sum},
                                {best.softplus_sum, best.slope_sum, best.increment_sum});
    EXPECT_LE(floats, 1e-5) << name;
    // Single-precision normals: Highway's float log with and without FMA, a few units in the
    // last place of a float (6e-8 each).
    EXPECT_LE(max_relative_difference(o.single_normals, best.single_normals), 1e-5) << name;
    std::cout << name << ": largest relative difference from the best target " << doubles
              << " (double kernels), " << levels << " (level sums), " << floats
              << " (float sums)\n";
  }
}

}  // namespace
