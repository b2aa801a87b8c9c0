#include "logz/evidence/prior.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/models/box_constraints.hpp"

namespace logz {

namespace {

constexpr double kPriorInf = std::numeric_limits<double>::infinity();

bool prior_all_finite(const Eigen::VectorXd& v) { return v.allFinite(); }

// A diagonal Normal's energies and gradients in one pass over the batch (d x P, column-major),
// no temporary: at small d, Eigen's expressions per column or per batch cost three times this,
// a sixth of logz.evidence's own time on a regression (docs/evidence.md).
void diagonal_energy_and_grad(Eigen::Index d, Eigen::Index num, const double* __restrict x,
                              const double* __restrict mean, const double* __restrict inv_sd,
                              double constant, double* __restrict e, double* __restrict g) {
  for (Eigen::Index p = 0; p < num; ++p, x += d, g += d) {
    double sum = 0.0;
    for (Eigen::Index i = 0; i < d; ++i) {
      const double z = inv_sd[i] * (x[i] - mean[i]);
      sum += z * z;
      g[i] = inv_sd[i] * z;
    }
    e[p] = 0.5 * sum + constant;
  }
}

class NormalPriorBlock final : public PriorBlock {
 public:
  NormalPriorBlock(const Eigen::VectorXd& mean, const Eigen::MatrixXd& cov) : mean_(mean) {
    const auto k = mean.size();
    if (k < 1 || !prior_all_finite(mean))
      fail_argument("logz::normal_prior", "mean", "a non-empty vector of finite numbers");
    if (cov.rows() != k || cov.cols() != k || !cov.allFinite())
      fail_argument("logz::normal_prior", "covariance",
                    "a finite k x k matrix, k the length of the mean");
    const bool diagonal =
        (cov - Eigen::MatrixXd(cov.diagonal().asDiagonal())).cwiseAbs().maxCoeff() == 0.0;
    double log_det_half = 0.0;
    if (diagonal) {
      if (!(cov.diagonal().array() > 0.0).all())
        fail_argument("logz::normal_prior", "covariance", "positive variances");
      sd_ = cov.diagonal().array().sqrt();
      inv_sd_ = sd_.cwiseInverse();
      log_det_half = sd_.array().log().sum();
    } else {
      if ((cov - cov.transpose()).cwiseAbs().maxCoeff() > 1e-12 * cov.cwiseAbs().maxCoeff())
        fail_argument("logz::normal_prior", "covariance", "a symmetric matrix");
      const Eigen::LLT<Eigen::MatrixXd> llt(cov);
      if (llt.info() != Eigen::Success)
        fail_argument("logz::normal_prior", "covariance", "a positive definite matrix");
      chol_ = llt.matrixL();
      log_det_half = chol_.diagonal().array().log().sum();
    }
    constant_ = 0.5 * static_cast<double>(k) * std::log(2.0 * std::numbers::pi) + log_det_half;
  }
  int dim() const override { return static_cast<int>(mean_.size()); }
  std::string name() const override { return "normal"; }
  bool has_grad() const override { return true; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const override {
    const Eigen::MatrixXd z = standardised(X);
    e = 0.5 * z.colwise().squaredNorm().transpose();
    e.array() += constant_;
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                       Eigen::MatrixXd& G) const override {
    if (chol_.size() == 0) {
      e.resize(X.cols());
      G.resize(X.rows(), X.cols());
      diagonal_energy_and_grad(X.rows(), X.cols(), X.data(), mean_.data(), inv_sd_.data(),
                               constant_, e.data(), G.data());
      return;
    }
    const Eigen::MatrixXd z = standardised(X);
    e = 0.5 * z.colwise().squaredNorm().transpose();
    e.array() += constant_;
    G = chol_.transpose().triangularView<Eigen::Upper>().solve(z);
  }
  void sample_one(RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) const override {
    Eigen::VectorXd z(mean_.size());
    s.fill_normal(z.data(), static_cast<std::size_t>(z.size()));
    if (chol_.size() == 0)
      x = mean_ + sd_.cwiseProduct(z);
    else
      x = mean_ + chol_.triangularView<Eigen::Lower>() * z;
  }

 private:
  // L^{-1}(x - m) for every column.
  Eigen::MatrixXd standardised(const Eigen::MatrixXd& X) const {
    const Eigen::MatrixXd c = X.colwise() - mean_;
    if (chol_.size() == 0) return inv_sd_.asDiagonal() * c;
    return chol_.triangularView<Eigen::Lower>().solve(c);
  }

  Eigen::VectorXd mean_, sd_, inv_sd_;
  Eigen::MatrixXd chol_;  // empty: diagonal (sd_)
  double constant_ = 0.0;
};

class UniformPriorBlock final : public PriorBlock {
 public:
  UniformPriorBlock(const Eigen::VectorXd& low, const Eigen::VectorXd& high)
      : low_(low), high_(high) {
    if (low.size() < 1 || !prior_all_finite(low))
      fail_argument("logz::uniform_prior", "low", "a non-empty vector of finite numbers");
    if (high.size() != low.size() || !prior_all_finite(high))
      fail_argument("logz::uniform_prior", "high", "finite numbers, as many as in low");
    if (!(low.array() < high.array()).all())
      fail_argument("logz::uniform_prior", "high", "high > low in every coordinate");
    log_volume_ = (high - low).array().log().sum();
  }
  int dim() const override { return static_cast<int>(low_.size()); }
  std::string name() const override { return "uniform"; }
  bool has_grad() const override { return true; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const override {
    e.resize(X.cols());
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      const bool inside =
          (X.col(p).array() >= low_.array()).all() && (X.col(p).array() <= high_.array()).all();
      e(p) = inside ? log_volume_ : kPriorInf;
    }
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                       Eigen::MatrixXd& G) const override {
    energy(X, e);
    G.setZero(X.rows(), X.cols());
  }
  void sample_one(RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) const override {
    for (Eigen::Index i = 0; i < x.size(); ++i)
      x(i) = low_(i) + (high_(i) - low_(i)) * s.uniform();  // uniform() is in (0, 1)
  }
  const Eigen::VectorXd* lower() const override { return &low_; }
  const Eigen::VectorXd* upper() const override { return &high_; }

 private:
  Eigen::VectorXd low_, high_;
  double log_volume_ = 0.0;
};

class StudentTPriorBlock final : public PriorBlock {
 public:
  StudentTPriorBlock(const Eigen::VectorXd& df, const Eigen::VectorXd& loc,
                     const Eigen::VectorXd& scale)
      : df_(df), loc_(loc), scale_(scale), constant_(df.size()) {
    if (df.size() < 1 || !prior_all_finite(df) || !(df.array() > 0.0).all())
      fail_argument("logz::student_t_prior", "df", "finite numbers > 0");
    if (loc.size() != df.size() || !prior_all_finite(loc))
      fail_argument("logz::student_t_prior", "loc", "finite numbers, one per coordinate");
    if (scale.size() != df.size() || !prior_all_finite(scale) || !(scale.array() > 0.0).all())
      fail_argument("logz::student_t_prior", "scale", "finite numbers > 0, one per coordinate");
    for (Eigen::Index i = 0; i < df.size(); ++i) {
      const double v = df(i);
      // -log of the density's normalising factor.
      constant_(i) = -std::lgamma(0.5 * (v + 1.0)) + std::lgamma(0.5 * v) +
                     0.5 * std::log(v * std::numbers::pi) + std::log(scale(i));
    }
  }
  int dim() const override { return static_cast<int>(df_.size()); }
  std::string name() const override { return "student_t"; }
  bool has_grad() const override { return true; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const override {
    Eigen::MatrixXd G;
    evaluate(X, e, G, false);
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                       Eigen::MatrixXd& G) const override {
    evaluate(X, e, G, true);
  }
  void sample_one(RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) const override {
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const double z = s.normal();
      const double chi2 = 2.0 * gamma_draw(s, 0.5 * df_(i));
      x(i) = loc_(i) + scale_(i) * z / std::sqrt(chi2 / df_(i));
    }
  }

 private:
  void evaluate(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G, bool grad) const {
    e.setZero(X.cols());
    if (grad) G.resize(X.rows(), X.cols());
    for (Eigen::Index p = 0; p < X.cols(); ++p)
      for (Eigen::Index i = 0; i < X.rows(); ++i) {
        const double v = df_(i), r = (X(i, p) - loc_(i)) / scale_(i);
        e(p) += constant_(i) + 0.5 * (v + 1.0) * std::log1p(r * r / v);
        if (grad) G(i, p) = (v + 1.0) * r / (scale_(i) * (v + r * r));
      }
  }

  Eigen::VectorXd df_, loc_, scale_, constant_;
};

class CustomPriorBlock final : public PriorBlock {
 public:
  explicit CustomPriorBlock(CustomPriorFunctions f) : f_(std::move(f)) {
    if (f_.dim < 1) fail_argument("logz::custom_prior", "dim", "an integer >= 1");
    if (!f_.sample) fail_argument("logz::custom_prior", "sample", "a sampling function");
    if (!f_.log_density)
      fail_argument("logz::custom_prior", "log_density", "a log density function");
  }
  int dim() const override { return f_.dim; }
  std::string name() const override { return "custom"; }
  bool has_grad() const override { return static_cast<bool>(f_.grad_log_density); }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const override {
    f_.log_density(X, e);
    e = -e;
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                       Eigen::MatrixXd& G) const override {
    if (!f_.grad_log_density)
      fail_argument("logz::custom_prior", "grad_log_density",
                    "a gradient function (a gradient move was asked for)");
    f_.grad_log_density(X, e, G);
    e = -e;
    G = -G;
  }
  void sample_one(RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) const override {
    f_.sample(s, x);
  }

 private:
  CustomPriorFunctions f_;
};

}  // namespace

std::shared_ptr<const PriorBlock> normal_prior(const Eigen::VectorXd& mean,
                                               const Eigen::MatrixXd& covariance) {
  return std::make_shared<NormalPriorBlock>(mean, covariance);
}
std::shared_ptr<const PriorBlock> uniform_prior(const Eigen::VectorXd& low,
                                                const Eigen::VectorXd& high) {
  return std::make_shared<UniformPriorBlock>(low, high);
}
std::shared_ptr<const PriorBlock> student_t_prior(const Eigen::VectorXd& df,
                                                  const Eigen::VectorXd& loc,
                                                  const Eigen::VectorXd& scale) {
  return std::make_shared<StudentTPriorBlock>(df, loc, scale);
}
std::shared_ptr<const PriorBlock> custom_prior(CustomPriorFunctions functions) {
  return std::make_shared<CustomPriorBlock>(std::move(functions));
}

double gamma_draw(RandomStream& s, double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) U^(1/a) (Marsaglia & Tsang, section 6), in logs for tiny a.
    const double g = gamma_draw(s, shape + 1.0);
    return std::exp(std::log(g) + std::log(s.uniform()) / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double z, v;
    do {
      z = s.normal();
      v = 1.0 + c * z;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = s.uniform();
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) return d * v;
  }
}

Prior::Prior(std::vector<std::shared_ptr<const PriorBlock>> blocks) : blocks_(std::move(blocks)) {
  if (blocks_.empty()) fail_argument("logz::Prior", "blocks", "at least one block");
  for (const auto& b : blocks_) {
    if (!b) fail_argument("logz::Prior", "blocks", "no null block");
    offsets_.push_back(dim_);
    dim_ += b->dim();
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  low_ = Eigen::VectorXd::Constant(dim_, -inf);
  high_ = Eigen::VectorXd::Constant(dim_, inf);
  for (std::size_t k = 0; k < blocks_.size(); ++k)
    if (const PriorBlock& b = *blocks_[k]; b.lower()) {
      low_.segment(offsets_[k], b.dim()) = *b.lower();
      high_.segment(offsets_[k], b.dim()) = *b.upper();
    }
  constraints_ = box_constraints(low_, high_);
}

bool Prior::has_grad() const {
  for (const auto& b : blocks_)
    if (!b->has_grad()) return false;
  return true;
}

// One block (the usual prior) writes the answer itself: no copy of the batch's rows.
void Prior::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  if (blocks_.size() == 1) return blocks_[0]->energy(X, e);
  e.setZero(X.cols());
  Eigen::VectorXd part;
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    const PriorBlock& b = *blocks_[k];
    const Eigen::MatrixXd rows = X.middleRows(offsets_[k], b.dim());
    b.energy(rows, part);
    e += part;
  }
}

void Prior::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                            Eigen::MatrixXd& G) const {
  if (blocks_.size() == 1) return blocks_[0]->energy_and_grad(X, e, G);
  e.setZero(X.cols());
  G.resize(X.rows(), X.cols());
  Eigen::VectorXd part;
  Eigen::MatrixXd g;
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    const PriorBlock& b = *blocks_[k];
    const Eigen::MatrixXd rows = X.middleRows(offsets_[k], b.dim());
    b.energy_and_grad(rows, part, g);
    e += part;
    G.middleRows(offsets_[k], b.dim()) = g;
  }
}

void Prior::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  for (std::size_t k = 0; k < blocks_.size(); ++k)
    blocks_[k]->sample_one(stream, x.segment(offsets_[k], blocks_[k]->dim()));
}

}  // namespace logz
