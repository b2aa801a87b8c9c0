#include "logz/exact/mcrbm_mean_units.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "logz/core/error.hpp"

namespace logz::exact {

double mcrbm_mean_units_log_z(const Eigen::MatrixXd& W, const Eigen::VectorXd& b_mean,
                              const Eigen::VectorXd& b_cov, const Eigen::VectorXd& b_vis,
                              double sigma) {
  constexpr const char* f = "logz::exact::mcrbm_mean_units_log_z";
  const Eigen::Index J = W.rows(), M = W.cols();
  if (M < 1 || b_vis.size() != M)
    fail_argument(f, "W, b_vis", "W with M >= 1 columns and b_vis of length M");
  if (b_mean.size() != J) fail_argument(f, "b_mean", "one bias per row of W");
  if (J > 24) fail_argument(f, "W", "at most 24 mean units (2^J terms)");
  if (!W.allFinite() || !b_mean.allFinite() || !b_cov.allFinite() || !b_vis.allFinite())
    fail_argument(f, "parameters", "finite values");
  if (!(sigma > 0.0 && std::isfinite(sigma))) fail_argument(f, "sigma", "a finite number > 0");
  const double s2 = sigma * sigma;
  // Subsets in Gray-code order: one row of W added or removed per step; the sum of
  // exponentials is kept relative to its running maximum.
  Eigen::VectorXd v = b_vis;
  double bias = 0.0, max = -std::numeric_limits<double>::infinity(), sum = 0.0;
  const std::uint64_t count = std::uint64_t{1} << J;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (n > 0) {
      const int j = __builtin_ctzll(n);  // the bit that flips between gray(n - 1) and gray(n)
      const bool on = ((n ^ (n >> 1)) >> j) & 1u;
      const double sign = on ? 1.0 : -1.0;
      v += sign * W.row(j).transpose();
      bias += sign * b_mean(j);
    }
    const double t = bias + 0.5 * s2 * v.squaredNorm();
    if (t > max) {
      sum = sum * std::exp(max - t) + 1.0;
      max = t;
    } else {
      sum += std::exp(t - max);
    }
  }
  double cov = 0.0;
  for (Eigen::Index k = 0; k < b_cov.size(); ++k)
    cov +=
        b_cov(k) > 0 ? b_cov(k) + std::log1p(std::exp(-b_cov(k))) : std::log1p(std::exp(b_cov(k)));
  return cov + 0.5 * static_cast<double>(M) * std::log(2.0 * M_PI * s2) + max + std::log(sum);
}

std::optional<double> mcrbm_log_z(const McRbm& model) {
  if (!model.covariance_term_vanishes() || model.W().rows() > 20) return std::nullopt;
  return mcrbm_mean_units_log_z(model.W(), model.b_mean(), model.b_cov(), model.b_vis(),
                                model.sigma());
}

}  // namespace logz::exact
