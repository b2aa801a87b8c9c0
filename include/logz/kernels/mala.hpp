// The Metropolis-adjusted Langevin algorithm (Roberts & Tweedie 1996): propose
//     x' = x - (eps^2 / 2) dU/dx(x) + eps z,   z ~ N(0, I),
// a step of the Langevin diffusion, and accept with probability
//     min(1, exp(U(x) - U(x') + log q(x | x') - log q(x' | x))),
// q the Gaussian proposal density, log q(x' | x) = -|z|^2 / 2 + const. This is HMC with one
// leapfrog step and a fresh momentum, written as a proposal on x alone: it keeps no momentum
// (V is untouched) and costs one gradient evaluation per move. Reversible; leaves exp(-U)
// invariant. Proposals outside a target's constraints are rejected.
#pragma once

#include <array>
#include <cmath>
#include <span>
#include <string_view>

#include "logz/core/error.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/random/particle_draws.hpp"

namespace logz {

class Mala {
 public:
  // step_size > 0 and finite (InvalidArgument otherwise).
  explicit Mala(double step_size) : step_size_(step_size) {
    if (!(std::isfinite(step_size) && step_size > 0.0))
      fail_argument("logz::Mala", "step_size", "a finite number > 0");
  }

  // One move of every particle; particle p draws its d proposal normals and then its accept
  // uniform from random.stream(p), in bulk before the move.
  template <ContinuousTarget T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    const std::size_t n = b.num_particles();
    const auto d = static_cast<std::size_t>(b.X.rows());
    b.uniforms.resize(b.X.cols());
    b.normals.resize(b.X.rows(), b.X.cols());
    draw_uniform_and_normals(random, DrawOrder::normals_first,
                             std::span<double>(b.uniforms.data(), n), b.normals.data(), d, d,
                             normals_);
    if (!parts_valid_for(target, b.parts, true)) evaluate_parts(target, b.X, b.parts, true);
    const double drift = 0.5 * step_size_ * step_size_;
    combined_grad(target, b.parts, b.grad);
    b.proposal_X = b.X - drift * b.grad + step_size_ * b.normals;
    evaluate_parts(target, b.proposal_X, b.proposal_parts, true);
    combined_grad(target, b.proposal_parts, b.grad);  // now the gradient at the proposals
    const LinearConstraints* c = constraints_of(target);
    ContinuousKernelInfo info;
    for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
      ++info.attempted;
      if (c && c->min_slack(b.proposal_X.col(p)) < 0.0) continue;  // outside the support
      // U plus the proposal's -log q, forward (z) and back (x from x').
      const double h0 = combined_energy(target, b.parts, p) + 0.5 * b.normals.col(p).squaredNorm();
      const double back = (b.X.col(p) - b.proposal_X.col(p) + drift * b.grad.col(p)).squaredNorm();
      const double h1 =
          combined_energy(target, b.proposal_parts, p) + back / (2.0 * step_size_ * step_size_);
      if (detail::metropolis_accept(b.uniforms(p), h0, h1, info)) {
        if (!b.accepted_moves.empty()) ++b.accepted_moves[static_cast<std::size_t>(p)];
        b.X.col(p) = b.proposal_X.col(p);
        b.parts.copy_column(b.proposal_parts, p, p);
      }
    }
    return info;
  }

  double step_size() const { return step_size_; }
  Mala with_step_size(double eps) const { return Mala(eps).with_normals(normals_); }
  // The proposal normals drawn in single precision (|z| <= 6.66).
  Mala with_normals(NormalPrecision p) const {
    Mala m = *this;
    m.normals_ = p;
    return m;
  }
  NormalPrecision normals() const { return normals_; }

  // Its acceptance rate measures how well its step size fits the target: near 0 at a
  // temperature, the particles stay put there (services/annealing_flags.hpp flags frozen_sampler).
  static constexpr bool acceptance_tracks_step_size = true;
  // Its entry in continuous_kernels.hpp.
  static constexpr std::string_view kName = "mala";
  static constexpr std::string_view kSummary =
      "Metropolis-adjusted Langevin: one gradient step plus noise, corrected";
  static constexpr std::string_view kEvaluation = "gradient evaluation";
  static constexpr std::array<std::string_view, 2> kOptions = {"step_size", "normals"};
  static Mala from_options(const ContinuousKernelOptions& o, double step_size) {
    return Mala(step_size).with_normals(o.normals);
  }
  static int evaluations_per_move(const ContinuousKernelOptions&) { return 1; }
  template <class Field>
  static void describe(const ContinuousKernelOptions& o, Field&& field) {
    field("step_size", o.step_size);
    field("proposal", "Langevin: x - (step_size^2 / 2) grad U + step_size z");
    field("normals", detail::normals_name(o.normals));
  }

 private:
  double step_size_;
  NormalPrecision normals_ = NormalPrecision::double_;
};

static_assert(KernelFor<Mala, GeometricPath<GaussianBase, GaussianBase>>);
static_assert(uses_at_levels<GeometricPath<GaussianBase, GaussianBase>, Mala>);

}  // namespace logz
