// Exact draws of a density with a one-point sampler into the columns of a d x P matrix: column p
// from random.stream(p), so a particle's draw never depends on the others.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "logz/random/philox.hpp"

namespace logz {

// sampler.sample_one(RandomStream&, Eigen::Ref<Eigen::VectorXd>) fills one column.
template <class Sampler>
void sample_columns(const Sampler& sampler, Eigen::MatrixXd& X, const BatchRandom& random) {
  X.resize(sampler.dim(), X.cols());
  for (Eigen::Index p = 0; p < X.cols(); ++p) {
    RandomStream s = random.stream(static_cast<std::size_t>(p));
    sampler.sample_one(s, X.col(p));
  }
}

}  // namespace logz
