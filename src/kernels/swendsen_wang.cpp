#include "logz/kernels/swendsen_wang.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "cluster_bonds.hpp"
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

// 1 if the bond between sites of values a and b is open (equal values, and its draw below the
// threshold), else 0: arithmetic, not a branch, since the outcome is unpredictable.
template <class Site>
int is_open(Site a, Site b, std::uint32_t draw, std::uint64_t threshold) {
  const auto equal = static_cast<unsigned>(a == b);
  const auto below = static_cast<unsigned>(std::uint64_t{draw} < threshold);
  return static_cast<int>(equal & below);
}

// A cluster's fresh Ising spin: one random bit each, 32 clusters to a drawn number.
struct FreshSpin {
  static std::size_t draws_per_sweep(int n) { return (static_cast<std::size_t>(n) + 31) / 32; }
  std::int8_t operator()(const std::uint32_t* draws, int k, RandomStream&) const {
    return (draws[k >> 5] >> (k & 31)) & 1u ? std::int8_t{1} : std::int8_t{-1};
  }
};

// A cluster's fresh Potts colour, uniform over q: Lemire's multiply-shift on its drawn number,
// exact, the rare rejected number replaced by the stream's next ones.
struct FreshColour {
  std::uint32_t q, reject_below;
  explicit FreshColour(std::uint32_t colours)
      : q(colours), reject_below(static_cast<std::uint32_t>(-colours) % colours) {}
  static std::size_t draws_per_sweep(int n) { return static_cast<std::size_t>(n); }
  std::uint8_t operator()(const std::uint32_t* draws, int k, RandomStream& rng) const {
    std::uint64_t m = std::uint64_t{draws[k]} * q;
    while (static_cast<std::uint32_t>(m) < reject_below) m = std::uint64_t{rng.next_u32()} * q;
    return static_cast<std::uint8_t>(m >> 32);
  }
};

// The sweeps of one particle's sites x (Ising spins or Potts colours), each cluster taking
// fresh(draws, k, rng) for its k-th cluster, from the numbers drawn for the sweep's clusters
// (Fresh::draws_per_sweep(n) of them); returns the number of site updates that changed a value
// and leaves its bond sum in bond_sum. Checks `stop` every sweep after the first.
template <class Site, class Fresh>
std::uint64_t sweep_particle(const TorusLattice& lattice, std::uint64_t threshold,
                             std::size_t sweeps, Site* __restrict x, RandomStream& rng,
                             const Fresh& fresh, std::int64_t& bond_sum, bool spins,
                             StopToken stop) {
  thread_local std::vector<std::int32_t> parent_store, open_store;
  thread_local std::vector<std::uint32_t> draw_store;
  const int n = lattice.num_sites(), rows = lattice.rows(), cols = lattice.cols();
  parent_store.resize(static_cast<std::size_t>(n));
  open_store.resize(static_cast<std::size_t>(cols));
  const std::size_t num_draws = 2 * static_cast<std::size_t>(n) + Fresh::draws_per_sweep(n);
  draw_store.resize(num_draws);
  std::int32_t* __restrict const parent = parent_store.data();
  std::int32_t* __restrict const open = open_store.data();
  std::uint32_t* __restrict const draws = draw_store.data();
  // Joins the bond from site i in `slot` (0: right, 1: down) of every site i of the list.
  auto join_listed = [&](int count, int slot) {
    for (int k = 0; k < count; ++k) join(parent, open[k], lattice.neighbours(open[k])[slot]);
  };
  std::uint64_t changed = 0;
  for (std::size_t sweep = 0; sweep < sweeps; ++sweep) {
    if (sweep > 0) stop.throw_if_requested();
    // One number per bond (right and down of site i: 2i, 2i + 1), then the clusters' numbers.
    rng.fill_u32(draws, num_draws);
    const std::uint32_t* cluster_draws = draws + 2 * n;
    int cluster = 0;
    // Row by row, listing the open bonds first so that only the joins branch. Below the last row
    // a site's down neighbour is not linked to anything yet (its other earlier neighbours lie in
    // its own row, which comes later), so an open down bond is a single link to the site.
    for (int i = 0; i < cols; ++i) parent[i] = i;
    for (int row = 0; row < rows; ++row) {
      const int first = row * cols;
      int count = 0;
      for (int i = first; i < first + cols; ++i) {
        open[count] = i;
        count += is_open(x[i], x[lattice.neighbours(i)[0]], draws[2 * i], threshold);
      }
      join_listed(count, 0);
      if (row + 1 < rows) {
        for (int i = first; i < first + cols; ++i) {
          const int j = i + cols;  // the down neighbour
          parent[j] = j - cols * is_open(x[i], x[j], draws[2 * i + 1], threshold);
        }
      } else {
        // The last row's down bonds wrap to row 0 (to the site itself on a 1-high torus).
        count = 0;
        for (int i = first; i < first + cols; ++i) {
          open[count] = i;
          count += is_open(x[i], x[lattice.neighbours(i)[1]], draws[2 * i + 1], threshold);
        }
        join_listed(count, 1);
      }
    }
    for (int i = 0; i < n; ++i) {
      const std::int32_t root = parent[parent[i]];  // parent[i] <= i holds its root by now
      parent[i] = root;
      // The root (lowest site) was renewed already.
      const Site value = root == i ? fresh(cluster_draws, cluster++, rng) : x[root];
      changed += value != x[i];
      x[i] = value;
    }
  }
  bond_sum = cluster_bonds::bond_sum(lattice, x, spins);
  return changed;
}

template <class Site, class Fresh>
KernelInfo sweep_batch(const TorusLattice& lattice, double k_bond, std::size_t sweeps,
                       LatticeBatch<Site>& batch, const BatchRandom& random, const Fresh& fresh,
                       bool spins, StopToken stop) {
  const std::uint64_t threshold = cluster_bonds::open_threshold(k_bond, "swendsen_wang");
  KernelInfo info;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    info.accepted += sweep_particle(lattice, threshold, sweeps, batch.sites(p), rng, fresh,
                                    batch.bond_sum(p), spins, stop);
  }
  info.attempted = sweeps * static_cast<std::uint64_t>(lattice.num_sites()) * batch.num_particles();
  return info;
}

}  // namespace

KernelInfo SwendsenWang::step(const IsingTarget& target, SpinBatch& batch,
                              const BatchRandom& random, StopToken stop) const {
  return sweep_batch(*target.lattice, 2.0 * target.beta_coupling, sweeps_, batch, random,
                     FreshSpin{}, true, stop);
}

KernelInfo SwendsenWang::step(const PottsTarget& target, PottsBatch& batch,
                              const BatchRandom& random, StopToken stop) const {
  return sweep_batch(*target.lattice, target.beta_coupling, sweeps_, batch, random,
                     FreshColour(static_cast<std::uint32_t>(target.num_colours)), false, stop);
}

}  // namespace logz
