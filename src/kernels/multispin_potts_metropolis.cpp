#include "logz/kernels/multispin_potts_metropolis.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "multispin_bits.hpp"

namespace logz {

namespace {

using namespace multispin;
// Bit-sliced colours of 64 lanes, P planes (bits). The kernel is compiled for each P = 1..8
// (q <= 255), so that these stay in registers and their loops unroll.
template <int P>
using Colour = std::array<Word, P>;

// The lanes whose colours a and b are equal.
template <int P>
inline Word equal_colours(const Word* a, const Word* b) {
  Word differ = 0;
  for (int p = 0; p < P; ++p) differ |= a[p] ^ b[p];
  return ~differ;
}

// The number (0..4) of set masks among m[0..3], in three bit planes.
struct Count3 {
  Word b0, b1, b2;
};
inline Count3 count4(Word m0, Word m1, Word m2, Word m3) {
  const Word s01 = m0 ^ m1, c01 = m0 & m1, s23 = m2 ^ m3, c23 = m2 & m3;
  const Word carry = s01 & s23;
  return {s01 ^ s23, c01 ^ c23 ^ carry, (c01 & c23) | ((c01 ^ c23) & carry)};
}

// What a step needs of the target: the proposal's random bits and the acceptance by class.
// With K = beta J >= 0 a move that loses k equal neighbours (d = -k, k = 1..4) is accepted with
// accept_threshold[4 - k]; with K < 0 one that gains k, with accept_threshold[4 + k]. Other
// moves are always accepted.
struct Moves {
  bool gains;  // K < 0: the classes count gained equal neighbours
  std::array<Threshold, 4> thresholds;

  explicit Moves(const PottsTarget& t) : gains(t.beta_coupling < 0) {
    for (int k = 1; k <= 4; ++k)
      thresholds[k - 1] = Threshold(t.accept_threshold[gains ? 4 + k : 4 - k]);
  }
};

// A uniform proposal r in 0..q-2 per lane, exactly and without rejection: the q - 1 values
// are split by the binary digits of q - 1 into blocks of 2^e values (largest first); a lane
// falls in the first block left with probability 2^e / (values left) (an exact Bernoulli,
// below_fraction) and then takes e random bits, or goes on. For q = 10: one Bernoulli(8/9),
// then 3 bits or the value 8.
struct ProposalBlock {
  unsigned base = 0;  // the block's first value (its bits above bit `bits`)
  int bits = 0;       // 2^bits values
  bool last = false;  // every lane still undecided falls in it
  Fraction share;     // 2^bits / (values left), when not last
};

std::vector<ProposalBlock> proposal_blocks(unsigned values) {
  std::vector<ProposalBlock> blocks;
  for (unsigned base = 0; values > 0;) {
    ProposalBlock block;
    const unsigned size = std::bit_floor(values);
    block.base = base, block.bits = std::countr_zero(size), block.last = size == values;
    if (!block.last) block.share = Fraction(size, values);
    blocks.push_back(block);
    base += size, values -= size;
  }
  return blocks;
}

template <int P>
inline Colour<P> propose(const std::vector<ProposalBlock>& blocks, RandomWords& random) {
  Colour<P> r{};
  Word lanes = kAll;  // lanes not yet in a block
  for (const ProposalBlock& block : blocks) {
    const Word in_block = block.last ? lanes : below_fraction(lanes, block.share, random);
    for (int b = 0; b < P; ++b) {
      const Word value = b < block.bits ? random.next() : ((block.base >> b) & 1 ? kAll : 0);
      r[b] |= value & in_block;
    }
    lanes &= ~in_block;
    if (lanes == 0) break;
  }
  return r;
}

// The new colour: r, or r + 1 where r >= the old colour x (one of the other q - 1 colours).
template <int P>
inline Colour<P> new_colour(const Colour<P>& r, const Word* x) {
  Word below = 0, equal = kAll;  // lanes with r < x
  for (int b = P - 1; b >= 0; --b) {
    below |= equal & ~r[b] & x[b];
    equal &= ~(r[b] ^ x[b]);
  }
  Colour<P> c{};
  Word carry = ~below;
  for (int b = 0; b < P; ++b) {
    c[b] = r[b] ^ carry;
    carry &= r[b];
  }
  return c;
}

// The lanes that move from x to c: eq_old and eq_new count the equal neighbours before and
// after; class k holds the lanes whose count falls (K >= 0) or rises (K < 0) by k.
inline Word accepted_moves(const Moves& m, Count3 before, Count3 after, RandomWords& random) {
  // D = a - b in 4-bit two's complement, a the count that may exceed the other by k.
  const Count3 a = m.gains ? after : before, b = m.gains ? before : after;
  Word carry = kAll;  // a + ~b + 1
  auto add_bit = [&carry](Word x, Word y) {
    const Word s = x ^ y ^ carry;
    carry = (x & y) | (carry & (x ^ y));
    return s;
  };
  const Word d0 = add_bit(a.b0, ~b.b0), d1 = add_bit(a.b1, ~b.b1), d2 = add_bit(a.b2, ~b.b2);
  const Word non_negative = carry;  // bit 3 of D is ~carry: 0 for D >= 0
  std::array<Word, 4> classes = {non_negative & ~d2 & ~d1 & d0, non_negative & ~d2 & d1 & ~d0,
                                 non_negative & ~d2 & d1 & d0, non_negative & d2 & ~d1 & ~d0};
  Word rejectable = 0;
  for (int k = 0; k < 4; ++k) rejectable |= classes[k] &= m.thresholds[k].active;
  return ~rejectable |
         below_thresholds<4>(
             classes, {&m.thresholds[0], &m.thresholds[1], &m.thresholds[2], &m.thresholds[3]},
             random);
}

// Per lane, the number of equal-colour bonds (self-bonds of 1-wide tori included: always equal).
template <int P>
void recount_equal_bonds(const TorusLattice& lattice, const Word* w, PackedColourBatch& batch,
                         std::size_t first) {
  LaneCounter equal;
  for (int i = 0; i < lattice.num_sites(); ++i) {
    const auto& nb = lattice.neighbours(i);
    const Word* x = w + static_cast<std::size_t>(i) * P;
    equal.add(equal_colours<P>(x, w + static_cast<std::size_t>(nb[0]) * P));
    equal.add(equal_colours<P>(x, w + static_cast<std::size_t>(nb[1]) * P));
  }
  const std::size_t lanes = std::min(PackedColourBatch::kLanes, batch.num_particles() - first);
  for (std::size_t l = 0; l < lanes; ++l) batch.bond_sum(first + l) = equal.count(l);
}

// The kernel's sweeps on every group of the batch, for colours of P bits.
template <int P>
KernelInfo sweep_colours(const PottsTarget& target, PackedColourBatch& batch,
                         const BatchRandom& random, std::size_t sweeps, bool reversed,
                         StopToken stop) {
  const TorusLattice& lattice = *target.lattice;
  const Moves moves(target);
  const std::vector<ProposalBlock> blocks =
      proposal_blocks(static_cast<unsigned>(target.num_colours - 1));
  // A neighbour slot that is the site itself (1-wide torus) is a constant self-bond: not counted.
  std::array<Word, 4> counted{};
  for (int s = 0; s < 4; ++s)
    counted[s] = (s % 2 == 0 ? lattice.cols() : lattice.rows()) == 1 ? 0 : kAll;
  return sweep_groups(
      lattice, batch, random, sweeps, reversed, stop,
      [&](Word* w, const Visit& v, RandomWords& words) {
        Word* x = w + static_cast<std::size_t>(v.site) * P;
        const Colour<P> c = new_colour<P>(propose<P>(blocks, words), x);
        std::array<Word, 4> before, after;
        for (int s = 0; s < 4; ++s) {
          const Word* y = w + static_cast<std::size_t>(v.nb[s]) * P;
          before[s] = equal_colours<P>(x, y) & counted[s];
          after[s] = equal_colours<P>(c.data(), y) & counted[s];
        }
        const Word accept =
            accepted_moves(moves, count4(before[0], before[1], before[2], before[3]),
                           count4(after[0], after[1], after[2], after[3]), words);
        for (int b = 0; b < P; ++b) x[b] ^= (x[b] ^ c[b]) & accept;
        return accept;
      },
      [&](const Word* w, std::size_t first) { recount_equal_bonds<P>(lattice, w, batch, first); });
}

}  // namespace

MultiSpinPottsMetropolis::MultiSpinPottsMetropolis(SiteOrder order, std::size_t sweeps,
                                                   bool reversed)
    : SiteKernel(order, sweeps, reversed) {
  if (order != SiteOrder::checkerboard)
    fail_argument("logz::MultiSpinPottsMetropolis", "order",
                  "checkerboard (multi-spin sweeps visit sites in order)");
}

KernelInfo MultiSpinPottsMetropolis::step(const PottsTarget& target, PackedColourBatch& batch,
                                          const BatchRandom& random, StopToken stop) const {
  switch (batch.planes()) {
    case 1:
      return sweep_colours<1>(target, batch, random, steps(), is_reversed(), stop);
    case 2:
      return sweep_colours<2>(target, batch, random, steps(), is_reversed(), stop);
    case 3:
      return sweep_colours<3>(target, batch, random, steps(), is_reversed(), stop);
    case 4:
      return sweep_colours<4>(target, batch, random, steps(), is_reversed(), stop);
    case 5:
      return sweep_colours<5>(target, batch, random, steps(), is_reversed(), stop);
    case 6:
      return sweep_colours<6>(target, batch, random, steps(), is_reversed(), stop);
    case 7:
      return sweep_colours<7>(target, batch, random, steps(), is_reversed(), stop);
    default:
      return sweep_colours<8>(target, batch, random, steps(), is_reversed(), stop);
  }
}

}  // namespace logz
