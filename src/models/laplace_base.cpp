#include "logz/models/laplace_base.hpp"

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/math/constants.hpp"
#include "logz/models/sample_columns.hpp"

namespace logz {

LaplaceBase::LaplaceBase(int num_two_sided, int num_one_sided)
    : num_two_sided_(num_two_sided), num_one_sided_(num_one_sided) {
  if (num_two_sided < 0 || num_one_sided < 0 || num_two_sided + num_one_sided < 1)
    fail_argument("logz::LaplaceBase", "num_two_sided, num_one_sided",
                  "counts >= 0 with a sum >= 1");
  if (num_one_sided > 0) {
    constraints_.A = Eigen::MatrixXd::Zero(num_one_sided, dim());
    constraints_.A.rightCols(num_one_sided).setIdentity();
    constraints_.b = Eigen::VectorXd::Zero(num_one_sided);
    constraints_.index_faces();
  }
}

double LaplaceBase::log_z() const { return num_two_sided_ * kLog2; }

void LaplaceBase::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  if (X.rows() != dim()) fail_argument("logz::LaplaceBase::energy", "X", "one row per dimension");
  e = X.topRows(num_two_sided_).cwiseAbs().colwise().sum().transpose();
  e.noalias() += X.bottomRows(num_one_sided_).colwise().sum().transpose();
}

void LaplaceBase::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                  Eigen::MatrixXd& G) const {
  energy(X, e);
  G.resize(X.rows(), X.cols());
  G.topRows(num_two_sided_) = X.topRows(num_two_sided_).array().sign().matrix();
  G.bottomRows(num_one_sided_).setOnes();
}

void LaplaceBase::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  for (int i = 0; i < dim(); ++i) {
    const double m = -std::log(stream.uniform());
    x(i) = i < num_two_sided_ && stream.uniform() < 0.5 ? -m : m;
  }
}

void LaplaceBase::sample(Eigen::MatrixXd& X, const BatchRandom& random) const {
  sample_columns(*this, X, random);
}

}  // namespace logz
