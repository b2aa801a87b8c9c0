#include "logz/kernels/reflection.hpp"

#include <algorithm>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

int reflected_drift(const LinearConstraints& c, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau) {
  constexpr int kMaxReflections = 1000000;
  // Every face's slack a_j . x - b_j and approach a_j . v, as two matrix-vector products (the
  // faces of a box in whitened coordinates are dense rows: a search with a dot product per face
  // and step took half of an evidence run's time); the slacks then follow the straight path,
  // and the approaches are computed again after each reflection.
  Eigen::VectorXd slack = c.A * x - c.b;
  Eigen::VectorXd approach = c.A * v;
  double remaining = tau;
  int reflections = 0;
  for (;;) {
    // The first face the straight path meets within the remaining time.
    double first = remaining;
    Eigen::Index face = -1;
    for (Eigen::Index j = 0; j < approach.size(); ++j) {
      if (!(approach(j) < 0.0)) continue;  // moving along or away from this face
      const double s = std::max(0.0, slack(j)) / -approach(j);
      if (s < first) first = s, face = j;
    }
    x += first * v;
    if (face < 0) return reflections;
    slack += first * approach;
    slack(face) = 0.0;  // on the face, whatever the rounding
    const auto a = c.A.row(face);
    v -= (2.0 * approach(face) / a.squaredNorm()) * a.transpose();
    approach.noalias() = c.A * v;
    remaining -= first;
    if (++reflections >= kMaxReflections)
      throw NumericalError("logz::reflected_drift: expected a finite number of reflections, got " +
                           std::to_string(kMaxReflections) +
                           " in one drift (non-finite momentum?)");
  }
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
