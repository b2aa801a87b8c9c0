// A user's energy asked only where it can answer: a position with an infinite or NaN coordinate
// (a leapfrog trajectory that diverged, rejected at its end) is none of the user's functions'
// business, and one written as numbers answers NaN there (inf - inf), which the Python layer
// refuses as the user's error: a banana likelihood in 12 dimensions stopped logz.evidence that
// way (docs/evidence.md). Such columns get energy +inf (zero density) and gradient 0.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <vector>

namespace logz {

// Calls f(X', e', G') (pointers; either output may be null) on the columns of X whose
// coordinates are all finite, X itself where all are (one vectorised pass), and not at all where
// none is; the other columns' energies are +inf and their gradients 0.
template <class F>
void on_finite_columns(const Eigen::MatrixXd& X, Eigen::VectorXd* e, Eigen::MatrixXd* G, F&& f) {
  if (X.allFinite()) {
    f(X, e, G);
    return;
  }
  std::vector<Eigen::Index> kept;
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    if (X.col(p).allFinite()) kept.push_back(p);
  Eigen::MatrixXd Xk(X.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t k = 0; k < kept.size(); ++k)
    Xk.col(static_cast<Eigen::Index>(k)) = X.col(kept[k]);
  Eigen::VectorXd ek;
  Eigen::MatrixXd Gk;
  if (!kept.empty()) f(Xk, e ? &ek : nullptr, G ? &Gk : nullptr);
  if (e) {
    e->setConstant(X.cols(), std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < kept.size(); ++k) (*e)(kept[k]) = ek(static_cast<Eigen::Index>(k));
  }
  if (G) {
    G->setZero(X.rows(), X.cols());
    for (std::size_t k = 0; k < kept.size(); ++k)
      G->col(kept[k]) = Gk.col(static_cast<Eigen::Index>(k));
  }
}

}  // namespace logz
