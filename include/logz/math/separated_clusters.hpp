// Clusters of weighted points that are well separated from each other: the modes of a
// multimodal posterior as an SMC run's particles hold them, so that a base fitted to them can be
// a mixture with one component per mode (smc/fitted_base.hpp) instead of one Gaussian whose
// tails reach the smaller modes only by chance.
//
// Weighted k-means (Lloyd's iterations from a farthest-first start) for k = 2, 3, ...,
// max_clusters; a clustering is kept while every pair of its clusters is separated along the
// line through their means: |mu_i - mu_j| >= min_separation (s_i + s_j), s the clusters'
// weighted standard deviations along that line, and every cluster holds at least
// min_points points. A unimodal cloud split in two gives halves about 1.3 of those widths apart
// (a Gaussian: means at +-0.8 sigma, 0.6 sigma each), so the default 6 splits modes only.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace logz {

struct SeparatedClustersOptions {
  int max_clusters = 8;
  double min_separation = 6.0;
  int min_points = 5;
  int max_iterations = 100;
  // Lloyd's iterations stop once fewer than this fraction of the points change cluster (0: none).
  // Separated modes settle in a few iterations; a unimodal cloud's boundary then moves a few
  // points an iteration for 20 to 50 more (1000 points in 10 dimensions) and decides nothing.
  double settled_fraction = 0.01;
};

// The clusters found: a label 0..k-1 per point, and each cluster's weight (the sum of its
// points' w) and weighted mean.
struct SeparatedClusters {
  std::vector<int> labels;
  Eigen::VectorXd weights;  // k
  Eigen::MatrixXd means;    // d x k
  int size() const { return static_cast<int>(weights.size()); }
};

// The clusters of the columns of X (points, d x n) with weights w (n, >= 0, not all 0); one
// cluster (every label 0) where no split into separated clusters is found. Deterministic.
SeparatedClusters separated_clusters(const Eigen::MatrixXd& X, const Eigen::VectorXd& w,
                                     const SeparatedClustersOptions& options = {});

}  // namespace logz
