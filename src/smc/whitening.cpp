#include "logz/smc/whitening.hpp"

#include <Eigen/Cholesky>
#include <cmath>

#include "math/blas.hpp"

namespace logz {

namespace {

Eigen::VectorXd weighted_mean(const Eigen::MatrixXd& X, std::span<const double> weights) {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(X.rows());
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    if (const double w = weights[static_cast<std::size_t>(p)]; w > 0.0) m += w * X.col(p);
  return m;
}

}  // namespace

Whitening Whitening::identity(int dim) {
  return {Eigen::VectorXd::Zero(dim), Eigen::VectorXd::Ones(dim), {}, {}, {}};
}

Whitening Whitening::of_particles(const Eigen::MatrixXd& X, std::span<const double> weights,
                                  SmcPreconditioner kind, const Whitening& previous) {
  const Eigen::Index d = X.rows();
  if (kind == SmcPreconditioner::none) return identity(static_cast<int>(d));
  Whitening w{weighted_mean(X, weights), Eigen::VectorXd::Zero(d), {}, {}, {}};
  for (Eigen::Index i = 0; i < d; ++i)
    if (!std::isfinite(w.mean(i))) w.mean(i) = previous.mean(i);
  Eigen::MatrixXd centred = X.colwise() - w.mean;
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    centred.col(p) *= std::sqrt(std::max(weights[static_cast<std::size_t>(p)], 0.0));
  if (kind == SmcPreconditioner::dense || kind == SmcPreconditioner::automatic) {
    w.automatic = kind == SmcPreconditioner::automatic;
    const Eigen::MatrixXd cov = centred * centred.transpose();
    const Eigen::LLT<Eigen::MatrixXd> llt(cov);
    if (llt.info() == Eigen::Success && cov.allFinite()) {
      w.factor = llt.matrixL();
      w.scale = w.factor.diagonal();
      if ((w.scale.array() > 0.0).all() && w.factor.allFinite()) {
        w.covariance = cov;
        return w;
      }
      w.factor.resize(0, 0);
    }
  }
  w.variance = centred.rowwise().squaredNorm();
  for (Eigen::Index i = 0; i < d; ++i) {
    const double s = std::sqrt(w.variance(i));
    w.scale(i) = std::isfinite(s) && s > 0.0 ? s : previous.scale(i);
  }
  return w;
}

void Whitening::to_whitened(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::MatrixXd& Z) const {
  Z = X.colwise() - mean;
  if (dense() && Z.cols() < 2 * factor.rows()) {
    factor.triangularView<Eigen::Lower>().solveInPlace(Z);
  } else if (dense()) {
    // L^{-1} (a solve with d columns), then a product with it (dgemm or dtrmm): less time than
    // a solve with P columns from about P = 2d on (d = 30, P = 1000: 2-3 times less; OpenBLAS's
    // dtrsm is slower than Eigen's solve).
    thread_local Eigen::MatrixXd inverse;
    inverse = factor.triangularView<Eigen::Lower>().solve(
        Eigen::MatrixXd::Identity(factor.rows(), factor.cols()));
    blas::lower_triangular_multiply(inverse, false, Z);
  } else
    Z = (Z.array().colwise() / scale.array()).matrix();
}

void Whitening::to_original(const Eigen::Ref<const Eigen::MatrixXd>& Z, Eigen::MatrixXd& X) const {
  if (dense()) {
    blas::lower_triangular_product(factor, Z, X);
  } else {
    X = (Z.array().colwise() * scale.array()).matrix();
  }
  X.colwise() += mean;
}

void Whitening::gradient_to_whitened(Eigen::MatrixXd& G) const {
  // A gradient that is zero everywhere (a uniform prior's, inside its box) stays zero: O(d P)
  // to see, where the product is O(d^2 P).
  if (!dense())
    G = (G.array().colwise() * scale.array()).matrix();
  else if (!G.isZero(0.0))
    blas::lower_triangular_multiply(factor, true, G);
}

double Whitening::whitened_total_variance(const Eigen::MatrixXd& X,
                                          std::span<const double> weights) const {
  Eigen::MatrixXd Z;
  to_whitened(X, Z);
  const Eigen::VectorXd m = weighted_mean(Z, weights);
  double total = 0.0;
  for (Eigen::Index p = 0; p < Z.cols(); ++p)
    if (const double w = weights[static_cast<std::size_t>(p)]; w > 0.0)
      total += w * (Z.col(p) - m).squaredNorm();
  return total;
}

Whitening Whitening::without(const Eigen::MatrixXd& X, std::span<const double> weights,
                             std::span<const std::size_t> excluded) const {
  if (covariance.size() == 0 && variance.size() == 0) return *this;  // identity: nothing to leave
  const Eigen::Index d = mean.size();
  double w_out = 0.0;
  Eigen::VectorXd s_out = Eigen::VectorXd::Zero(d);  // sum of W (x - m) over the excluded
  Eigen::MatrixXd c_out = Eigen::MatrixXd::Zero(dense() ? d : 0, dense() ? d : 0);
  Eigen::VectorXd v_out = Eigen::VectorXd::Zero(d);
  // sqrt(W) (x - m) of each excluded particle, a column each: their sum of outer products is one
  // rank-k update (a blocked product), where one rank-1 update per particle was 5% of a dense
  // whitening's run at d = 30.
  Eigen::MatrixXd scaled(dense() ? d : 0, static_cast<Eigen::Index>(excluded.size()));
  Eigen::Index k = 0;
  for (std::size_t i : excluded) {
    const double w = weights[i];
    if (!(w > 0.0)) continue;
    const Eigen::VectorXd v = X.col(static_cast<Eigen::Index>(i)) - mean;
    w_out += w;
    s_out += w * v;
    if (dense())
      scaled.col(k++) = std::sqrt(w) * v;
    else
      v_out += w * v.cwiseAbs2();
  }
  if (dense() && k > 0) c_out.selfadjointView<Eigen::Lower>().rankUpdate(scaled.leftCols(k));
  if (!(w_out > 0.0)) return *this;
  if (!(w_out < 1.0 - 1e-12)) return *this;
  const double keep = 1.0 - w_out;
  const Eigen::VectorXd shift = -s_out / keep;  // mean of the others less m
  Whitening w = *this;
  w.mean = mean + shift;
  if (dense()) {
    Eigen::MatrixXd cov =
        (covariance - c_out.selfadjointView<Eigen::Lower>().toDenseMatrix()) / keep;
    cov -= shift * shift.transpose();
    if (automatic && correlations_within_noise(cov, effective_count * keep)) {
      w.factor.resize(0, 0);  // diagonal: the others' standard deviations (all > 0 to get here)
      w.covariance.resize(0, 0);
      w.scale = cov.diagonal().cwiseSqrt();
      return w;
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(cov);
    if (llt.info() != Eigen::Success) return *this;
    w.factor = llt.matrixL();
    w.scale = w.factor.diagonal();
    if (!(w.scale.array() > 0.0).all() || !w.factor.allFinite()) return *this;
    return w;
  }
  for (Eigen::Index i = 0; i < d; ++i) {
    const double var = (variance(i) - v_out(i)) / keep - shift(i) * shift(i);
    w.scale(i) = var > 0.0 && std::isfinite(var) ? std::sqrt(var) : scale(i);
  }
  return w;
}

bool correlations_within_noise(const Eigen::MatrixXd& cov, double effective_count) {
  const Eigen::Index d = cov.rows();
  if (d < 2 || !(effective_count > 1.0) || !cov.allFinite()) return false;
  const Eigen::ArrayXd sd = cov.diagonal().array().sqrt();
  if (!(sd > 0.0).all()) return false;
  const double pairs = 0.5 * static_cast<double>(d) * static_cast<double>(d - 1);
  const double limit = (1.2 * pairs + 3.0 * std::sqrt(2.0 * pairs)) / effective_count;
  double sum = 0.0;
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = j + 1; i < d; ++i) {
      const double r = cov(i, j) / (sd(i) * sd(j));
      if (!(std::abs(r) <= 0.3)) return false;
      sum += r * r;
    }
  return sum <= limit;
}

}  // namespace logz
