#include "logz/exact/gaussian_mixture.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "logz/core/error.hpp"

namespace logz::exact {

namespace {

void check_gaussian(const GaussianSpec& g, Eigen::Index d, const char* name) {
  if (g.mean.size() != d || g.covariance.rows() != d || g.covariance.cols() != d ||
      !g.mean.allFinite() || !g.covariance.allFinite())
    fail_argument("logz::exact::gaussian_geometric_log_z", name,
                  "a finite mean and d x d covariance");
}

// log det of a positive definite matrix through its LU factors.
double log_det(const Eigen::MatrixXd& a) {
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(a);
  const Eigen::VectorXd u = lu.matrixLU().diagonal();
  double s = 0.0;
  for (Eigen::Index i = 0; i < u.size(); ++i) s += std::log(std::abs(u(i)));
  return s;
}

}  // namespace

double gaussian_mixture_log_z(std::span<const double> weights) {
  if (weights.empty())
    fail_argument("logz::exact::gaussian_mixture_log_z", "weights", "at least one mass");
  double top = 0.0;
  for (double w : weights) {
    if (!(std::isfinite(w) && w > 0.0))
      fail_argument("logz::exact::gaussian_mixture_log_z", "weights", "finite masses > 0");
    top = std::max(top, w);
  }
  // Scaled by the largest mass so that masses near the largest double still sum.
  double s = 0.0;
  for (double w : weights) s += w / top;
  return std::log(top) + std::log(s);
}

double gaussian_geometric_log_z(const GaussianSpec& base, double weight, const GaussianSpec& target,
                                double t) {
  const Eigen::Index d = target.mean.size();
  if (d < 1)
    fail_argument("logz::exact::gaussian_geometric_log_z", "target", "at least one dimension");
  check_gaussian(base, d, "base");
  check_gaussian(target, d, "target");
  if (!(std::isfinite(weight) && weight > 0.0))
    fail_argument("logz::exact::gaussian_geometric_log_z", "weight", "a finite mass > 0");
  if (!(t >= 0.0 && t <= 1.0))
    fail_argument("logz::exact::gaussian_geometric_log_z", "t", "a number in [0, 1]");
  const Eigen::MatrixXd p0 = base.covariance.inverse(), p1 = target.covariance.inverse();
  const Eigen::MatrixXd p = (1.0 - t) * p0 + t * p1;
  const Eigen::VectorXd h = (1.0 - t) * (p0 * base.mean) + t * (p1 * target.mean);
  const double log_2pi = std::log(2.0 * std::numbers::pi);
  const double c = (1.0 - t) * 0.5 * base.mean.dot(p0 * base.mean) +
                   t * (0.5 * target.mean.dot(p1 * target.mean) - std::log(weight) +
                        0.5 * (static_cast<double>(d) * log_2pi + log_det(target.covariance)));
  const Eigen::VectorXd m = p.partialPivLu().solve(h);
  return 0.5 * static_cast<double>(d) * log_2pi - 0.5 * log_det(p) + 0.5 * h.dot(m) - c;
}

}  // namespace logz::exact
