// The Gaussian toy of Habeck (2017), section 4: a path of normal densities
// p_t = N(mu(t), sigma(t)^2) from N(mu_start, sigma_start^2) (t = 0) to
// N(mu_end, sigma_end^2) (t = 1), with energies U_t(x) = (x - mu(t))^2 / (2 sigma(t)^2)
// (-log of the unnormalised density, in nats) and log Z_t = log(sqrt(2 pi) sigma(t)),
// so log(Z_1 / Z_0) = log(sigma_end / sigma_start) (-log 10 in the paper).
//
// The interpolation is the author's (michaelhabeck/paths, GeometricBridge): the
// geometric path between the two end densities, whose precision and
// precision-weighted mean are linear in t,
//   1 / sigma(t)^2 = (1 - t) / sigma_start^2 + t / sigma_end^2,
//   mu(t) = sigma(t)^2 [(1 - t) mu_start / sigma_start^2 + t mu_end / sigma_end^2],
// so U_t = (1 - t) U_0 + t U_1 + const(t). The kernels' relaxation parameter tau of
// T_t(x | x') = N((1 - tau) mu + tau x', (1 - tau^2) sigma^2) is part of the path
// there too: tau(t) = (1 - t) tau_start + t tau_end (0.9 to 0.995 in the author's script).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// One position x per particle.
class GaussianBatch {
 public:
  explicit GaussianBatch(std::size_t num_particles) : x_(num_particles, 0.0) {}

  std::size_t num_particles() const { return x_.size(); }
  double& x(std::size_t p) { return x_[p]; }
  double x(std::size_t p) const { return x_[p]; }
  std::span<double> positions() { return x_; }
  std::span<const double> positions() const { return x_; }
  void copy_particle(const GaussianBatch& from, std::size_t from_p, std::size_t to_p) {
    x_[to_p] = from.x_[from_p];
  }
  template <class F>
  void for_each_state_array(F&& f) {  // for checkpoints (core/batch_state.hpp)
    f(std::span<double>(x_));
  }

 private:
  std::vector<double> x_;
};

// The path at one point, as a kernel sees it: the stationary N(mean, std_dev^2) and
// the relaxation parameter tau in [0, 1] of the paper's kernel T_k there
// (0: an exact draw, 1: no move).
struct GaussianTarget {
  double mean = 0.0;
  double std_dev = 1.0;
  double tau = 0.0;
};

class GaussianToy {
 public:
  // Throws InvalidArgument unless the means are finite, the standard deviations
  // finite and > 0, and the taus in [0, 1].
  GaussianToy(double mu_start, double sigma_start, double mu_end, double sigma_end,
              double tau_start, double tau_end);

  double mu_start() const { return mu_start_; }
  double sigma_start() const { return sigma_start_; }
  double mu_end() const { return mu_end_; }
  double sigma_end() const { return sigma_end_; }
  double tau_start() const { return tau_start_; }
  double tau_end() const { return tau_end_; }

  // mu(t), sigma(t), tau(t) at path fraction t in [0, 1] (see above).
  double mean(double t) const;
  double std_dev(double t) const;
  double tau(double t) const { return (1.0 - t) * tau_start_ + t * tau_end_; }
  // U_t(x) = (x - mu(t))^2 / (2 sigma(t)^2).
  double energy(double t, double x) const;
  // The target at path fraction t.
  GaussianTarget at(double t) const { return {mean(t), std_dev(t), tau(t)}; }
  // log Z_0 = log(sqrt(2 pi) sigma_start) and log Z_1 = log(sqrt(2 pi) sigma_end).
  double base_log_z() const;
  double target_log_z() const;

  // ---- the annealing-path interface (core/annealing_path.hpp)
  using Batch = GaussianBatch;
  Batch make_batch(std::size_t num_particles) const { return Batch(num_particles); }
  // Exact draws from N(mu_start, sigma_start^2).
  void sample_base(Batch& batch, const BatchRandom& random) const;
  // Exact draws from N(mu_end, sigma_end^2) (the reverse start "exact").
  void sample_target(Batch& batch, const BatchRandom& random) const;
  // U_{t_to}(x) - U_{t_from}(x) at fixed x.
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // U_1(x) - U_0(x): the energy the geometric path tempers (U_t = U_0 + t (U_1 - U_0) + const),
  // the analogue of the Ising energy E in t beta E, so that traces compare across t.
  void trace_energy(const Batch& batch, std::span<double> out) const;

 private:
  double precision(double t) const { return (1.0 - t) * precision_start_ + t * precision_end_; }

  double mu_start_, sigma_start_, mu_end_, sigma_end_, tau_start_, tau_end_;
  double precision_start_, precision_end_;  // 1 / sigma^2 at the ends
};

static_assert(AnnealingPath<GaussianToy>);

}  // namespace logz
