// The q-state Potts model on an R x C torus (TorusLattice): colours x_i in
// {0, ..., q-1} and energy E(x) = -J sum over the 2RC bonds of delta(x_i, x_j),
// i.e. -J times the number of equal-colour bonds. Habeck (2017), section 6.2, uses
// q = 10, J = 2 ("interaction energy 2 delta") and beta from 0 to 1. The annealing
// path runs from uniform colours (log Z_0 = N log q) to exp(-beta E): the
// tempered energy at path fraction t is t * beta * E(x).
#pragma once

#include <array>
#include <cstdint>

#include "logz/core/annealing_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/models/lattice_model.hpp"
#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// The Potts model at one inverse temperature, as a kernel sees it: the
// effective coupling K = beta * J and the tables of the single-site updates.
// The colour classes of a site's four neighbour slots from the pattern code of the heat baths'
// tables (bit b set when slot pair b = (0,1), (0,2), (0,3), (1,2), (1,3), (2,3) shares a colour):
// label[s] = the first slot of slot s's class. False for codes no colouring produces (equalities
// that are not transitive).
bool neighbour_slot_classes(int code, std::array<int, 4>& label);

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

class PottsModel : public LatticeModel<std::uint8_t> {
 public:
  static constexpr int kMaxColours = 255;

  // rows, cols >= 1; q in 2..255; coupling finite; beta >= 0 finite.
  PottsModel(int rows, int cols, int q, double coupling, double beta);

  int num_colours() const { return q_; }
  // The number of equal-colour bonds among the 2RC bonds, computed from scratch.
  std::int64_t equal_bonds(const std::uint8_t* colours) const;
  // The target at path fraction t: inverse temperature t * beta.
  PottsTarget at(double t) const { return PottsTarget(lattice_, q_, t * beta_ * coupling_); }
  // The base: uniform colours, log Z_0 = N log q.
  double base_log_z() const;
  // Exact draws from the uniform base.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // A ground state. J >= 0: all sites one colour, drawn uniformly. J < 0: a
  // checkerboard of two distinct random colours (a ground state, with no equal
  // bond, when both sides are even; otherwise a low-energy start that the
  // equilibration has to finish).
  void ground_state(Batch& batch, const BatchRandom& random) const;

 private:
  int q_;
};

static_assert(AnnealingPath<PottsModel>);
static_assert(TemperingPath<PottsModel> && is_geometric_path<PottsModel>);

}  // namespace logz
