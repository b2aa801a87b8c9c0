// The q-state Potts model on an R x C torus (TorusLattice): colours x_i in
// {0, ..., q-1} and energy E(x) = -J sum over the 2RC bonds of delta(x_i, x_j),
// i.e. -J times the number of equal-colour bonds. Habeck (2017), section 6.2, uses
// q = 10, J = 2 ("interaction energy 2 delta") and beta from 0 to 1. The annealing
// path runs from uniform colours (log Z_0 = N log q) to exp(-beta E): the
// tempered energy at path fraction t is t * beta * E(x).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// The colours of a chunk of particles, with each particle's number of
// equal-colour bonds kept up to date by the kernels (so energies cost O(1)).
class PottsBatch {
 public:
  PottsBatch(std::size_t num_particles, int num_sites)
      : num_sites_(num_sites),
        colours_(num_particles * static_cast<std::size_t>(num_sites), 0),
        equal_bonds_(num_particles, 0) {}

  std::size_t num_particles() const { return equal_bonds_.size(); }
  int num_sites() const { return num_sites_; }
  std::uint8_t* colours(std::size_t p) { return colours_.data() + p * num_sites_; }
  const std::uint8_t* colours(std::size_t p) const { return colours_.data() + p * num_sites_; }
  std::int64_t& equal_bonds(std::size_t p) { return equal_bonds_[p]; }
  std::int64_t equal_bonds(std::size_t p) const { return equal_bonds_[p]; }
  void copy_particle(const PottsBatch& from, std::size_t from_p, std::size_t to_p);

 private:
  int num_sites_;
  std::vector<std::uint8_t> colours_;
  std::vector<std::int64_t> equal_bonds_;
};

// The Potts model at one inverse temperature, as a kernel sees it: the
// effective coupling K = beta * J and the tables of the single-site updates.
// A site's "equal count" for colour c is the number of its bonds to other
// sites of colour c (0..4; a self-bond on a 1-wide torus is always equal and
// never changes, so it is left out).
struct PottsTarget {
  const TorusLattice* lattice = nullptr;
  int num_colours = 2;         // q
  double beta_coupling = 0.0;  // K = beta * J
  // Metropolis: a move that changes the site's equal count by d (-4..4) changes
  // the tempered energy by -K d; accept_threshold[d + 4] = min(1, exp(K d)) * 2^32,
  // compared with 32 random bits.
  std::array<std::uint64_t, 9> accept_threshold{};
  // Heat bath: bond_factor[d + 4] = exp(K d), the weight of a colour whose equal
  // count exceeds a reference colour's by d (the kernel picks the reference so
  // that only factors <= 1 are used).
  std::array<double, 9> bond_factor{};
  // Heat bath by the pattern of equal colours among a site's four neighbour
  // slots (no self-bond): code bit b is set when slot pair b = (0,1), (0,2),
  // (0,3), (1,2), (1,3), (2,3) has equal colours. heat_bath_threshold[code][k] =
  // 2^32 times the probability that the new colour is one first seen at a slot
  // <= k; the rest, up to 2^32, belongs to the q - m colours absent around the
  // site (uniform among them). Codes that no colouring produces are all zero.
  std::array<std::array<std::uint64_t, 4>, 64> heat_bath_threshold{};

  PottsTarget(const TorusLattice& l, int q, double beta_coupling);
};

class PottsModel {
 public:
  static constexpr int kMaxColours = 255;

  // rows, cols >= 1; q in 2..255; coupling finite; beta >= 0 finite.
  PottsModel(int rows, int cols, int q, double coupling, double beta);

  const TorusLattice& lattice() const { return lattice_; }
  int num_sites() const { return lattice_.num_sites(); }
  int num_colours() const { return q_; }
  double coupling() const { return coupling_; }
  double beta() const { return beta_; }

  // E(x) = -J * equal_bonds(x).
  double energy(std::int64_t equal_bonds) const {
    return -coupling_ * static_cast<double>(equal_bonds);
  }
  // The number of equal-colour bonds among the 2RC bonds, computed from scratch.
  std::int64_t equal_bonds(const std::uint8_t* colours) const;
  // The target at path fraction t: inverse temperature t * beta.
  PottsTarget at(double t) const { return PottsTarget(lattice_, q_, t * beta_ * coupling_); }
  // The base: uniform colours, log Z_0 = N log q.
  double base_log_z() const;

  // ---- the annealing-path interface (core/annealing_path.hpp)
  using Batch = PottsBatch;
  static constexpr bool geometric_path = true;  // U_t = t * beta * E: linear in t
  Batch make_batch(std::size_t num_particles) const { return Batch(num_particles, num_sites()); }
  // Exact draws from the uniform base.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // Tempered energies differ by (t_to - t_from) * beta * E(x) at fixed x.
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // E(x) of every particle (the hysteresis trace).
  void trace_energy(const Batch& batch, std::span<double> out) const;
  // A ground state. J >= 0: all sites one colour, drawn uniformly. J < 0: a
  // checkerboard of two distinct random colours (a ground state, with no equal
  // bond, when both sides are even; otherwise a low-energy start that the
  // equilibration has to finish).
  void ground_state(Batch& batch, const BatchRandom& random) const;

 private:
  TorusLattice lattice_;
  int q_;
  double coupling_;
  double beta_;
};

static_assert(AnnealingPath<PottsModel>);
static_assert(TemperingPath<PottsModel> && is_geometric_path<PottsModel>);

}  // namespace logz
