#include "logz/models/gaussian_toy.hpp"

#include <cmath>

#include "logz/core/error.hpp"

namespace logz {

namespace {

constexpr double kLogSqrtTwoPi = 0.91893853320467274178032973640562;

void check_finite(double v, const char* name) {
  if (!std::isfinite(v)) fail_argument("logz::GaussianToy", name, "a finite number");
}

void check_sigma(double v, const char* name) {
  if (!(v > 0.0) || !std::isfinite(v) || !std::isfinite(1.0 / (v * v)))
    fail_argument("logz::GaussianToy", name, "a finite number > 0 whose 1/sigma^2 is finite");
}

void check_tau(double v, const char* name) {
  if (!(v >= 0.0 && v <= 1.0)) fail_argument("logz::GaussianToy", name, "a number in [0, 1]");
}

}  // namespace

GaussianToy::GaussianToy(double mu_start, double sigma_start, double mu_end, double sigma_end,
                         double tau_start, double tau_end)
    : mu_start_(mu_start),
      sigma_start_(sigma_start),
      mu_end_(mu_end),
      sigma_end_(sigma_end),
      tau_start_(tau_start),
      tau_end_(tau_end) {
  check_finite(mu_start, "mu_start");
  check_sigma(sigma_start, "sigma_start");
  check_finite(mu_end, "mu_end");
  check_sigma(sigma_end, "sigma_end");
  check_tau(tau_start, "tau_start");
  check_tau(tau_end, "tau_end");
  precision_start_ = 1.0 / (sigma_start * sigma_start);
  precision_end_ = 1.0 / (sigma_end * sigma_end);
}

double GaussianToy::mean(double t) const {
  // The ends exactly (the precision-weighted form would round them).
  if (t == 0.0) return mu_start_;
  if (t == 1.0) return mu_end_;
  return ((1.0 - t) * precision_start_ * mu_start_ + t * precision_end_ * mu_end_) / precision(t);
}

double GaussianToy::std_dev(double t) const {
  if (t == 0.0) return sigma_start_;
  if (t == 1.0) return sigma_end_;
  return 1.0 / std::sqrt(precision(t));
}

double GaussianToy::energy(double t, double x) const {
  const double d = x - mean(t);
  return 0.5 * precision(t) * d * d;
}

double GaussianToy::base_log_z() const { return kLogSqrtTwoPi + std::log(sigma_start_); }

double GaussianToy::target_log_z() const { return kLogSqrtTwoPi + std::log(sigma_end_); }

void GaussianToy::sample_base(Batch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    batch.x(p) = mu_start_ + sigma_start_ * rng.normal();
  }
}

void GaussianToy::sample_target(Batch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    batch.x(p) = mu_end_ + sigma_end_ * rng.normal();
  }
}

void GaussianToy::work_increment(double t_from, double t_to, const Batch& batch,
                                 std::span<double> out) const {
  const double m_from = mean(t_from), h_from = 0.5 * precision(t_from);
  const double m_to = mean(t_to), h_to = 0.5 * precision(t_to);
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    const double x = batch.x(p), d_from = x - m_from, d_to = x - m_to;
    out[p] = h_to * d_to * d_to - h_from * d_from * d_from;
  }
}

void GaussianToy::trace_energy(const Batch& batch, std::span<double> out) const {
  const double h_start = 0.5 * precision_start_, h_end = 0.5 * precision_end_;
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    const double x = batch.x(p), d_start = x - mu_start_, d_end = x - mu_end_;
    out[p] = h_end * d_end * d_end - h_start * d_start * d_start;
  }
}

}  // namespace logz
