// A general pairwise binary Markov random field (a fully visible Boltzmann machine): units
// x in {0, 1}^n and energy E(x) = -(1/2) x^T W x - b^T x with symmetric couplings W (zero
// diagonal) and fields b. Its annealing path runs from the uniform base (log Z_0 = n log 2) to
// exp(-beta E): the tempered energy at path fraction t is t beta E(x).
// Its kernel is kernels/pairwise_mrf_heat_bath.hpp; its exact log Z and exact draws are
// exact/pairwise_mrf_enumeration.hpp.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct PairwiseMrfParameters {
  Eigen::MatrixXd W;  // n x n, symmetric, zero diagonal
  Eigen::VectorXd b;  // n
  int size() const { return static_cast<int>(b.size()); }
};

// n units with every coupling W_ij = W_ji (i > j) and field b_i drawn from N(0, scale^2), in
// the order b_0, then for each i > 0: b_i, W_i0, ..., W_i(i-1), from the data stream of `seed`.
PairwiseMrfParameters random_pairwise_mrf_parameters(int n, double scale, std::uint64_t seed);

// The states of a chunk of particles, with each particle's local fields b + W x and energy
// kept up to date by the kernel (an update costs O(n), an energy O(1)).
class PairwiseMrfBatch {
 public:
  PairwiseMrfBatch(std::size_t particles, int n);
  std::size_t num_particles() const { return energy_.size(); }
  int num_units() const { return n_; }
  std::uint8_t* x(std::size_t p) { return x_.data() + p * static_cast<std::size_t>(n_); }
  const std::uint8_t* x(std::size_t p) const {
    return x_.data() + p * static_cast<std::size_t>(n_);
  }
  double* field(std::size_t p) { return field_.data() + p * static_cast<std::size_t>(n_); }
  const double* field(std::size_t p) const {
    return field_.data() + p * static_cast<std::size_t>(n_);
  }
  double& energy(std::size_t p) { return energy_[p]; }
  double energy(std::size_t p) const { return energy_[p]; }
  void copy_particle(const PairwiseMrfBatch& from, std::size_t from_p, std::size_t to_p);
  // For checkpoints (core/batch_state.hpp): the fields and energies are kept up to date by
  // sums, so they are saved with the states rather than recomputed.
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<std::uint8_t>(x_)), f(std::span<double>(field_)), f(std::span<double>(energy_));
  }

 private:
  int n_;
  std::vector<std::uint8_t> x_;
  std::vector<double> field_;
  std::vector<double> energy_;
};

// The model at inverse temperature beta_t, as the kernel sees it.
struct PairwiseMrfTarget {
  const PairwiseMrfParameters* parameters = nullptr;
  double beta = 0.0;
};

// The annealing path: uniform base, tempered energy t beta E(x).
class PairwiseMrfPath {
 public:
  PairwiseMrfPath(PairwiseMrfParameters parameters, double beta)
      : p_(std::move(parameters)), beta_(beta) {}

  using Batch = PairwiseMrfBatch;
  static constexpr bool geometric_path = true;  // U_t = t beta E: linear in t
  const PairwiseMrfParameters& parameters() const { return p_; }
  double beta() const { return beta_; }
  double base_log_z() const;
  Batch make_batch(std::size_t particles) const { return Batch(particles, p_.size()); }
  PairwiseMrfTarget at(double t) const { return {&p_, t * beta_}; }

  // Fields and energy of particle p from its state.
  void refresh(Batch& batch, std::size_t p) const;
  // Uniform bits, 32 units per draw of 32 random bits.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  void trace_energy(const Batch& batch, std::span<double> out) const;

 private:
  PairwiseMrfParameters p_;
  double beta_;
};

static_assert(AnnealingPath<PairwiseMrfPath>);
static_assert(TemperingPath<PairwiseMrfPath> && is_geometric_path<PairwiseMrfPath>);

}  // namespace logz
