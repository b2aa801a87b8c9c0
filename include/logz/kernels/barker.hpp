// The Barker proposal (Livingstone & Zanella 2022): each coordinate moves by z_i ~ N(0, s^2)
// with the sign b_i = +1 with probability 1 / (1 + exp(z_i dU/dx_i(x))), else -1, so that
// moves downhill in U are favoured by a logistic skew rather than MALA's gradient drift; then
// a Metropolis test on
//     U(x) + sum_i softplus(w_i dU/dx_i(x))  against  U(x') + sum_i softplus(-w_i dU/dx_i(x')),
// w = x' - x (the skew's densities; the Gaussian parts cancel). Its acceptance falls off far
// more slowly than MALA's as the step size outgrows the target's scales, which makes it hard to
// mis-tune. One gradient evaluation per move; no momentum (V is untouched). Reversible; leaves
// exp(-U) invariant. Proposals outside a target's constraints are rejected.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "logz/core/error.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class Barker {
 public:
  // step_size s > 0 and finite (InvalidArgument otherwise).
  explicit Barker(double step_size) : step_size_(step_size) {
    if (!(std::isfinite(step_size) && step_size > 0.0))
      fail_argument("logz::Barker", "step_size", "a finite number > 0");
  }

  // One move of every particle; particle p draws its d normals, then its d sign uniforms, then
  // its accept uniform from random.stream(p).
  template <ContinuousTarget T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    const Eigen::Index d = b.X.rows();
    auto streams = detail::particle_streams(random, b.num_particles());
    if (!parts_valid_for(target, b.parts, true)) evaluate_parts(target, b.X, b.parts, true);
    combined_grad(target, b.parts, b.grad);
    b.proposal_X.resize(d, b.X.cols());
    b.normals.resize(d, b.X.cols());  // the moves w = x' - x
    for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
      RandomStream& r = streams[static_cast<std::size_t>(p)];
      r.fill_normal(b.normals.col(p).data(), static_cast<std::size_t>(d));
      for (Eigen::Index i = 0; i < d; ++i) {
        const double z = step_size_ * b.normals(i, p);
        const bool up = r.uniform() * (1.0 + std::exp(z * b.grad(i, p))) < 1.0;
        b.normals(i, p) = up ? z : -z;
      }
    }
    b.proposal_X = b.X + b.normals;
    // The skew's log densities at the start, before the gradient is overwritten by the proposals'.
    b.uniforms.resize(b.X.cols());
    for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
      double s = 0.0;
      for (Eigen::Index i = 0; i < d; ++i) s += log1p_exp(b.normals(i, p) * b.grad(i, p));
      b.uniforms(p) = s;
    }
    evaluate_parts(target, b.proposal_X, b.proposal_parts, true);
    combined_grad(target, b.proposal_parts, b.grad);
    const LinearConstraints* c = constraints_of(target);
    ContinuousKernelInfo info;
    for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
      ++info.attempted;
      const double u = streams[static_cast<std::size_t>(p)].uniform();
      if (c && c->min_slack(b.proposal_X.col(p)) < 0.0) continue;  // outside the support
      double back = 0.0;
      for (Eigen::Index i = 0; i < d; ++i) back += log1p_exp(-b.normals(i, p) * b.grad(i, p));
      const double h0 = combined_energy(target, b.parts, p) + b.uniforms(p);
      const double h1 = combined_energy(target, b.proposal_parts, p) + back;
      if (detail::metropolis_accept(u, h0, h1, info)) {
        if (!b.accepted_moves.empty()) ++b.accepted_moves[static_cast<std::size_t>(p)];
        b.X.col(p) = b.proposal_X.col(p);
        b.parts.copy_column(b.proposal_parts, p, p);
      }
    }
    return info;
  }

  double step_size() const { return step_size_; }
  Barker with_step_size(double s) const { return Barker(s); }

  // Its acceptance rate measures how well its step size fits the target: near 0 at a
  // temperature, the particles stay put there (services/annealing_flags.hpp flags frozen_sampler).
  static constexpr bool acceptance_tracks_step_size = true;
  // Its entry in continuous_kernels.hpp.
  static constexpr std::string_view kName = "barker";
  static constexpr std::string_view kSummary =
      "the Barker proposal: Gaussian steps skewed downhill by the gradient";
  static constexpr std::string_view kEvaluation = "gradient evaluation";
  static constexpr std::array<std::string_view, 1> kOptions = {"step_size"};
  static Barker from_options(const ContinuousKernelOptions&, double step_size) {
    return Barker(step_size);
  }
  static int evaluations_per_move(const ContinuousKernelOptions&) { return 1; }
  template <class Field>
  static void describe(const ContinuousKernelOptions& o, Field&& field) {
    field("step_size", o.step_size);
    field("proposal",
          "x_i + b_i z_i, z_i ~ N(0, step_size^2), P(b_i = 1) = 1 / (1 + exp(z_i dU/dx_i))");
  }

 private:
  double step_size_;
};

static_assert(KernelFor<Barker, GeometricPath<GaussianBase, GaussianBase>>);
static_assert(uses_at_levels<GeometricPath<GaussianBase, GaussianBase>, Barker>);

}  // namespace logz
