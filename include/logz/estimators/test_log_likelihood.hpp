// Average test log-likelihood of a model with intractable Z, in nats per example:
//   L = (1/n) sum_r [-F(v_r)] - log Z,
// e.g. an RBM's free energies F(v) (models/rbm.hpp) and an estimate of log Z.
// Its standard error combines the two independent sources of error,
//   SE^2 = s^2 / n + SE(log Z)^2,
// s the (n - 1) sample sd of -F over the data (sampling of the test set) and
// SE(log Z) the Monte Carlo error of log Z (0 for an exact log Z).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "logz/core/estimate.hpp"

namespace logz {

struct TestLogLikelihood {
  double mean = kNaN;             // L, nats per example
  double std_error = kNaN;        // sqrt(data_std_error^2 + log_z_std_error^2)
  double data_std_error = kNaN;   // s / sqrt(n); NaN (flag "too_few_samples") for n < 2
  double log_z_std_error = kNaN;  // as given
  std::size_t num_examples = 0;
  std::vector<std::string> flags;
};

// free_energies: F(v_r) of each example; log_z and its standard error (0 when
// exact; NaN propagates into std_error). Throws InvalidArgument on an empty span,
// a non-finite free energy (naming its index), a non-finite log_z or a negative SE.
TestLogLikelihood test_log_likelihood(std::span<const double> free_energies, double log_z,
                                      double log_z_std_error);

}  // namespace logz
