// Gaussian random-walk Metropolis for continuous targets: propose x' = x + s z with
// z ~ N(0, I), accept with probability min(1, exp(U(x) - U(x'))); proposals outside the
// target's constraints are rejected. The AIS comparison of Sohl-Dickstein & Culpepper
// (2011), section 5.2, uses s = 0.1. Reversible; leaves exp(-U) invariant.
#pragma once

#include <array>
#include <cmath>
#include <string_view>

#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

class RandomWalkMetropolis {
 public:
  // proposal_sd > 0 and finite; steps >= 1 proposals per call.
  explicit RandomWalkMetropolis(double proposal_sd, int steps = 1);

  // Particle p draws, per proposal, d normals and then one uniform from random.stream(p).
  template <ContinuousTarget T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& b, const BatchRandom& random) const {
    ContinuousKernelInfo info;
    auto streams = detail::particle_streams(random, b.num_particles());
    const LinearConstraints* c = constraints_of(target);
    if (!parts_valid_for(target, b.parts, false)) evaluate_parts(target, b.X, b.parts, false);
    b.parts.has_grad = false;  // accepted columns get energies only
    for (int s = 0; s < steps_; ++s) {
      b.proposal_X.resize(b.X.rows(), b.X.cols());
      for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
        streams[static_cast<std::size_t>(p)].fill_normal(b.proposal_X.col(p).data(),
                                                         static_cast<std::size_t>(b.X.rows()));
        b.proposal_X.col(p) = b.X.col(p) + proposal_sd_ * b.proposal_X.col(p);
      }
      evaluate_parts(target, b.proposal_X, b.proposal_parts, false);
      for (Eigen::Index p = 0; p < b.X.cols(); ++p) {
        ++info.attempted;
        const double u = streams[static_cast<std::size_t>(p)].uniform();
        if (c && c->min_slack(b.proposal_X.col(p)) < 0.0) continue;  // outside the support
        const double e0 = combined_energy(target, b.parts, p);
        const double e1 = combined_energy(target, b.proposal_parts, p);
        if (detail::metropolis_accept(u, e0, e1, info)) {
          if (!b.accepted_moves.empty()) ++b.accepted_moves[static_cast<std::size_t>(p)];
          b.X.col(p) = b.proposal_X.col(p);
          b.parts.copy_column(b.proposal_parts, p, p);
        }
      }
    }
    return info;
  }

  double proposal_sd() const { return proposal_sd_; }
  int steps() const { return steps_; }

  // Its acceptance rate measures how well its step size fits the target: near 0 at a
  // temperature, the particles stay put there (services/annealing_flags.hpp flags frozen_sampler).
  static constexpr bool acceptance_tracks_step_size = true;
  // Its entry in continuous_kernels.hpp.
  static constexpr std::string_view kName = "metropolis";
  static constexpr std::string_view kSummary = "Gaussian random-walk Metropolis";
  static constexpr std::string_view kEvaluation = "energy evaluation";
  static constexpr std::array<std::string_view, 2> kOptions = {"proposal_sd",
                                                               "steps_per_temperature"};
  static RandomWalkMetropolis from_options(const ContinuousKernelOptions& o, double) {
    return RandomWalkMetropolis(o.proposal_sd, o.steps);
  }
  static int evaluations_per_move(const ContinuousKernelOptions&) { return 1; }
  template <class Field>
  static void describe(const ContinuousKernelOptions& o, Field&& field) {
    field("proposal_sd", o.proposal_sd);
    field("steps_per_temperature", o.steps);
  }

 private:
  double proposal_sd_;
  int steps_;
};

static_assert(KernelFor<RandomWalkMetropolis, GeometricPath<GaussianBase, GaussianBase>>);
static_assert(uses_at_levels<GeometricPath<GaussianBase, GaussianBase>, RandomWalkMetropolis>);

}  // namespace logz
