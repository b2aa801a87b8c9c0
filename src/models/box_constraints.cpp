#include "logz/models/box_constraints.hpp"

#include <cmath>

#include "logz/core/error.hpp"

namespace logz {

std::shared_ptr<const LinearConstraints> box_constraints(const Eigen::VectorXd& low,
                                                         const Eigen::VectorXd& high) {
  if (low.size() != high.size())
    fail_argument("logz::box_constraints", "high", "as many ends as low");
  const Eigen::Index d = low.size();
  int faces = 0;
  for (Eigen::Index i = 0; i < d; ++i) faces += std::isfinite(low(i)) + std::isfinite(high(i));
  if (faces == 0) return nullptr;
  auto c = std::make_shared<LinearConstraints>();
  c->A.setZero(faces, d);
  c->b.resize(faces);
  int r = 0;
  for (Eigen::Index i = 0; i < d; ++i) {
    if (std::isfinite(low(i))) c->A(r, i) = 1.0, c->b(r) = low(i), ++r;
    if (std::isfinite(high(i))) c->A(r, i) = -1.0, c->b(r) = -high(i), ++r;
  }
  c->index_faces();
  return c;
}

}  // namespace logz
