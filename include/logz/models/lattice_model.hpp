// What the lattice models (IsingModel, PottsModel) share: an R x C torus, a coupling J, the
// model's inverse temperature beta, and energies E = -J * bond_sum (models/lattice_batch.hpp).
// Their annealing path runs from a uniform base (t = 0) to exp(-beta E) (t = 1): the tempered
// energy at path fraction t is t * beta * E, linear in t.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "logz/core/error.hpp"
#include "logz/models/lattice_batch.hpp"
#include "logz/models/torus_lattice.hpp"

namespace logz {

template <class Site>
class LatticeModel {
 public:
  const TorusLattice& lattice() const { return lattice_; }
  int num_sites() const { return lattice_.num_sites(); }
  double coupling() const { return coupling_; }
  double beta() const { return beta_; }
  // E = -J * bond_sum.
  double energy(std::int64_t bond_sum) const { return -coupling_ * static_cast<double>(bond_sum); }

  // ---- the annealing-path interface (core/annealing_path.hpp), less base draws and targets
  using Batch = LatticeBatch<Site>;
  static constexpr bool geometric_path = true;  // U_t = t * beta * E: linear in t
  Batch make_batch(std::size_t num_particles) const { return Batch(num_particles, num_sites()); }
  // Tempered energies differ by (t_to - t_from) * beta * E at fixed states. Any batch that keeps
  // bond sums per particle (LatticeBatch, PackedSpinBatch).
  template <class B>
  void work_increment(double t_from, double t_to, const B& batch, std::span<double> out) const {
    const double scale = (t_to - t_from) * beta_;
    for (std::size_t p = 0; p < batch.num_particles(); ++p)
      out[p] = scale * energy(batch.bond_sum(p));
  }
  // E of every particle (the hysteresis trace).
  template <class B>
  void trace_energy(const B& batch, std::span<double> out) const {
    for (std::size_t p = 0; p < batch.num_particles(); ++p) out[p] = energy(batch.bond_sum(p));
  }

 protected:
  // rows, cols >= 1; coupling finite; beta >= 0 finite (InvalidArgument naming `model`).
  LatticeModel(const char* model, int rows, int cols, double coupling, double beta)
      : lattice_(rows, cols), coupling_(coupling), beta_(beta) {
    if (!std::isfinite(coupling)) fail_argument(model, "coupling", "a finite number");
    if (!(beta >= 0.0) || !std::isfinite(beta))
      fail_argument(model, "beta", "a finite number >= 0");
  }

  TorusLattice lattice_;
  double coupling_;
  double beta_;
};

}  // namespace logz
