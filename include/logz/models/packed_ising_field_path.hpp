// The Ising model's field path (models/potts_field_path.hpp, with q = 2) in Ising terms and in
// multi-spin coding, for the multi-spin Metropolis kernel: from independent spins with a field
// h0 on the +1 spins, beta is raised with the field on (t in [0, 1/2]), then the field is
// switched off at beta (t in (1/2, 1]); the log-weight at t is beta_t J S(x) + h_t n_+(x)
// (S: the bond sum, n_+: the +1 spins). At t = 1 the target is restricted by the +1 spins'
// share w_+(x) = e^{n_+} / (e^{n_+} + e^{n_-}), whose normaliser is exactly Z / 2 by the
// spin-flip symmetry. The same path, estimate and log Z as PottsFieldPath on the two-colour
// Potts model with coupling 2J (colour 0: the +1 spins), with the +1 spins counted by the
// kernel instead of site by site.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "logz/core/annealing_path.hpp"
#include "logz/models/field_counted_batch.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_spin_batch.hpp"
#include "logz/models/potts_field_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// The Ising model with a field on the +1 spins at one point of the path.
struct IsingFieldTarget {
  const TorusLattice* lattice = nullptr;
  double beta_coupling = 0.0;  // K = beta_t J
  double field = 0.0;          // h_t: log-weight per +1 spin
  // accept_threshold[5 z + a] = min(1, exp(K (4 a - 8) + h (1 - 2 z))) * 2^32: a flip of a spin
  // z (1: +1) with a anti-aligned neighbours, compared with 32 random bits (as IsingTarget).
  std::array<std::uint64_t, 10> accept_threshold{};

  IsingFieldTarget(const TorusLattice& l, double beta_coupling, double field);
};

// PackedSpinBatch with each particle's +1 spins counted.
using PackedFieldSpinBatch = FieldCountedBatch<PackedSpinBatch>;

class PackedIsingFieldPath {
 public:
  using Batch = PackedFieldSpinBatch;

  // field: h0 > 0, finite, with 8 |beta J| + h0 <= PottsFieldPath::kMaxLogWeightRange (the
  // two-colour Potts model's range; InvalidArgument naming "field").
  PackedIsingFieldPath(const IsingModel& model, double field);

  const IsingModel& model() const { return model_; }
  double field() const { return legs_.field; }
  int num_sites() const { return model_.num_sites(); }
  double beta_fraction(double t) const { return legs_.beta_fraction(t); }
  double field_at(double t) const { return legs_.field_at(t); }

  // ---- the annealing-path interface (core/annealing_path.hpp)
  Batch make_batch(std::size_t n) const { return Batch(n, num_sites()); }
  // Independent spins: +1 with probability 1 / (1 + e^-h0), from each particle's own stream.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // N log(1 + e^h0) + log 2 (the restriction's factor).
  double base_log_z() const;
  // U_{t_to}(x) - U_{t_from}(x), U_t = -(beta_t J S + h_t n_+) - [t = 1] log w_+(x).
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // E = -J S of every particle.
  void trace_energy(const Batch& batch, std::span<double> out) const;
  IsingFieldTarget at(double t) const;

  // IsingModel::ground_state's states.
  void ground_state(Batch& batch, const BatchRandom& random) const;
  // Exact draws of the model (t = 1, unrestricted) into exact draws of the restricted target:
  // every spin of a particle flipped with probability w_-(x).
  void relabel_to_colour0(Batch& batch, const BatchRandom& random) const;

 private:
  IsingModel model_;
  FieldPathLegs legs_;
};

static_assert(AnnealingPath<PackedIsingFieldPath>);

}  // namespace logz
