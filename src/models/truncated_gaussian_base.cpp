#include "logz/models/truncated_gaussian_base.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>

#include "logz/core/error.hpp"
#include "logz/math/constants.hpp"
#include "logz/models/box_constraints.hpp"
#include "logz/models/sample_columns.hpp"

namespace logz {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Phi(z), the standard normal CDF; 0 and 1 at -inf and +inf.
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace

TruncatedGaussianBase::TruncatedGaussianBase(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                                             const Eigen::VectorXd& low,
                                             const Eigen::VectorXd& high)
    : mean_(mean), sd_(sd), low_(low), high_(high) {
  const Eigen::Index d = mean.size();
  const char* where = "logz::TruncatedGaussianBase";
  if (d < 1 || !mean.allFinite()) fail_argument(where, "mean", "at least one finite value");
  if (sd.size() != d || !sd.allFinite() || !(sd.array() > 0.0).all())
    fail_argument(where, "sd", "finite numbers > 0, as many as in mean");
  if (low.size() != d || high.size() != d || (low.array().isNaN()).any() ||
      (high.array().isNaN()).any() || !(low.array() < high.array()).all())
    fail_argument(where, "high", "low < high in every coordinate, as many as in mean");
  if (!((mean.array() >= low.array()).all() && (mean.array() <= high.array()).all()))
    fail_argument(where, "mean", "a point inside [low, high]");
  cdf_low_.resize(d), cdf_high_.resize(d);
  log_z_ = 0.5 * static_cast<double>(d) * kLog2Pi;
  for (Eigen::Index i = 0; i < d; ++i) {
    // a_i <= 0 <= b_i (the mean is inside): Phi(b) - Phi(a) >= Phi(b) - 1/2 keeps its precision.
    cdf_low_(i) = normal_cdf((low(i) - mean(i)) / sd(i));
    cdf_high_(i) = normal_cdf((high(i) - mean(i)) / sd(i));
    log_z_ += std::log(sd(i)) + std::log(cdf_high_(i) - cdf_low_(i));
  }
  constraints_ = box_constraints(low, high);
}

bool TruncatedGaussianBase::inside(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return (x.array() >= low_.array()).all() && (x.array() <= high_.array()).all();
}

void TruncatedGaussianBase::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  e.resize(X.cols());
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    e(p) =
        inside(X.col(p)) ? 0.5 * ((X.col(p) - mean_).array() / sd_.array()).square().sum() : kInf;
}

void TruncatedGaussianBase::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                            Eigen::MatrixXd& G) const {
  energy(X, e);
  G = (X.colwise() - mean_).array().colwise() / sd_.array().square();
}

void TruncatedGaussianBase::sample(Eigen::MatrixXd& X, const BatchRandom& random) const {
  sample_columns(*this, X, random);
}

void TruncatedGaussianBase::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double u = cdf_low_(i) + (cdf_high_(i) - cdf_low_(i)) * stream.uniform();
    // uniform() is in (0, 1); rounding can still reach an end of the box: stay inside it.
    x(i) = std::clamp(mean_(i) + sd_(i) * Eigen::numext::ndtri(u), low_(i), high_(i));
  }
}

}  // namespace logz
