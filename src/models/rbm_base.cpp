#include "logz/models/rbm_base.hpp"

#include <fmt/format.h>

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/math/log_sum_exp.hpp"

namespace logz {

double RbmBase::log_z(int num_hidden) const {
  double s = num_hidden * std::log(2.0);
  for (Eigen::Index i = 0; i < logits.size(); ++i) s += log1p_exp(logits[i]);
  return s;
}

RbmBase uniform_rbm_base(int num_visible) {
  if (num_visible < 1) fail_argument("logz::uniform_rbm_base", "num_visible", "at least 1");
  return RbmBase{"uniform", Eigen::VectorXd::Zero(num_visible)};
}

RbmBase base_rate_rbm_base(const Eigen::MatrixXd& data, double smoothing) {
  constexpr const char* fn = "logz::base_rate_rbm_base";
  if (data.rows() < 1 || data.cols() < 1)
    fail_argument(fn, "data", "at least one row and one column");
  if (!(smoothing > 0.0) || !std::isfinite(smoothing))
    fail_argument(fn, "smoothing", "a finite number > 0");
  const double n = static_cast<double>(data.rows());
  RbmBase base{"base_rate", Eigen::VectorXd(data.cols())};
  for (Eigen::Index i = 0; i < data.cols(); ++i) {
    double c = 0.0;
    for (Eigen::Index r = 0; r < data.rows(); ++r) {
      const double x = data(r, i);
      if (!(x >= 0.0 && x <= 1.0))
        fail_argument(fn, "data",
                      fmt::format("values in [0, 1], got {} at row {} column {}", x, r, i));
      c += x;
    }
    const double pseudo = smoothing * n;
    // logit p = log(c + s n) - log(n - c + s n), both arguments > 0.
    base.logits[i] = std::log(c + pseudo) - std::log(n - c + pseudo);
  }
  return base;
}

}  // namespace logz
