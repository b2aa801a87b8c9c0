// The Potts model (PottsModel) reached around its phase transition instead of through it. The
// temperature path from uniform colours crosses the ferromagnet's transition, first order for
// q > 4, where annealed paths dissipate (hysteresis). This path starts from independent sites
// with a field h0 on colour 0 and runs in two legs:
//   t in [0, 1/2]: inverse temperature 2t beta, field h0 (the field orders the lattice smoothly);
//   t in (1/2, 1]: inverse temperature beta, field h0 (2 - 2t) (the field is switched off);
// the log-weight at t is beta_t J n_eq(x) + h_t n_0(x) (n_eq: equal-colour bonds, n_c: sites of
// colour c). At t = 1 the target is restricted by the factor w_0(x), where w_c(x) = e^{n_c} /
// sum_c' e^{n_c'}: the w_c sum to 1 and the colours' permutation symmetry weighs each alike, so
// the restricted target's normaliser is exactly Z / q, on any lattice, whether or not chains
// change phase. w_0 is ~1 in colour 0's ordered phase (the one the field chose) and ~e^{-N} in
// the others, so paths that keep the field's phase lose nothing. log Z = log Z_0 + log q +
// log(Z_g / Z_0) with log Z_0 = N log(e^h0 + q - 1): base_log_z() includes the log q.
// Exact draws of the restricted target from ones of the unrestricted model (reverse starts):
// colour c drawn with probability w_c(x) and swapped with colour 0 (relabel_to_colour0).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/models/potts.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// The Potts model with a field on colour 0 at one point of the path, as the heat bath sees it.
struct PottsFieldTarget {
  const TorusLattice* lattice = nullptr;
  int num_colours = 2;         // q
  double beta_coupling = 0.0;  // K = beta_t J
  double field = 0.0;          // h_t: log-weight per site of colour 0
  // weight[z][n] = exp(K n + h z - top) for n equal neighbours (0..4) and z = [colour is 0]:
  // all in (0, 1], the largest possible exactly 1 (the path's bounds keep the smallest normal).
  std::array<std::array<double, 5>, 2> weight{};
  // The heat bath by the pattern of a site's four neighbour slots (no self-bond), as
  // PottsTarget::heat_bath_threshold: `code` says which slot pairs share a colour, `zero` which
  // slot is the first of colour 0 (4: none). heat_bath_threshold[code][zero][k] = 2^32 times the
  // probability that the new colour is one first seen at a slot <= k (k < 4), or that or colour
  // 0 absent around the site (k = 4); the rest, up to 2^32, belongs to the other absent colours
  // (uniform among them). Patterns no colouring produces are all zero.
  std::array<std::array<std::array<std::uint64_t, 5>, 5>, 64> heat_bath_threshold{};

  PottsFieldTarget(const TorusLattice& l, int q, double beta_coupling, double field);
};

// The path's two legs: (beta_t / beta, h_t) at path fraction t.
struct FieldPathLegs {
  double field = 0.0;  // h0
  double beta_fraction(double t) const { return t <= 0.5 ? 2.0 * t : 1.0; }
  double field_at(double t) const { return t <= 0.5 ? field : field * (2.0 - 2.0 * t); }
};

class PottsFieldPath {
 public:
  using Batch = PottsBatch;
  // The largest |beta J| * 4 + h0 (the weights' range stays within doubles' normal numbers).
  static constexpr double kMaxLogWeightRange = 600.0;

  // field: h0 > 0, finite, with 4 |beta J| + h0 <= kMaxLogWeightRange (InvalidArgument naming
  // "field"). energy_offset: a constant added to the model's energy, for a model that is this
  // one up to a constant (the Ising model with coupling J is the two-colour Potts model with
  // coupling 2J, E_Ising = E_Potts + 2 J N): it shifts the trace energies and log Z (by -beta
  // times it, in base_log_z), not the works.
  PottsFieldPath(const PottsModel& model, double field, double energy_offset = 0.0);
  PottsFieldPath(PottsModel&&, double, double = 0.0) = delete;  // held by reference

  const PottsModel& model() const { return model_; }
  double field() const { return legs_.field; }
  int num_sites() const { return model_.num_sites(); }
  double coupling() const { return model_.coupling(); }
  // (beta_t / beta, h_t) at path fraction t.
  double beta_fraction(double t) const { return legs_.beta_fraction(t); }
  double field_at(double t) const { return legs_.field_at(t); }

  // ---- the annealing-path interface (core/annealing_path.hpp)
  Batch make_batch(std::size_t n) const { return model_.make_batch(n); }
  // Independent sites: colour 0 with probability e^h0 / (e^h0 + q - 1), the others uniformly.
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // log Z_0 + log q: N log(e^h0 + q - 1) + log q (the restriction's factor; see above), less
  // beta times the energy offset.
  double base_log_z() const;
  // U_{t_to}(x) - U_{t_from}(x), U_t = -(beta_t J n_eq + h_t n_0) - [t = 1] log w_0(x).
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // E = -J n_eq (plus the energy offset) of every particle (the hysteresis trace).
  void trace_energy(const Batch& batch, std::span<double> out) const;
  // The unrestricted target at t (at t = 1 the model itself, no field).
  PottsFieldTarget at(double t) const;

  // One colour everywhere (PottsModel::ground_state).
  void ground_state(Batch& batch, const BatchRandom& random) const {
    model_.ground_state(batch, random);
  }
  // Turns exact draws of the model (t = 1, unrestricted) into exact draws of the restricted
  // target: colour c drawn with probability w_c(x), then colours c and 0 swapped.
  void relabel_to_colour0(Batch& batch, const BatchRandom& random) const;

 private:
  double restriction_log_weight(const std::uint8_t* x) const;  // log w_0(x)
  // Fills counts[c] = n_c; returns log sum_c e^{n_c}.
  double colour_counts(const std::uint8_t* x, std::vector<int>& counts) const;

  const PottsModel& model_;
  FieldPathLegs legs_;
  double energy_offset_;
};

static_assert(AnnealingPath<PottsFieldPath>);

}  // namespace logz
