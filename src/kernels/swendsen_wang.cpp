#include "logz/kernels/swendsen_wang.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"

namespace logz {

namespace {

// Union-find over the sites of one particle in a plain array (raw pointers: the sites are
// bytes, which may alias anything, so a vector's data pointer would be reloaded after every
// store to them). The root of a cluster is its lowest site and every link points to a lower
// site, so a pass in increasing site order meets every root before the rest of its cluster, and
// finds the root of site i's parent already resolved.
std::int32_t find_root(std::int32_t* parent, std::int32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

void join(std::int32_t* parent, std::int32_t a, std::int32_t b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

// The bond-opening threshold: p = 1 - exp(-k_bond) as a 32-bit fraction.
std::uint64_t open_threshold(double k_bond) {
  const double p = -std::expm1(-k_bond);
  return p >= 1.0 ? (std::uint64_t{1} << 32) : static_cast<std::uint64_t>(std::ldexp(p, 32));
}

// The sweeps of one particle's sites x (Ising spins or Potts colours), each cluster taking
// fresh(u, rng) from a 32-bit number u drawn for it; returns the number of site updates that changed a value and leaves the count of equal bonds in
// equal_bonds.
template <class Site, class Fresh>
std::uint64_t sweep_particle(const TorusLattice& lattice, std::uint64_t threshold, std::size_t sweeps, Site* x,
                             RandomStream& rng, Fresh&& fresh, std::int64_t& equal_bonds) {
  thread_local std::vector<std::int32_t> parent_store;
  thread_local std::vector<std::uint32_t> draw_store;
  const int n = lattice.num_sites();
  parent_store.resize(static_cast<std::size_t>(n));
  draw_store.resize(3 * static_cast<std::size_t>(n));
  std::int32_t* const parent = parent_store.data();
  std::uint32_t* const draws = draw_store.data();
  std::uint64_t changed = 0;
  for (std::size_t sweep = 0; sweep < sweeps; ++sweep) {
    if (sweep > 0) throw_if_stop_requested();
    for (int i = 0; i < n; ++i) parent[i] = i;
    // One number per bond (right and down of site i: 2i, 2i + 1), then one per cluster (at most n).
    rng.fill_u32(draws, 3 * static_cast<std::size_t>(n));
    const std::uint32_t* cluster_draw = draws + 2 * n;
    // Row by row: site i's own root r is kept while its two bonds are joined. Below the last
    // row, i's down neighbour has not been linked yet (its other earlier neighbours lie in its
    // own row, after i), so it joins i's cluster by a single link.
    const int first_of_last_row = n - lattice.cols();
    for (int i = 0; i < n; ++i) {
      const auto& nb = lattice.neighbours(i);
      // The bonds site i owns: to the right (slot 0) and down (slot 1).
      const bool right = (x[i] == x[nb[0]]) & (draws[2 * i] < threshold);
      const bool down = (x[i] == x[nb[1]]) & (draws[2 * i + 1] < threshold);
      if (!(right | down)) continue;
      std::int32_t r = find_root(parent, i);
      if (right) {
        const std::int32_t rj = find_root(parent, nb[0]);
        if (rj < r)
          parent[r] = rj, r = rj;
        else if (r < rj)
          parent[rj] = r;
      }
      if (down) {
        if (i < first_of_last_row)
          parent[nb[1]] = r;
        else
          join(parent, r, nb[1]);
      }
    }
    for (int i = 0; i < n; ++i) {
      const std::int32_t root = parent[parent[i]];  // parent[i] <= i holds its root by now
      parent[i] = root;
      // The root (lowest site) was renewed already.
      const Site value = root == i ? fresh(*cluster_draw++, rng) : x[root];
      changed += value != x[i];
      x[i] = value;
    }
  }
  equal_bonds = 0;
  for (int i = 0; i < n; ++i) {
    const auto& nb = lattice.neighbours(i);
    equal_bonds += (x[i] == x[nb[0]]) + (x[i] == x[nb[1]]);
  }
  return changed;
}

template <class Site, class Fresh>
KernelInfo sweep_batch(const TorusLattice& lattice, double k_bond, std::size_t sweeps, LatticeBatch<Site>& batch,
                       const BatchRandom& random, const Fresh& fresh, bool spins) {
  if (!(k_bond >= 0.0)) fail_argument("swendsen_wang", "coupling", "beta * coupling >= 0 (ferromagnetic)");
  const std::uint64_t threshold = open_threshold(k_bond);
  KernelInfo info;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    std::int64_t equal = 0;
    info.accepted += sweep_particle(lattice, threshold, sweeps, batch.sites(p), rng, fresh, equal);
    // Ising bond sum: equal bonds count +1, the others -1.
    batch.bond_sum(p) = spins ? 2 * equal - lattice.num_bonds() : equal;
  }
  info.attempted = sweeps * static_cast<std::uint64_t>(lattice.num_sites()) * batch.num_particles();
  return info;
}

}  // namespace

KernelInfo SwendsenWang::step(const IsingTarget& target, SpinBatch& batch, const BatchRandom& random) const {
  auto fresh = [](std::uint32_t u, RandomStream&) { return static_cast<std::int8_t>(u >> 31 ? 1 : -1); };
  return sweep_batch(*target.lattice, 2.0 * target.beta_coupling, sweeps_, batch, random, fresh, true);
}

KernelInfo SwendsenWang::step(const PottsTarget& target, PottsBatch& batch, const BatchRandom& random) const {
  const auto q = static_cast<std::uint32_t>(target.num_colours);
  // Lemire's multiply-shift, exact: the rare rejected u is replaced by the stream's next numbers.
  const std::uint32_t reject_below = static_cast<std::uint32_t>(-q) % q;
  auto fresh = [q, reject_below](std::uint32_t u, RandomStream& rng) {
    std::uint64_t m = std::uint64_t{u} * q;
    while (static_cast<std::uint32_t>(m) < reject_below) m = std::uint64_t{rng.next_u32()} * q;
    return static_cast<std::uint8_t>(m >> 32);
  };
  return sweep_batch(*target.lattice, target.beta_coupling, sweeps_, batch, random, fresh, false);
}

}  // namespace logz
