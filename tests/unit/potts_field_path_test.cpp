// The Potts path around the transition (models/potts_field_path.hpp), on tiny lattices where
// every state is enumerated: the heat bath with a field keeps its exact distribution (chi-square
// at a false-failure rate of 1e-6, as support/lattice_chi_square.hpp; with a wrong-field
// control), and its table is the exact conditional; the base's draws and normaliser; work
// increments as energy differences on both legs and at the restriction; the restriction's
// normaliser Z / q; relabelled draws of the model follow the restricted target.
#include "logz/models/potts_field_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/multispin_potts_metropolis.hpp"
#include "logz/models/packed_potts_field_path.hpp"
#include "support/lattice_chi_square.hpp"
#include "support/multispin_checks.hpp"
#include "support/tiny_lattice.hpp"

namespace {

using logz::SiteOrder;
using logz::test_support::ChiSquare;
using logz::test_support::kDraws;
using logz::test_support::potts_batch_chi_square;
using Lattice = logz::test_support::TinyLattice;

int colour_count(const Lattice& l, int s, int c) {
  int n = 0;
  for (int j = 0; j < l.sites(); ++j) n += l.value(s, j) == c;
  return n;
}
int colour0_count(const Lattice& l, int s) { return colour_count(l, s, 0); }

// log w_0 = n_0 - log sum_c e^{n_c}: the restriction's weight of colour 0.
double log_w0(const Lattice& l, int s) {
  double sum = 0;
  for (int c = 0; c < l.q; ++c) sum += std::exp(colour_count(l, s, c));
  return colour0_count(l, s) - std::log(sum);
}

// Normalised weights of every state.
std::vector<double> normalised(const Lattice& l, const std::function<double(int)>& log_weight) {
  std::vector<double> p(l.states());
  double z = 0;
  for (int s = 0; s < l.states(); ++s) z += p[s] = std::exp(log_weight(s));
  for (double& v : p) v /= z;
  return p;
}

double log_sum(const Lattice& l, const std::function<double(int)>& log_weight) {
  double z = 0;
  for (int s = 0; s < l.states(); ++s) z += std::exp(log_weight(s));
  return std::log(z);
}

// The Potts model with coupling K = beta J (J = +-1) and a field h on colour 0.
std::function<double(int)> field_log_weight(const Lattice& l, double k, double h) {
  return [=](int s) { return k * l.bond_sum(s) + h * colour0_count(l, s); };
}

// A batch of n exact draws from p (state codes by inversion), bond sums set.
logz::PottsBatch exact_batch(const Lattice& l, const logz::PottsModel& model,
                             const std::vector<double>& p, std::uint64_t seed) {
  std::vector<double> cdf(p.size());
  double acc = 0;
  for (std::size_t s = 0; s < p.size(); ++s) cdf[s] = acc += p[s];
  logz::RandomStream rng(seed, 0, logz::Purpose::test, 0);
  logz::PottsBatch batch(kDraws, l.sites());
  for (long i = 0; i < kDraws; ++i) {
    const auto s =
        std::min<long>(std::lower_bound(cdf.begin(), cdf.end(), rng.uniform() * acc) - cdf.begin(),
                       l.states() - 1);
    for (int j = 0; j < l.sites(); ++j)
      batch.sites(i)[j] = static_cast<std::uint8_t>(l.value(static_cast<int>(s), j));
    batch.bond_sum(i) = model.equal_bonds(batch.sites(i));
  }
  return batch;
}

// Exact draws at (k, h_sample), one heat-bath call at (k, h_kernel).
ChiSquare heat_bath_chi_square(const logz::HeatBath& kernel, const Lattice& l, double k,
                               double h_sample, double h_kernel, std::uint64_t seed) {
  const logz::PottsModel model(l.rows, l.cols, l.q, k < 0 ? -1.0 : 1.0, std::abs(k));
  const auto p = normalised(l, field_log_weight(l, k, h_sample));
  auto batch = exact_batch(l, model, p, seed);
  kernel.step(logz::PottsFieldTarget(model.lattice(), l.q, k, h_kernel), batch,
              logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  return potts_batch_chi_square(l, batch, p);
}

// 2 x 3 (double bonds between the rows) and 1 x 4 (self-bonds), q = 3; the heat bath's tables
// (no self-bonds) also with five colours on 2 x 2 (colours absent around every site). Not two
// colours: TinyLattice counts those as Ising spins.
const Lattice kLattices[] = {{2, 3, 3}, {1, 4, 3}, {2, 2, 5}};

TEST(HeatBathPottsField, KeepsExactDistribution) {
  std::uint64_t seed = 61;
  for (const auto& l : kLattices)
    for (const auto& [k, h] : {std::pair{0.6, 1.5}, std::pair{-0.8, 0.7}, std::pair{1.2, 0.0}}) {
      const logz::HeatBath random(SiteOrder::random, 5), sweep(SiteOrder::checkerboard, 1);
      for (const auto& kernel : {random, sweep, sweep.reversed()}) {
        const auto chi = heat_bath_chi_square(kernel, l, k, h, h, ++seed);
        EXPECT_LT(chi.statistic, chi.critical)
            << l.rows << "x" << l.cols << " q " << l.q << " K " << k << " h " << h;
      }
    }
}

// The heat bath's table (PottsFieldTarget::heat_bath_threshold) gives every colour its exact
// conditional probability exp(K n_c + h [c = 0]) / sum, to the 2^-32 of its thresholds, for every
// colouring of a site's four neighbour slots: two colours (the Ising model's field path), three
// and five, ferro- and antiferromagnetic, with and without a field.
TEST(HeatBathPottsField, TheTableIsTheExactConditional) {
  for (const int q : {2, 3, 5})
    for (const auto& [k, h] : {std::pair{0.6, 1.5}, std::pair{-0.8, 0.7}, std::pair{2.0, 10.0}}) {
      const logz::PottsModel model(3, 3, q, 1.0, 1.0);
      const logz::PottsFieldTarget target(model.lattice(), q, k, h);
      int colourings = 1;
      for (int s = 0; s < 4; ++s) colourings *= q;
      for (int a = 0; a < colourings; ++a) {
        std::array<int, 4> c{};
        for (int s = 0, v = a; s < 4; ++s, v /= q) c[s] = v % q;
        int code = 0, bit = 0, zero = 4, m = 0;
        for (int s = 0; s < 4; ++s)
          for (int t = s + 1; t < 4; ++t) code |= (c[s] == c[t]) << bit++;
        for (int s = 3; s >= 0; --s)
          if (c[s] == 0) zero = s;
        for (int s = 0; s < 4; ++s) m += std::find(c.begin(), c.begin() + s, c[s]) == c.begin() + s;
        const auto& t = target.heat_bath_threshold[code][zero];
        std::vector<double> p(q, 0.0), exact(q);
        double below = 0.0, total = 0.0;
        for (int j = 0; j < 5; ++j) {
          p[j < 4 ? c[j] : 0] += std::ldexp(static_cast<double>(t[j]), -32) - below;
          below = std::ldexp(static_cast<double>(t[j]), -32);
        }
        const int others = q - m - (zero == 4 ? 1 : 0);
        for (int v = 1; v < q; ++v)
          if (std::find(c.begin(), c.end(), v) == c.end()) p[v] += (1.0 - below) / others;
        for (int v = 0; v < q; ++v) {
          const int n = static_cast<int>(std::count(c.begin(), c.end(), v));
          total += exact[v] = std::exp(k * n + h * (v == 0));
        }
        for (int v = 0; v < q; ++v)
          EXPECT_NEAR(p[v], exact[v] / total, 1e-9)
              << "q " << q << " K " << k << " h " << h << " colour " << v << " of slots " << c[0]
              << c[1] << c[2] << c[3];
      }
    }
}

TEST(HeatBathPottsField, TheTestDetectsAWrongField) {
  const auto chi =
      heat_bath_chi_square(logz::HeatBath(SiteOrder::random, 5), kLattices[0], 0.6, 1.5, 1.2, 71);
  EXPECT_GT(chi.statistic, chi.critical);
}

TEST(PottsFieldPath, BaseDrawsAndNormaliser) {
  const Lattice l{2, 3, 3};
  const double h = 1.3;
  const logz::PottsModel model(l.rows, l.cols, l.q, 1.0, 0.8);
  const logz::PottsFieldPath path(model, h);
  // log Z_0 + log q, Z_0 the independent sites' sum of exp(h n_0).
  EXPECT_NEAR(path.base_log_z(), log_sum(l, field_log_weight(l, 0.0, h)) + std::log(3.0), 1e-12);
  auto batch = path.make_batch(kDraws);
  path.sample_base(batch, logz::BatchRandom{72, logz::Purpose::base_sample, 0, 0});
  const auto chi = potts_batch_chi_square(l, batch, normalised(l, field_log_weight(l, 0.0, h)));
  EXPECT_LT(chi.statistic, chi.critical);
}

TEST(PottsFieldPath, WorkIncrementsAreEnergyDifferences) {
  const Lattice l{2, 3, 3};
  const double beta = 0.8, j = 1.5, h0 = 2.5;
  const logz::PottsModel model(l.rows, l.cols, l.q, j, beta);
  const logz::PottsFieldPath path(model, h0);
  // U_t = -(beta_t J n_eq + h_t n_0) - [t = 1] log w_0.
  auto energy = [&](int s, double t) {
    const double b = t <= 0.5 ? 2 * t * beta : beta, h = t <= 0.5 ? h0 : h0 * (2 - 2 * t);
    const int n0 = colour0_count(l, s);
    return -(b * j * l.bond_sum(s) + h * n0) - (t == 1.0 ? log_w0(l, s) : 0.0);
  };
  const std::vector<int> states = {0, 1, 17, 200, 455, 728};
  auto batch = path.make_batch(states.size());
  for (std::size_t p = 0; p < states.size(); ++p) {
    for (int i = 0; i < l.sites(); ++i)
      batch.sites(p)[i] = static_cast<std::uint8_t>(l.value(states[p], i));
    batch.bond_sum(p) = model.equal_bonds(batch.sites(p));
  }
  std::vector<double> out(states.size());
  for (const auto& [from, to] : {std::pair{0.0, 0.2}, std::pair{0.3, 0.5}, std::pair{0.4, 0.7},
                                 std::pair{0.6, 0.9}, std::pair{0.9, 1.0}, std::pair{1.0, 0.95}}) {
    path.work_increment(from, to, batch, out);
    for (std::size_t p = 0; p < states.size(); ++p)
      EXPECT_NEAR(out[p], energy(states[p], to) - energy(states[p], from), 1e-12)
          << "state " << states[p] << " from " << from << " to " << to;
  }
}

TEST(PottsFieldPath, TheRestrictionKeepsAQthOfZ) {
  // sum_x exp(-beta E) w_0(x) = Z / q: the colours' symmetry.
  for (const auto& l : kLattices) {
    const auto model = field_log_weight(l, 0.9, 0.0);
    const double restricted = log_sum(l, [&](int s) { return model(s) + log_w0(l, s); });
    EXPECT_NEAR(restricted, log_sum(l, model) - std::log(l.q), 1e-12) << l.rows << "x" << l.cols;
  }
}

TEST(PottsFieldPath, RelabelledDrawsFollowTheRestrictedTarget) {
  for (const auto& l : kLattices) {
    const double k = 0.9;
    const logz::PottsModel model(l.rows, l.cols, l.q, 1.0, k);
    const logz::PottsFieldPath path(model, 1.0);
    auto batch = exact_batch(l, model, normalised(l, field_log_weight(l, k, 0.0)), 73);
    path.relabel_to_colour0(batch, logz::BatchRandom{74, logz::Purpose::reverse_start, 2, 0});
    const auto restricted = normalised(l, [&](int s) { return k * l.bond_sum(s) + log_w0(l, s); });
    const auto chi = potts_batch_chi_square(l, batch, restricted);
    EXPECT_LT(chi.statistic, chi.critical) << l.rows << "x" << l.cols;
  }
}

TEST(PottsFieldPath, TheIsingModelIsTheTwoColourPottsModelUpToAnEnergyOffset) {
  // E_Ising = -J sum s_i s_j = E_Potts(2J) + 2 J N: the offset moves trace energies by 2JN and
  // log Z by -2 beta J N; the works do not see it.
  const Lattice l{2, 3, 2};
  const double j = 0.7, beta = 0.9;
  const logz::PottsModel potts(l.rows, l.cols, 2, 2 * j, beta);
  const logz::PottsFieldPath plain(potts, 3.0), ising(potts, 3.0, 2 * j * l.sites());
  EXPECT_NEAR(ising.base_log_z(), plain.base_log_z() - 2 * beta * j * l.sites(), 1e-12);
  auto batch = ising.make_batch(1);
  const int state = 0b010110;
  for (int i = 0; i < l.sites(); ++i)
    batch.sites(0)[i] = static_cast<std::uint8_t>(l.value(state, i));
  batch.bond_sum(0) = potts.equal_bonds(batch.sites(0));
  double spin_bonds = 0;  // sum over the right and down bonds of s_i s_j
  for (int r = 0; r < l.rows; ++r)
    for (int c = 0; c < l.cols; ++c) {
      const auto s = [&](int rr, int cc) {
        return 2 * l.value(state, (rr % l.rows) * l.cols + cc % l.cols) - 1;
      };
      spin_bonds += s(r, c) * s(r + 1, c) + s(r, c) * s(r, c + 1);
    }
  std::vector<double> e(1), w_plain(1), w_ising(1);
  ising.trace_energy(batch, e);
  EXPECT_NEAR(e[0], -j * spin_bonds, 1e-12);
  plain.work_increment(0.2, 0.8, batch, w_plain);
  ising.work_increment(0.2, 0.8, batch, w_ising);
  EXPECT_EQ(w_plain[0], w_ising[0]);
}

// The multi-spin kernel on the field path (its proposal through colour 0): exact draws at
// (k, h_sample) packed, one kernel call at (k, h_kernel), unpacked; the counts of colour 0 the
// kernel keeps are checked beside the equal bonds.
ChiSquare multispin_chi_square(const logz::MultiSpinPottsMetropolis& kernel, const Lattice& l,
                               double k, double h_sample, double h_kernel, std::uint64_t seed) {
  const logz::PottsModel model(l.rows, l.cols, l.q, k < 0 ? -1.0 : 1.0, std::abs(k));
  const auto p = normalised(l, field_log_weight(l, k, h_sample));
  auto batch = exact_batch(l, model, p, seed);
  logz::PackedFieldColourBatch packed(kDraws, l.sites(), l.q);
  packed.pack(batch, 0);
  for (long i = 0; i < kDraws; ++i)
    packed.field_count(i) = std::count(batch.sites(i), batch.sites(i) + l.sites(), 0);
  kernel.step(logz::PottsFieldTarget(model.lattice(), l.q, k, h_kernel), packed,
              logz::BatchRandom{seed, logz::Purpose::forward_kernel, 1, 0});
  for (long i = 0; i < kDraws; ++i) {
    for (int j = 0; j < l.sites(); ++j) batch.sites(i)[j] = packed.colour(i, j);
    batch.bond_sum(i) = packed.bond_sum(i);
    const auto zeros = std::count(batch.sites(i), batch.sites(i) + l.sites(), 0);
    if (packed.field_count(i) != zeros) {
      ADD_FAILURE() << "colour 0 " << packed.field_count(i) << " vs " << zeros;
      break;
    }
  }
  return potts_batch_chi_square(l, batch, p);
}

TEST(MultiSpinPottsField, KeepsExactDistribution) {
  std::uint64_t seed = 81;
  const logz::MultiSpinPottsMetropolis sweep(SiteOrder::checkerboard, 1);
  for (const auto& l : kLattices)
    for (const auto& [k, h] :
         {std::pair{0.6, 1.5}, std::pair{-0.8, 0.7}, std::pair{1.2, 0.0}, std::pair{0.3, 4.0}})
      for (const auto& kernel : {sweep, sweep.reversed()}) {
        const auto chi = multispin_chi_square(kernel, l, k, h, h, ++seed);
        EXPECT_LT(chi.statistic, chi.critical)
            << l.rows << "x" << l.cols << " q " << l.q << " K " << k << " h " << h;
      }
  // Ten colours (four planes), as the paper's model.
  const auto chi = multispin_chi_square(sweep, {2, 2, 10}, 1.0, 2.0, 2.0, 99);
  EXPECT_LT(chi.statistic, chi.critical) << "2x2 q 10";
}

TEST(MultiSpinPottsField, TheTestDetectsAWrongField) {
  const auto chi = multispin_chi_square(logz::MultiSpinPottsMetropolis(SiteOrder::checkerboard, 1),
                                        kLattices[0], 0.6, 0.5, 1.5, 98);
  EXPECT_GT(chi.statistic, chi.critical);
}

// The packed path is PottsFieldPath's: the same base draws and ground states particle for
// particle, the same works (at t = 1 with the restriction) and the same relabelling.
TEST(PackedPottsFieldPath, IsThePottsFieldPathPacked) {
  const logz::PottsModel model(3, 4, 10, 2.0, 1.0);
  const logz::PottsFieldPath path(model, 6.0);
  const logz::PackedPottsFieldPath packed(model, 6.0);
  EXPECT_EQ(packed.base_log_z(), path.base_log_z());
  const std::size_t n = 100;  // a full group and part of a second
  auto a = path.make_batch(n);
  auto b = packed.make_batch(n);
  auto same = [&](const char* what) {
    for (std::size_t p = 0; p < n; ++p) {
      for (int i = 0; i < model.num_sites(); ++i)
        ASSERT_EQ(a.sites(p)[i], b.colour(p, i)) << what << ", particle " << p;
      ASSERT_EQ(a.bond_sum(p), b.bond_sum(p)) << what;
      ASSERT_EQ(std::count(a.sites(p), a.sites(p) + model.num_sites(), 0), b.field_count(p))
          << what;
    }
  };
  const logz::BatchRandom random{5, logz::Purpose::base_sample, 0, 0};
  path.sample_base(a, random);
  packed.sample_base(b, random);
  same("base");
  // Move the packed particles, then give the unpacked ones their colours.
  logz::MultiSpinPottsMetropolis(SiteOrder::checkerboard, 4)
      .step(packed.at(0.8), b, logz::BatchRandom{5, logz::Purpose::forward_kernel, 1, 0});
  for (std::size_t p = 0; p < n; ++p) {
    for (int i = 0; i < model.num_sites(); ++i) a.sites(p)[i] = b.colour(p, i);
    a.bond_sum(p) = model.equal_bonds(a.sites(p));
  }
  same("after the kernel");
  std::vector<double> wa(n), wb(n);
  for (const auto& [from, to] :
       {std::pair{0.0, 0.3}, std::pair{0.5, 0.8}, std::pair{0.8, 1.0}, std::pair{1.0, 0.9}}) {
    path.work_increment(from, to, a, wa);
    packed.work_increment(from, to, b, wb);
    for (std::size_t p = 0; p < n; ++p)
      ASSERT_NEAR(wa[p], wb[p], 1e-9 * (1 + std::abs(wa[p]))) << from << " -> " << to;
  }
  path.trace_energy(a, wa);
  packed.trace_energy(b, wb);
  EXPECT_EQ(wa, wb);
  const logz::BatchRandom relabel{5, logz::Purpose::test, 2, 0};
  path.relabel_to_colour0(a, relabel);
  packed.relabel_to_colour0(b, relabel);
  same("relabelled");
  path.ground_state(a, random);
  packed.ground_state(b, random);
  same("ground state");
}

TEST(PackedPottsFieldPath, AnnealingGivesTheSameBitsForAnyThreadsAndChunksOf64) {
  const logz::PottsModel model(5, 6, 10, 2.0, 1.0);
  logz::test_support::expect_works_independent_of_threads_and_chunks(
      logz::PackedPottsFieldPath(model, 6.0),
      logz::MultiSpinPottsMetropolis(SiteOrder::checkerboard, 2));
}

TEST(PottsFieldPath, RefusesFieldsOutsideItsRange) {
  const logz::PottsModel model(4, 4, 10, 2.0, 1.0);
  EXPECT_THROW(logz::PottsFieldPath(model, 0.0), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsFieldPath(model, std::nan("")), logz::InvalidArgument);
  EXPECT_THROW(logz::PottsFieldPath(model, 600.0), logz::InvalidArgument);  // 4 |beta J| + h > 600
}

}  // namespace
