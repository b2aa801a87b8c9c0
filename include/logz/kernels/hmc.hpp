// Hamiltonian Monte Carlo (Duane et al. 1987; Neal 2010; the deeplearning.net tutorial):
// redraw the momentum v ~ N(0, I), integrate `leapfrog_steps` leapfrog steps of size
// `step_size`, accept the end point with probability min(1, exp(H_0 - H_1)) for the joint
// energy H = U(x) + |v|^2/2. With one leapfrog step this is the "AIS with one Hamiltonian
// step per distribution and momentum randomised" of Sohl-Dickstein & Culpepper (2011). It
// leaves exp(-U) invariant and is reversible; the step size is fixed here (adaptation lives
// in the drivers: samplers/hmc_sampler.hpp, or a pilot run before annealing).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/kernels/leapfrog.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/random/particle_draws.hpp"
#include "logz/random/philox.hpp"

namespace logz {

namespace detail {

// The Metropolis test of a proposal that takes the energy (U, or H for Hamiltonian moves) from
// e0 to e1, with the uniform u: true to accept, with probability min(1, exp(e0 - e1)).
// Proposals with a non-finite energy are rejected and counted.
inline bool metropolis_accept(double u, double e0, double e1, ContinuousKernelInfo& info) {
  if (!std::isfinite(e1)) {
    ++info.non_finite;
    return false;
  }
  info.sum_energy_error += e1 - e0;
  // log(u) <= 0 for u in (0, 1]: a fall in energy is accepted without the logarithm (the same
  // decisions).
  if (!(e0 - e1 > 0.0) && !(std::log(u) < e0 - e1)) return false;
  ++info.accepted;
  return true;
}

// Leapfrog from (X, V), then a Metropolis accept on H per particle with uniforms[p]; an
// accepted particle takes the end point with its momentum negated (the flip makes the
// proposal an involution, hence detailed balance on (x, v)); a rejected one keeps (x, v).
// The proposal is made in the batch's scratch. Each block of particles is decided as soon as
// its last kick is done, while it is in cache, and its result assembled where most particles
// were accepted last time: in the scratch (which then trades places with the state, so only
// the rejected columns are copied) or in the state (only the accepted ones copied).
// `finish(V, p0, np)`, when given, then transforms the final momenta of the block (columns p0 ..
// p0 + np of V): HAIS refreshes them there.
template <ContinuousTarget T, class Finish = std::nullptr_t>
void hamiltonian_move(const T& target, ContinuousBatch& b, std::span<const double> uniforms,
                      double eps, int steps, ContinuousKernelInfo& info,
                      Finish&& finish = nullptr) {
  if (!parts_valid_for(target, b.parts, true)) evaluate_parts(target, b.X, b.parts, true);
  const Eigen::Index n = b.X.cols();
  const bool into_scratch = b.mostly_accepted;
  Eigen::Index num_accepted = 0;
  auto settle = [&](Eigen::Index p0, Eigen::Index np) {
    for (Eigen::Index p = p0; p < p0 + np; ++p) {
      ++info.attempted;
      const double h0 = combined_energy(target, b.parts, p) + 0.5 * b.V.col(p).squaredNorm();
      const double h1 =
          combined_energy(target, b.proposal_parts, p) + 0.5 * b.proposal_V.col(p).squaredNorm();
      const bool a = metropolis_accept(uniforms[static_cast<std::size_t>(p)], h0, h1, info);
      num_accepted += a;
      if (a && !b.accepted_moves.empty()) ++b.accepted_moves[static_cast<std::size_t>(p)];
      if (a && into_scratch) {
        b.proposal_V.col(p) = -b.proposal_V.col(p);
      } else if (a) {
        b.X.col(p) = b.proposal_X.col(p);
        b.V.col(p) = -b.proposal_V.col(p);
        b.parts.copy_column(b.proposal_parts, p, p);
      } else if (into_scratch) {  // rejected: the start, into the scratch that becomes the state
        b.proposal_X.col(p) = b.X.col(p);
        b.proposal_V.col(p) = b.V.col(p);
        b.proposal_parts.copy_column(b.parts, p, p);
      }
    }
    if constexpr (!std::is_null_pointer_v<std::remove_cvref_t<Finish>>)
      finish(into_scratch ? b.proposal_V : b.V, p0, np);
  };
  info.reflections += leapfrog(target, b.X, b.V, b.parts, b.proposal_X, b.proposal_V,
                               b.proposal_parts, eps, steps, settle);
  if (into_scratch) {
    b.X.swap(b.proposal_X);
    b.V.swap(b.proposal_V);
    std::swap(b.parts, b.proposal_parts);
  }
  b.mostly_accepted = 2 * num_accepted > n;
}

// One stream per particle of the batch.
inline std::vector<RandomStream> particle_streams(const BatchRandom& random, std::size_t n) {
  std::vector<RandomStream> s;
  s.reserve(n);
  for (std::size_t p = 0; p < n; ++p) s.push_back(random.stream(p));
  return s;
}

// How a kernel's draws are made, as its description says it: "double" or "float".
inline const char* normals_name(NormalPrecision p) {
  return p == NormalPrecision::single ? "float" : "double";
}

// The description the leapfrog kernels (HMC, HAIS) share, in the order of the report.
template <class Field>
void describe_leapfrog(const ContinuousKernelOptions& o, Field& field) {
  field("step_size", o.step_size);
  field("leapfrog_steps", o.leapfrog_steps);
  field("integrator", "leapfrog (velocity Verlet)");
  field("normals", normals_name(o.normals));
}

}  // namespace detail

class Hmc {
 public:
  // step_size > 0 and finite; leapfrog_steps >= 1 (InvalidArgument otherwise).
  Hmc(double step_size, int leapfrog_steps);

  // One HMC move of every particle of the batch; particle p draws its momentum (d
  // normals) and then its accept uniform from random.stream(p).
  template <ContinuousTarget T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& batch,
                            const BatchRandom& random) const {
    batch.uniforms.resize(batch.X.cols());
    draw_uniform_and_normals(random, DrawOrder::normals_first,
                             std::span<double>(batch.uniforms.data(), batch.num_particles()),
                             batch.V.data(), static_cast<std::size_t>(batch.V.rows()),
                             static_cast<std::size_t>(batch.V.rows()), normals_);
    ContinuousKernelInfo info;
    detail::hamiltonian_move(target, batch,
                             std::span<const double>(batch.uniforms.data(), batch.num_particles()),
                             step_size_, leapfrog_steps_, info);
    return info;
  }

  double step_size() const { return step_size_; }
  int leapfrog_steps() const { return leapfrog_steps_; }
  Hmc with_step_size(double eps) const { return Hmc(eps, leapfrog_steps_).with_normals(normals_); }
  // The momenta drawn in single precision (NormalPrecision::single): about half the draws' cost.
  Hmc with_normals(NormalPrecision p) const {
    Hmc h = *this;
    h.normals_ = p;
    return h;
  }
  NormalPrecision normals() const { return normals_; }

  // Its acceptance rate measures how well its step size fits the target: near 0 at a
  // temperature, the particles stay put there (services/annealing_flags.hpp flags frozen_sampler).
  static constexpr bool acceptance_tracks_step_size = true;
  // Its entry in continuous_kernels.hpp.
  static constexpr std::string_view kName = "hmc";
  static constexpr std::string_view kSummary = "HMC with fresh momentum every move (AIS-HMC)";
  static constexpr std::string_view kEvaluation = "gradient evaluation";
  static constexpr std::array<std::string_view, 3> kOptions = {"step_size", "leapfrog_steps",
                                                               "normals"};
  static Hmc from_options(const ContinuousKernelOptions& o, double step_size) {
    return Hmc(step_size, o.leapfrog_steps).with_normals(o.normals);
  }
  static int evaluations_per_move(const ContinuousKernelOptions& o) { return o.leapfrog_steps; }
  template <class Field>
  static void describe(const ContinuousKernelOptions& o, Field&& field) {
    detail::describe_leapfrog(o, field);
    field("momentum", "redrawn every move");
  }

 private:
  double step_size_;
  int leapfrog_steps_;
  NormalPrecision normals_ = NormalPrecision::double_;
};

static_assert(KernelFor<Hmc, GeometricPath<GaussianBase, GaussianBase>>);
static_assert(uses_at_levels<GeometricPath<GaussianBase, GaussianBase>, Hmc>);

}  // namespace logz
