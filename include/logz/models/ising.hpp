// The 2D Ising model on an R x C torus (TorusLattice): spins s_i = +-1 and
// energy E(s) = -J sum over the 2RC bonds of s_i s_j. Its annealing path runs
// from the uniform base (log Z_0 = N log 2) to exp(-beta E): the tempered
// energy at path fraction t is t * beta * E(s).
#pragma once

#include <array>
#include <cstdint>

#include "logz/core/annealing_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/models/lattice_model.hpp"
#include "logz/models/torus_lattice.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// The Ising model at one inverse temperature, as a kernel sees it: the
// effective coupling K = beta * J and the Metropolis acceptance thresholds.
struct IsingTarget {
  const TorusLattice* lattice = nullptr;
  double beta_coupling = 0.0;  // K = beta * J
  // Flipping s_i with local field h = sum of its 4 neighbours changes the
  // tempered energy by 2 K s_i h; s_i h is one of -4, -2, 0, 2, 4 (index (s_i h + 4) / 2).
  // accept_threshold[j] = min(1, exp(-2 K s_i h)) * 2^32, compared with 32 random bits.
  std::array<std::uint64_t, 5> accept_threshold{};
  // Heat-bath probability of s_i = +1 given h: 1 / (1 + exp(-2 K h)), same indexing by h.
  std::array<double, 5> up_probability{};

  IsingTarget(const TorusLattice& l, double beta_coupling);
};

class IsingModel : public LatticeModel<std::int8_t> {
 public:
  IsingModel(int rows, int cols, double coupling, double beta);

  // sum over bonds of s_i s_j, computed from scratch.
  std::int64_t bond_sum(const std::int8_t* spins) const;
  // The target at path fraction t: inverse temperature t * beta.
  IsingTarget at(double t) const { return IsingTarget(lattice_, t * beta_ * coupling_); }
  // The base: uniform spins, log Z_0 = N log 2.
  double base_log_z() const;
  // Exact draws from the uniform base.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // A ground state: all +1 or all -1 with probability 1/2 each (J > 0), or the
  // corresponding Neel state (J < 0).
  void ground_state(Batch& batch, const BatchRandom& random) const;
};

static_assert(AnnealingPath<IsingModel>);
static_assert(TemperingPath<IsingModel> && is_geometric_path<IsingModel>);

}  // namespace logz
