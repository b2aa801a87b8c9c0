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
                           std::to_string(kMaxReflections) + " in one drift (non-finite momentum?)");
  }
}

}  // namespace logz
