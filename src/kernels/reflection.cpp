#include "logz/kernels/reflection.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The billiard of one particle from its faces' slacks A x - b and approaches A v, which it
// updates: the slacks along the straight path, the approaches after each reflection (by a
// column of A A^T where c has it, else as A v again). `meets`: scratch of one entry per face,
// the caller's, so that a batch's particles share it.
int billiard(const LinearConstraints& c, Eigen::Ref<Eigen::VectorXd> x,
             Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> slack,
             Eigen::Ref<Eigen::VectorXd> approach, double tau, Eigen::ArrayXd& meets) {
  constexpr int kMaxReflections = 1000000;
  const bool gram = c.face_gram.rows() == c.A.rows() && c.face_gram.cols() == c.A.rows();
  double remaining = tau;
  int reflections = 0;
  meets.resize(approach.size());
  for (;;) {
    // The first face the straight path meets within the remaining time: the time to every face
    // it moves towards (in vector lanes; the other faces never), then the least.
    meets = (approach.array() < 0.0).select(slack.array().max(0.0) / -approach.array(), kInfinity);
    double first = remaining;
    Eigen::Index face = -1;
    if (const double least = meets.minCoeff(); least < remaining) {
      first = least;
      for (face = 0; meets(face) != least;) ++face;
    }
    x += first * v;
    slack += first * approach;
    if (face < 0) return reflections;
    slack(face) = 0.0;  // on the face, whatever the rounding
    const auto a = c.A.row(face);
    const double k = 2.0 * approach(face) / a.squaredNorm();
    v -= k * a.transpose();
    if (gram)
      approach -= k * c.face_gram.col(face);
    else
      approach.noalias() = c.A * v;
    remaining -= first;
    if (++reflections >= kMaxReflections)
      throw NumericalError("logz::reflected_drift: expected a finite number of reflections, got " +
                           std::to_string(kMaxReflections) +
                           " in one drift (non-finite momentum?)");
  }
}

}  // namespace

int reflected_drift(const LinearConstraints& c, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau) {
  // Every face's slack and approach as two matrix-vector products (the faces of a box in
  // whitened coordinates are dense rows: a search with a dot product per face and step took half
  // of an evidence run's time).
  Eigen::VectorXd slack = c.A * x - c.b;
  Eigen::VectorXd approach = c.A * v;
  Eigen::ArrayXd meets;
  return billiard(c, x, v, slack, approach, tau, meets);
}

std::uint64_t reflected_drifts(const LinearConstraints& c, Eigen::Ref<Eigen::MatrixXd> X,
                               Eigen::Ref<Eigen::MatrixXd> V, double tau, Eigen::MatrixXd& slack) {
  // The slacks and approaches of all the columns: as two matrix products, A read once for all,
  // or from x = m + L z and L v where the faces bound coordinates of x.
  const bool have_slack = slack.rows() == c.A.rows() && slack.cols() == X.cols();
  Eigen::MatrixXd approach(c.A.rows(), X.cols());
  if (const CoordinateFacesThroughMap* f = c.through_map.get()) {
    auto through = [&](const Eigen::MatrixXd& y, Eigen::MatrixXd& out, bool offset) {
      for (Eigen::Index p = 0; p < X.cols(); ++p)
        for (Eigen::Index j = 0; j < c.A.rows(); ++j)
          out(j, p) =
              f->a(j) * y(f->coordinate[static_cast<std::size_t>(j)], p) - (offset ? f->b(j) : 0.0);
    };
    if (!have_slack) {
      Eigen::MatrixXd x = f->times_factor(X);
      x.colwise() += f->mean;
      slack.resize(c.A.rows(), X.cols());
      through(x, slack, true);
    }
    through(f->times_factor(V), approach, false);
  } else {
    if (!have_slack) {
      slack.noalias() = c.A * X;
      slack.colwise() -= c.b;
    }
    approach.noalias() = c.A * V;
  }
  std::uint64_t reflections = 0;
  Eigen::ArrayXd meets;
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    reflections += static_cast<std::uint64_t>(
        billiard(c, X.col(p), V.col(p), slack.col(p), approach.col(p), tau, meets));
  return reflections;
}

int reflected_drift(const CoordinateFaces& f, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau) {
  int reflections = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const int j = f.face_of[static_cast<std::size_t>(i)];
    const double approach = j < 0 ? 0.0 : f.a[static_cast<std::size_t>(j)] * v(i);
    if (approach < 0.0) {  // moving towards its face: met within tau?
      const auto k = static_cast<std::size_t>(j);
      const double s = std::max(0.0, f.a[k] * x(i) - f.b[k]) / -approach;
      if (s < tau) {
        x(i) += s * v(i);
        v(i) = -v(i);
        x(i) += (tau - s) * v(i);
        ++reflections;
        continue;
      }
    }
    x(i) += tau * v(i);
  }
  return reflections;
}

}  // namespace logz
