// The transition of Hamiltonian annealed importance sampling (Sohl-Dickstein & Culpepper
// 2011, section 2.3): HMC with persistent, partially refreshed momentum (Horowitz 1991).
// One call: `leapfrog_steps` leapfrog steps (the paper: one, eps = 0.2), a Metropolis accept
// on H = U(x) + |v|^2/2 with the momentum negated on acceptance, then the partial refresh
//     v <- -sqrt(1 - gamma) v + sqrt(gamma) r,   r ~ N(0, I).
// If v ~ N(0, I) then so is the refreshed v (variance (1 - gamma) + gamma = 1); the paper's
// printed "+ gamma r" would give variance 1 - gamma + gamma^2 < 1 and shrink the momentum.
// Both halves leave exp(-U(x)) N(v; 0, I) invariant (the first is a Metropolis step with an
// involutive proposal, the second a reversible Gaussian autoregression of v), so the pair
// leaves every intermediate distribution invariant; the momentum carries across
// temperatures. gamma = 1 redraws the momentum every time (AIS-HMC with the redraw after
// rather than before the move). The default gamma randomises half the momentum power per
// unit of simulation time: (1 - gamma)^(1 / (eps L)) = 1/2, i.e. gamma = 1 - 2^(-eps L / h)
// with half-life h = 1.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <span>
#include <string>
#include <string_view>

#include "logz/core/kernel_for.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/random/particle_draws.hpp"

namespace logz {

class Hais {
 public:
  // step_size > 0; momentum_refresh gamma in (0, 1]; leapfrog_steps >= 1. refresh_first
  // applies the refresh before the Hamiltonian move (the time reversal of the default order,
  // used by reverse annealing runs so that reverse works obey Crooks' theorem exactly).
  Hais(double step_size, double momentum_refresh, int leapfrog_steps = 1,
       bool refresh_first = false);

  // gamma = 1 - 2^(-step_size * leapfrog_steps / half_life): the fraction of momentum power
  // replaced per call so that half of it is replaced per `half_life` of simulation time.
  static double half_life_refresh(double step_size, int leapfrog_steps, double half_life = 1.0);

  // Particle p draws its accept uniform, then its d refresh normals, from random.stream(p)
  // (in the reversed order when refresh_first); all of them before the move, in bulk.
  // Momenta must be N(0, I) at the start of a run: the paths' sample_base draws them.
  template <ContinuousTarget T>
  ContinuousKernelInfo step(const T& target, ContinuousBatch& batch,
                            const BatchRandom& random) const {
    const std::size_t n = batch.num_particles();
    batch.uniforms.resize(batch.X.cols());
    batch.normals.resize(batch.V.rows(), batch.V.cols());
    draw_uniform_and_normals(random,
                             refresh_first_ ? DrawOrder::normals_first : DrawOrder::uniform_first,
                             std::span<double>(batch.uniforms.data(), n), batch.normals.data(),
                             static_cast<std::size_t>(batch.V.rows()),
                             static_cast<std::size_t>(batch.V.rows()), normals_);
    ContinuousKernelInfo info;
    const std::span<const double> uniforms(batch.uniforms.data(), n);
    if (refresh_first_) {
      refresh(batch.V, batch.normals, 0, batch.V.cols());
      detail::hamiltonian_move(target, batch, uniforms, step_size_, leapfrog_steps_, info);
    } else {  // each block of particles refreshed as soon as its move is settled
      detail::hamiltonian_move(target, batch, uniforms, step_size_, leapfrog_steps_, info,
                               [&](Eigen::MatrixXd& V, Eigen::Index p0, Eigen::Index np) {
                                 refresh(V, batch.normals, p0, np);
                               });
    }
    return info;
  }

  Hais reversed() const {
    return Hais(step_size_, gamma_, leapfrog_steps_, !refresh_first_).with_normals(normals_);
  }
  Hais with_step_size(double eps) const {
    return Hais(eps, gamma_, leapfrog_steps_, refresh_first_).with_normals(normals_);
  }
  // The refresh normals made in single precision (NormalPrecision::single): half the random
  // bits and about half the cost of the kernel's draws; |r| <= 6.66 (a tail of 3e-11 cut).
  Hais with_normals(NormalPrecision p) const {
    Hais h = *this;
    h.normals_ = p;
    return h;
  }
  NormalPrecision normals() const { return normals_; }
  double step_size() const { return step_size_; }
  double momentum_refresh() const { return gamma_; }
  int leapfrog_steps() const { return leapfrog_steps_; }
  bool refresh_first() const { return refresh_first_; }

  // Its acceptance rate measures how well its step size fits the target: near 0 at a
  // temperature, the particles stay put there (services/annealing_flags.hpp flags frozen_sampler).
  static constexpr bool acceptance_tracks_step_size = true;
  // Its entry in continuous_kernels.hpp.
  static constexpr std::string_view kName = "hais";
  static constexpr std::string_view kSummary =
      "Hamiltonian AIS: leapfrog moves with persistent, partially refreshed momentum";
  static constexpr std::string_view kEvaluation = "gradient evaluation";
  static constexpr std::array<std::string_view, 5> kOptions = {
      "step_size", "leapfrog_steps", "momentum_refresh", "momentum_half_life", "normals"};
  // gamma from the half-life rule where one is given (it follows the step size a pilot sets).
  static double refresh_of(const ContinuousKernelOptions& o) {
    return o.half_life ? half_life_refresh(o.step_size, o.leapfrog_steps, *o.half_life) : o.gamma;
  }
  static Hais from_options(ContinuousKernelOptions o, double step_size) {
    o.step_size = step_size;
    return Hais(step_size, refresh_of(o), o.leapfrog_steps).with_normals(o.normals);
  }
  static int evaluations_per_move(const ContinuousKernelOptions& o) { return o.leapfrog_steps; }
  template <class Field>
  static void describe(const ContinuousKernelOptions& o, Field&& field) {
    detail::describe_leapfrog(o, field);
    field("momentum_refresh", refresh_of(o));
    if (o.half_life) {
      char h[32];
      const std::string hs(h, std::to_chars(h, h + sizeof h, *o.half_life).ptr);
      field("momentum_refresh_rule",
            "half of the momentum power per " + hs +
                " time units: gamma = 1 - 2^(-step_size leapfrog_steps / " + hs + ")");
    } else {
      field("momentum_refresh_rule", "fixed (momentum_refresh)");
    }
  }

 private:
  // The partial refresh of the momenta of particles p0 .. p0 + np.
  void refresh(Eigen::MatrixXd& V, const Eigen::MatrixXd& normals, Eigen::Index p0,
               Eigen::Index np) const {
    const double keep = -std::sqrt(1.0 - gamma_), add = std::sqrt(gamma_);
    V.middleCols(p0, np) = keep * V.middleCols(p0, np) + add * normals.middleCols(p0, np);
  }

  double step_size_;
  double gamma_;
  int leapfrog_steps_;
  bool refresh_first_;
  NormalPrecision normals_ = NormalPrecision::double_;
};

static_assert(KernelFor<Hais, GeometricPath<GaussianBase, GaussianBase>>);
static_assert(uses_at_levels<GeometricPath<GaussianBase, GaussianBase>, Hais>);

}  // namespace logz
