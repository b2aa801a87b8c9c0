// The 2D Ising model on an R x C torus (TorusLattice): spins s_i = +-1 and
// energy E(s) = -J sum over the 2RC bonds of s_i s_j. Its annealing path runs
// from the uniform base (log Z_0 = N log 2) to exp(-beta E): the tempered
// energy at path fraction t is t * beta * E(s).
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

// The spin states of a chunk of particles, with each particle's bond sum
// sum_<ij> s_i s_j kept up to date by the kernels (so energies cost O(1)).
class SpinBatch {
 public:
  SpinBatch(std::size_t num_particles, int num_sites)
      : num_sites_(num_sites),
        spins_(num_particles * static_cast<std::size_t>(num_sites), 1),
        bond_sums_(num_particles, 0) {}

  std::size_t num_particles() const { return bond_sums_.size(); }
  int num_sites() const { return num_sites_; }
  std::int8_t* spins(std::size_t p) { return spins_.data() + p * num_sites_; }
  const std::int8_t* spins(std::size_t p) const { return spins_.data() + p * num_sites_; }
  std::int64_t& bond_sum(std::size_t p) { return bond_sums_[p]; }
  std::int64_t bond_sum(std::size_t p) const { return bond_sums_[p]; }
  void copy_particle(const SpinBatch& from, std::size_t from_p, std::size_t to_p);

 private:
  int num_sites_;
  std::vector<std::int8_t> spins_;
  std::vector<std::int64_t> bond_sums_;
};

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

class IsingModel {
 public:
  IsingModel(int rows, int cols, double coupling, double beta);

  const TorusLattice& lattice() const { return lattice_; }
  int num_sites() const { return lattice_.num_sites(); }
  double coupling() const { return coupling_; }
  double beta() const { return beta_; }

  // E(s) = -J * bond_sum(s).
  double energy(std::int64_t bond_sum) const { return -coupling_ * static_cast<double>(bond_sum); }
  // sum over bonds of s_i s_j, computed from scratch.
  std::int64_t bond_sum(const std::int8_t* spins) const;
  // The target at path fraction t: inverse temperature t * beta.
  IsingTarget at(double t) const { return IsingTarget(lattice_, t * beta_ * coupling_); }
  // The base: uniform spins, log Z_0 = N log 2.
  double base_log_z() const;

  // ---- the annealing-path interface (core/annealing_path.hpp)
  using Batch = SpinBatch;
  static constexpr bool geometric_path = true;  // U_t = t * beta * E: linear in t
  Batch make_batch(std::size_t num_particles) const { return Batch(num_particles, num_sites()); }
  // Exact draws from the uniform base.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // Tempered energies differ by (t_to - t_from) * beta * E(s) at fixed s.
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // E(s) of every particle (the hysteresis trace).
  void trace_energy(const Batch& batch, std::span<double> out) const;
  // A ground state: all +1 or all -1 with probability 1/2 each (J > 0), or the
  // corresponding Neel state (J < 0).
  void ground_state(Batch& batch, const BatchRandom& random) const;

 private:
  TorusLattice lattice_;
  double coupling_;
  double beta_;
};

static_assert(AnnealingPath<IsingModel>);
static_assert(TemperingPath<IsingModel> && is_geometric_path<IsingModel>);

}  // namespace logz
