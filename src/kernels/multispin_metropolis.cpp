#include "logz/kernels/multispin_metropolis.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"

namespace logz {

namespace {

using Word = std::uint64_t;
constexpr Word kAll = ~Word{0};
constexpr int kThresholdBits = 32;

// A site and its neighbours (right, down, left, up), in the order a sweep visits them.
struct Visit {
  std::int32_t site;
  std::array<std::int32_t, 4> nb;
};

std::vector<Visit> sweep_order(const TorusLattice& lattice) {
  std::vector<Visit> visits;
  visits.reserve(static_cast<std::size_t>(lattice.num_sites()));
  for (int colour = 0; colour < 2; ++colour)
    for (std::int32_t i : lattice.sites_of_colour(colour)) visits.push_back({i, lattice.neighbours(i)});
  return visits;
}

// The acceptance of a flip as lane masks. With K = beta J >= 0 the flips that may be rejected
// are those of sites with no anti-aligned neighbour ("hard": Delta E = 8K) and with one ("soft":
// 4K); with K < 0, those with no or one aligned neighbour, which counting the complement
// (invert) turns into the same two classes.
struct Acceptance {
  Word invert = 0;
  Word hard_active = 0, soft_active = 0;  // kAll where the class can be rejected
  // Bit 31 - b of the class's 32-bit threshold, as a lane mask.
  std::array<Word, kThresholdBits> hard_bits{}, soft_bits{};

  explicit Acceptance(const IsingTarget& t) {
    invert = t.beta_coupling < 0 ? kAll : 0;
    // accept_threshold is indexed by (s_i h + 4) / 2 with s_i h = 4 - 2 * (anti-aligned).
    const std::uint64_t hard = t.beta_coupling < 0 ? t.accept_threshold[0] : t.accept_threshold[4];
    const std::uint64_t soft = t.beta_coupling < 0 ? t.accept_threshold[1] : t.accept_threshold[3];
    constexpr std::uint64_t kAlways = std::uint64_t{1} << kThresholdBits;
    hard_active = hard < kAlways ? kAll : 0;
    soft_active = soft < kAlways ? kAll : 0;
    for (int b = 0; b < kThresholdBits; ++b) {
      hard_bits[b] = (hard >> (kThresholdBits - 1 - b)) & 1 ? kAll : 0;
      soft_bits[b] = (soft >> (kThresholdBits - 1 - b)) & 1 ? kAll : 0;
    }
  }
};

// 64 random bits at a time from one stream, drawn in bulk.
class RandomWords {
 public:
  explicit RandomWords(RandomStream stream) : stream_(stream) {}
  Word next() {
    if (pos_ == kBuffered) {
      stream_.fill_u32(buffer_.data(), buffer_.size());
      pos_ = 0;
    }
    const Word w = (static_cast<Word>(buffer_[2 * pos_]) << 32) | buffer_[2 * pos_ + 1];
    ++pos_;
    return w;
  }

 private:
  static constexpr std::size_t kBuffered = 256;  // words
  RandomStream stream_;
  std::array<std::uint32_t, 2 * kBuffered> buffer_{};
  std::size_t pos_ = kBuffered;
};

// One site of 64 lanes: returns the lanes that flip. u[k] has a lane's bit set where neighbour
// k is anti-aligned (a self-neighbour of a 1-wide torus counts aligned in one slot and
// anti-aligned in the other: no contribution, as its bond is constant).
inline Word accepted_flips(const Acceptance& a, Word u0, Word u1, Word u2, Word u3, RandomWords& random) {
  const Word v0 = u0 ^ a.invert, v1 = u1 ^ a.invert, v2 = u2 ^ a.invert, v3 = u3 ^ a.invert;
  const Word x01 = v0 ^ v1, x23 = v2 ^ v3;
  const Word two_or_more = (v0 & v1) | (v2 & v3) | (x01 & x23);
  Word hard = ~(v0 | v1 | v2 | v3) & a.hard_active;
  Word soft = (x01 ^ x23) & ~two_or_more & a.soft_active;
  Word accept = ~(hard | soft);
  // Lane l accepts when its uniform u_l < threshold: compare bit by bit from the top; a lane is
  // decided at the first bit where u_l and the threshold differ, undecided lanes go on.
  for (int b = 0; (hard | soft) != 0 && b < kThresholdBits; ++b) {
    const Word r = random.next();
    accept |= ((hard & a.hard_bits[b]) | (soft & a.soft_bits[b])) & ~r;
    hard &= ~(r ^ a.hard_bits[b]);
    soft &= ~(r ^ a.soft_bits[b]);
  }
  return accept;  // lanes still undecided after 32 bits have u_l == threshold: rejected
}

// Per lane, the bond sum sum over bonds of s_i s_j = bonds - 2 * (anti-aligned bonds), the
// anti-aligned bonds counted lane by lane in bit-sliced counters.
void recount_bond_sums(const TorusLattice& lattice, const Word* w, PackedSpinBatch& batch, std::size_t first) {
  const int bonds = lattice.num_bonds();
  const int planes = std::bit_width(static_cast<unsigned>(bonds));
  std::array<Word, 32> count{};
  auto add = [&](Word m) {
    for (int k = 0; m != 0; ++k) {
      const Word carry = count[k] & m;
      count[k] ^= m;
      m = carry;
    }
  };
  for (int i = 0; i < lattice.num_sites(); ++i) {
    const auto& nb = lattice.neighbours(i);
    add(w[i] ^ w[nb[0]]);
    add(w[i] ^ w[nb[1]]);
  }
  const std::size_t lanes = std::min(PackedSpinBatch::kLanes, batch.num_particles() - first);
  for (std::size_t l = 0; l < lanes; ++l) {
    std::int64_t anti = 0;
    for (int k = 0; k < planes; ++k) anti |= static_cast<std::int64_t>((count[k] >> l) & 1) << k;
    batch.bond_sum(first + l) = bonds - 2 * anti;
  }
}

}  // namespace

MultiSpinMetropolis::MultiSpinMetropolis(SiteOrder order, std::size_t sweeps, bool reversed)
    : SiteKernel(order, sweeps, reversed) {
  if (order != SiteOrder::checkerboard)
    fail_argument("logz::MultiSpinMetropolis", "order", "checkerboard (multi-spin sweeps visit sites in order)");
}

KernelInfo MultiSpinMetropolis::step(const IsingTarget& target, PackedSpinBatch& batch,
                                     const BatchRandom& random) const {
  const TorusLattice& lattice = *target.lattice;
  const Acceptance acceptance(target);
  const std::vector<Visit> visits = sweep_order(lattice);
  const std::size_t n = visits.size();
  // On a 1-wide torus the left (or up) slot is the site itself: count it anti-aligned, the
  // right (or down) one aligned.
  const Word self_left = lattice.cols() == 1 ? kAll : 0, self_up = lattice.rows() == 1 ? kAll : 0;
  KernelInfo info;
  for (std::size_t g = 0; g < batch.num_groups(); ++g) {
    Word* w = batch.words(g);
    RandomWords words(random.stream(g * PackedSpinBatch::kLanes));
    const Word lanes = batch.lane_mask(g);
    std::uint64_t flips = 0;
    for (std::size_t sweep = 0; sweep < steps(); ++sweep) {
      if (sweep > 0) throw_if_stop_requested();
      for (std::size_t j = 0; j < n; ++j) {
        const Visit& v = visits[is_reversed() ? n - 1 - j : j];
        const Word s = w[v.site];
        const Word flip = accepted_flips(acceptance, s ^ w[v.nb[0]], s ^ w[v.nb[1]], s ^ w[v.nb[2]] ^ self_left,
                                         s ^ w[v.nb[3]] ^ self_up, words);
        w[v.site] = s ^ flip;
        flips += static_cast<std::uint64_t>(std::popcount(flip & lanes));
      }
    }
    recount_bond_sums(lattice, w, batch, g * PackedSpinBatch::kLanes);
    info += KernelInfo{steps() * n * static_cast<std::uint64_t>(std::popcount(lanes)), flips};
  }
  return info;
}

}  // namespace logz
