#include "logz/kernels/heat_bath.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace logz {

namespace {

// Gives site i colour `chosen`, which n_new of its neighbour slots c share, and adds the change
// of its equal-bond count to delta; whether the colour changed.
bool set_colour(std::uint8_t* x, int i, int chosen, int n_new, const std::array<int, 4>& c,
                std::int64_t& delta) {
  const int old_colour = x[i];
  int n_old = 0;
  for (int k = 0; k < 4; ++k) n_old += c[k] == old_colour;
  delta += n_new - n_old;
  x[i] = static_cast<std::uint8_t>(chosen);
  return chosen != old_colour;
}

// The table kernels' last step: a colour kept (most updates in the ordered phase) changes no
// count; a new one is counted among the neighbour slots c and set.
bool change_colour(std::uint8_t* x, int i, int chosen, const std::array<int, 4>& c,
                   std::int64_t& delta) {
  if (chosen == x[i]) return false;
  int n_new = 0;
  for (int s = 0; s < 4; ++s) n_new += c[s] == chosen;
  return set_colour(x, i, chosen, n_new, c, delta);
}

// A site's four neighbour colours (no self-bond) and which slot pairs share one: code() indexes
// the targets' heat-bath tables (bit b for pair b = (0,1), (0,2), (0,3), (1,2), (1,3), (2,3);
// potts.hpp), first() says which slots are the first of their colour.
struct NeighbourSlots {
  std::array<int, 4> c;
  int e01, e02, e03, e12, e13, e23;

  NeighbourSlots(const std::uint8_t* x, const std::array<std::int32_t, 4>& nb)
      : c{x[nb[0]], x[nb[1]], x[nb[2]], x[nb[3]]},
        e01(c[0] == c[1]),
        e02(c[0] == c[2]),
        e03(c[0] == c[3]),
        e12(c[1] == c[2]),
        e13(c[1] == c[3]),
        e23(c[2] == c[3]) {}
  int code() const { return e01 | e02 << 1 | e03 << 2 | e12 << 3 | e13 << 4 | e23 << 5; }
  std::array<int, 4> first() const { return {1, !e01, !(e02 | e12), !(e03 | e13 | e23)}; }
  int distinct() const { return 1 + !e01 + !(e02 | e12) + !(e03 | e13 | e23); }
};

}  // namespace

KernelInfo HeatBath::step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random,
                          StopToken stop) const {
  // P(s_i = +1 | h) as a 32-bit threshold, indexed by (h + 4) / 2.
  std::array<std::uint64_t, 5> up_threshold;
  for (int j = 0; j < 5; ++j) {
    const double p = target.up_probability[j];
    up_threshold[j] =
        p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
  }
  const TorusLattice& lattice = *target.lattice;
  return update_sites(lattice, batch, random, stop,
                      [&](std::int8_t* s, int i, RandomStream& rng, std::int64_t& delta) {
                        const auto& nb = lattice.neighbours(i);
                        // The local field of the bonds to other sites; a self-bond (1-wide torus)
                        // is s_i s_i = 1 whatever s_i is, so it does not enter the conditional.
                        int h = 0;
                        for (int k = 0; k < 4; ++k) h += (nb[k] != i) * s[nb[k]];
                        const int up = rng.next_u32() < up_threshold[(h + 4) >> 1];
                        const int value = 2 * up - 1;
                        const int diff = value - s[i];  // -2, 0 or 2
                        delta += diff * h;
                        s[i] = static_cast<std::int8_t>(value);
                        return diff != 0;
                      });
}

KernelInfo HeatBath::step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random,
                          StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  const int q = target.num_colours;
  const bool ferro = target.beta_coupling >= 0.0;
  // Uniform among the q - m colours absent around a site: the r-th (from 0)
  // not among the distinct neighbour colours d[k] (where use[k]), as the fixed
  // point of v = r + #{d <= v}, reached after at most m <= 4 rounds.
  auto absent_colour = [](int r, const std::array<int, 4>& d, const std::array<int, 4>& use) {
    int v = r;
    for (int round = 0; round < 4; ++round) {
      int below_or_at = 0;
      for (int k = 0; k < 4; ++k) below_or_at += use[k] & (d[k] <= v);
      v = r + below_or_at;
    }
    return v;
  };
  if (lattice.rows() > 1 && lattice.cols() > 1) {
    // No self-bonds: the conditional depends only on which neighbour slots
    // share a colour, tabulated in the target (one 32-bit draw per update).
    return update_sites(lattice, batch, random, stop,
                        [&](std::uint8_t* x, int i, RandomStream& rng, std::int64_t& delta) {
                          const NeighbourSlots slots(x, lattice.neighbours(i));
                          const std::array<int, 4>& c = slots.c;
                          const auto& t = target.heat_bath_threshold[slots.code()];
                          const std::uint64_t r = rng.next_u32();
                          int k = 0;  // branches: see the field's kernel below
                          while (k < 4 && r >= t[k]) ++k;
                          int chosen;
                          if (k < 4) {
                            chosen = c[k];
                          } else {
                            const int m = slots.distinct();
                            chosen = absent_colour(
                                static_cast<int>(rng.below(static_cast<std::uint32_t>(q - m))), c,
                                slots.first());
                          }
                          return change_colour(x, i, chosen, c, delta);
                        });
  }
  // A 1-wide torus: self-bond slots (always equal) are left out of the conditional.
  return update_sites(lattice, batch, random, stop,
                      [&](std::uint8_t* x, int i, RandomStream& rng, std::int64_t& delta) {
                        // Branch-free where the data decide (colours are unpredictable): the four
                        // neighbour slots, a self-bond slot (1-wide torus; always equal, it does
                        // not enter the conditional) replaced by a colour no other slot has.
                        const auto& nb = lattice.neighbours(i);
                        std::array<int, 4> c, n, first;
                        for (int k = 0; k < 4; ++k) c[k] = nb[k] != i ? x[nb[k]] : -1 - k;
                        // n[k]: the slots with colour c[k] (its equal count); first[k]: slot k is
                        // the first with its colour, so each distinct colour is weighed once.
                        int m = 0, n_max = 0, n_min = 4;
                        for (int k = 0; k < 4; ++k) {
                          n[k] = (c[0] == c[k]) + (c[1] == c[k]) + (c[2] == c[k]) + (c[3] == c[k]);
                          int earlier = 0;
                          for (int l = 0; l < k; ++l) earlier |= c[l] == c[k];
                          first[k] = (c[k] >= 0) & !earlier;
                          m += first[k];
                          n_max = std::max(n_max, first[k] ? n[k] : 0);
                          n_min = std::min(n_min, first[k] ? n[k] : 4);
                        }
                        // Weights exp(K (n_c - ref)) with ref the count of the most probable
                        // colour, so every factor is <= 1 and the largest is exactly 1: no
                        // overflow at any K. The q - m colours absent around i have n_c = 0.
                        const int ref = ferro ? n_max : (m < q ? 0 : n_min);
                        std::array<double, 4> w;
                        double total = 0.0;
                        for (int k = 0; k < 4; ++k)
                          total += w[k] = first[k] ? target.bond_factor[n[k] - ref + 4] : 0.0;
                        const double w_absent = target.bond_factor[4 - ref];
                        total += (q - m) * w_absent;
                        double u = (static_cast<double>(rng.next_u32()) + 0.5) * 0x1.0p-32 * total;
                        // The first slot whose cumulative weight exceeds u, by selects.
                        int chosen = -1, n_new = 0;
                        for (int k = 0; k < 4; ++k) {
                          const bool take = (chosen < 0) & (u < w[k]);
                          chosen = take ? c[k] : chosen;
                          n_new = take ? n[k] : n_new;
                          u -= w[k];
                        }
                        if (chosen < 0) {
                          if (q > m) {
                            // Uniform among the absent colours.
                            chosen = absent_colour(
                                static_cast<int>(rng.below(static_cast<std::uint32_t>(q - m))), c,
                                first);
                          } else {
                            // Rounding left u just past the last weight: take the last colour.
                            for (int k = 0; k < 4; ++k)
                              if (first[k]) chosen = c[k], n_new = n[k];
                          }
                        }
                        return set_colour(x, i, chosen, n_new, c, delta);
                      });
}

KernelInfo HeatBath::step(const PottsFieldTarget& target, PottsBatch& batch,
                          const BatchRandom& random, StopToken stop) const {
  const TorusLattice& lattice = *target.lattice;
  const int q = target.num_colours;
  // The r-th (from 0) colour of 1..q-1 absent around a site (neighbour colours c).
  auto absent_nonzero_colour = [q](int r, const std::array<int, 4>& c) {
    for (int v = 1; v < q; ++v)
      if (v != c[0] && v != c[1] && v != c[2] && v != c[3] && r-- == 0) return v;
    return -1;
  };
  if (lattice.rows() > 1 && lattice.cols() > 1) {
    // No self-bonds: the conditional depends only on which neighbour slots share a colour and
    // which holds colour 0, tabulated in the target (one 32-bit draw per update).
    return update_sites(lattice, batch, random, stop,
                        [&](std::uint8_t* x, int i, RandomStream& rng, std::int64_t& delta) {
                          const NeighbourSlots slots(x, lattice.neighbours(i));
                          const std::array<int, 4>& c = slots.c;
                          const unsigned zeros = (c[0] == 0) | (c[1] == 0) << 1 | (c[2] == 0) << 2 |
                                                 (c[3] == 0) << 3 | 16;  // 16: none is colour 0
                          const int zero = std::countr_zero(zeros);
                          const auto& t = target.heat_bath_threshold[slots.code()][zero];
                          const std::uint64_t r = rng.next_u32();
                          // Branches, not a count of comparisons: the choice is predictable (mostly
                          // the colour around the site), and a predicted branch does not wait for
                          // the draw; a colour kept (mostly, in the ordered phase) changes no
                          // count.
                          int k = 0;
                          while (k < 5 && r >= t[k]) ++k;
                          int chosen;
                          if (k < 4) {
                            chosen = c[k];
                          } else if (k == 4) {
                            chosen = 0;
                          } else {
                            const int others = q - slots.distinct() - (zero == 4);
                            chosen = absent_nonzero_colour(
                                static_cast<int>(rng.below(static_cast<std::uint32_t>(others))), c);
                          }
                          return change_colour(x, i, chosen, c, delta);
                        });
  }
  // A 1-wide torus: self-bond slots (always equal) are left out of the conditional.
  const auto& weight = target.weight;
  return update_sites(lattice, batch, random, stop,
                      [&](std::uint8_t* x, int i, RandomStream& rng, std::int64_t& delta) {
                        // The neighbour slots (a self-bond slot of a 1-wide torus, always equal,
                        // left out); each distinct colour weighed once at its first slot, colour 0
                        // and the absent colours after them.
                        const auto& nb = lattice.neighbours(i);
                        std::array<int, 4> c, n;
                        std::array<double, 4> w;
                        bool has0 = false;
                        int m = 0;  // distinct neighbour colours
                        double total = 0.0;
                        for (int k = 0; k < 4; ++k) c[k] = nb[k] != i ? x[nb[k]] : -1;
                        for (int k = 0; k < 4; ++k) {
                          n[k] = 0;
                          for (int l = 0; l < 4; ++l) n[k] += c[k] >= 0 && c[l] == c[k];
                          bool first = c[k] >= 0;
                          for (int l = 0; l < k; ++l) first = first && c[l] != c[k];
                          w[k] = first ? weight[c[k] == 0][n[k]] : 0.0;
                          m += first;
                          has0 = has0 || (first && c[k] == 0);
                          total += w[k];
                        }
                        const double w0 = has0 ? 0.0 : weight[1][0];  // colour 0, absent around i
                        const int others =
                            q - m - (has0 ? 0 : 1);  // the other absent colours, weight[0][0] each
                        total += w0 + others * weight[0][0];
                        double u = rng.uniform() * total;
                        int chosen = -1, n_new = 0;
                        for (int k = 0; k < 4 && chosen < 0; ++k) {
                          if (u < w[k]) chosen = c[k], n_new = n[k];
                          u -= w[k];
                        }
                        if (chosen < 0 && !has0 && (u < w0 || others == 0))
                          chosen = 0;  // n_new = 0: absent around i
                        if (chosen < 0 && others > 0) {
                          // Uniform among the absent colours other than 0.
                          chosen = absent_nonzero_colour(
                              static_cast<int>(rng.below(static_cast<std::uint32_t>(others))), c);
                        }
                        if (chosen < 0) {
                          // Rounding left u just past the last weight: take the last present
                          // colour.
                          for (int k = 0; k < 4; ++k)
                            if (w[k] > 0.0) chosen = c[k], n_new = n[k];
                        }
                        return set_colour(x, i, chosen, n_new, c, delta);
                      });
}

}  // namespace logz
