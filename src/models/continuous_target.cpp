#include "logz/models/continuous_target.hpp"

#include <cmath>
#include <limits>

#include "logz/core/error.hpp"

namespace logz {

LinearConstraints LinearConstraints::nonnegative(int dim) {
  LinearConstraints c;
  c.A = Eigen::MatrixXd::Identity(dim, dim);
  c.b = Eigen::VectorXd::Zero(dim);
  c.index_faces();
  return c;
}

namespace {

// The one coordinate face j bounds; -1 where it bounds none or several (a slanted face).
Eigen::Index coordinate_of_face(const LinearConstraints& c, Eigen::Index j) {
  Eigen::Index coordinate = -1;
  for (Eigen::Index i = 0; i < c.A.cols(); ++i) {
    if (c.A(j, i) == 0.0) continue;
    if (coordinate >= 0) return -1;
    coordinate = i;
  }
  return coordinate;
}

}  // namespace

void LinearConstraints::index_faces() {
  auto faces = CoordinateFaces::of(*this);
  coordinate_faces = faces ? std::make_shared<const CoordinateFaces>(std::move(*faces)) : nullptr;
  if (faces) {
    face_gram.resize(0, 0);
  } else {
    face_gram.setZero(A.rows(), A.rows());
    face_gram.selfadjointView<Eigen::Lower>().rankUpdate(A);
    face_gram.triangularView<Eigen::StrictlyUpper>() = face_gram.transpose();
  }
}

std::optional<CoordinateFaces> CoordinateFaces::of(const LinearConstraints& c) {
  CoordinateFaces f;
  f.face_of.assign(static_cast<std::size_t>(c.A.cols()), -1);
  for (Eigen::Index j = 0; j < c.A.rows(); ++j) {
    const Eigen::Index coordinate = coordinate_of_face(c, j);
    if (coordinate < 0 || f.face_of[static_cast<std::size_t>(coordinate)] >= 0) return std::nullopt;
    f.face_of[static_cast<std::size_t>(coordinate)] = static_cast<int>(f.a.size());
    f.a.push_back(c.A(j, coordinate));
    f.b.push_back(c.b(j));
  }
  return f;
}

std::optional<CoordinateFacesThroughMap> CoordinateFacesThroughMap::of(
    const LinearConstraints& c, const Eigen::VectorXd& mean, const Eigen::MatrixXd& factor,
    const Eigen::VectorXd& scale) {
  CoordinateFacesThroughMap f;
  f.a.resize(c.A.rows()), f.b = c.b;
  for (Eigen::Index j = 0; j < c.A.rows(); ++j) {
    const Eigen::Index coordinate = coordinate_of_face(c, j);
    if (coordinate < 0) return std::nullopt;
    f.coordinate.push_back(coordinate);
    f.a(j) = c.A(j, coordinate);
  }
  f.mean = mean, f.factor = factor, f.scale = scale;
  return f;
}

Eigen::MatrixXd CoordinateFacesThroughMap::times_factor(
    const Eigen::Ref<const Eigen::MatrixXd>& Y) const {
  if (factor.size() > 0) return factor.triangularView<Eigen::Lower>() * Y;
  return scale.asDiagonal() * Y;
}

double LinearConstraints::min_slack(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  if (empty()) return std::numeric_limits<double>::infinity();
  return (A * x - b).minCoeff();
}

void LinearConstraints::validate(int dim, const std::string& source) const {
  if (A.rows() != b.size())
    fail_input(source, "constraints", "as many right-hand sides b as rows of A");
  if (A.rows() > 0 && A.cols() != dim)
    fail_input(source, "constraints",
               "rows of A with one entry per dimension (" + std::to_string(dim) + ")");
  if (!A.allFinite() || !b.allFinite()) fail_input(source, "constraints", "finite values");
  for (Eigen::Index j = 0; j < A.rows(); ++j)
    if (A.row(j).squaredNorm() == 0.0)
      fail_input(source, "constraints", "no all-zero row a_j (row " + std::to_string(j) + ")");
}

void EnergyParts::copy_column(const EnergyParts& from, Eigen::Index from_p, Eigen::Index to_p) {
  e.col(to_p) = from.e.col(from_p);
  if (has_grad)
    for (int k = 0; k < num_grads(); ++k) g[k].col(to_p) = from.g[k].col(from_p);
}

ContinuousBatch::ContinuousBatch(int dim, std::size_t num_particles)
    : X(Eigen::MatrixXd::Zero(dim, static_cast<Eigen::Index>(num_particles))),
      V(Eigen::MatrixXd::Zero(dim, static_cast<Eigen::Index>(num_particles))) {
  if (dim < 1) fail_argument("logz::ContinuousBatch", "dim", "at least 1");
}

void ContinuousBatch::copy_particle(const ContinuousBatch& from, std::size_t from_p,
                                    std::size_t to_p) {
  X.col(static_cast<Eigen::Index>(to_p)) = from.X.col(static_cast<Eigen::Index>(from_p));
  V.col(static_cast<Eigen::Index>(to_p)) = from.V.col(static_cast<Eigen::Index>(from_p));
  parts.invalidate();
}

}  // namespace logz
