#include "logz/kernels/reflection.hpp"

#include <algorithm>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

int reflected_drift(const LinearConstraints& c, Eigen::Ref<Eigen::VectorXd> x,
                    Eigen::Ref<Eigen::VectorXd> v, double tau) {
  constexpr int kMaxReflections = 1000000;
  double remaining = tau;
  int reflections = 0;
  for (;;) {
    // The first face the straight path meets within the remaining time.
    double first = remaining;
    Eigen::Index face = -1;
    for (Eigen::Index j = 0; j < c.A.rows(); ++j) {
      const double approach = c.A.row(j).dot(v);
      if (!(approach < 0.0)) continue;  // moving along or away from this face
      const double slack = std::max(0.0, c.A.row(j).dot(x) - c.b(j));
      const double s = slack / -approach;
      if (s < first) first = s, face = j;
    }
    x += first * v;
    if (face < 0) return reflections;
    const auto a = c.A.row(face);
    v -= (2.0 * a.dot(v) / a.squaredNorm()) * a.transpose();
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
