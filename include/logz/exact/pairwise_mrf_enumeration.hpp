// Exact answers for the pairwise binary MRF (models/pairwise_mrf.hpp) by enumeration: a
// Gray-code walk over all 2^n states, each step flipping one unit and updating the energy from
// W and b alone (no fields of a batch), so that it checks the model's energy rather than
// repeating it. log Z(beta) = log sum_x exp(-beta E(x)), E(x) = -(1/2) x^T W x - b^T x.
// State s in 0..2^n-1 stands for x_i = bit i of s. Cost ~n 2^n: 20 units in about 0.1 s.
#pragma once

#include <vector>

#include "logz/models/pairwise_mrf.hpp"
#include "logz/random/philox.hpp"

namespace logz::exact {

// Largest n of the log Z (2^30 steps) and of the log weights and exact draws (2^20 doubles).
inline constexpr int kPairwiseMrfEnumerationMaxUnits = 30;
inline constexpr int kPairwiseMrfExactSamplerMaxUnits = 20;

// log Z(beta); n <= kPairwiseMrfEnumerationMaxUnits.
double pairwise_mrf_log_z_enumeration(const PairwiseMrfParameters& m, double beta);

// The log weight -beta E(x) of every state, indexed by s; n <= kPairwiseMrfExactSamplerMaxUnits.
std::vector<double> pairwise_mrf_log_weights(const PairwiseMrfParameters& m, double beta);

// Exact draws from exp(-beta E) / Z of a path's target (path.at(1)): the state whose cumulative
// probability, states in order of s, passes a uniform; the batch's fields and energies are set
// by path.refresh. Holds the 2^n cumulative probabilities (n <=
// kPairwiseMrfExactSamplerMaxUnits) and a reference to the path.
class PairwiseMrfExactSampler {
 public:
  explicit PairwiseMrfExactSampler(const PairwiseMrfPath& path);
  // Particle p draws one uniform from random.stream(p).
  void sample(PairwiseMrfBatch& batch, const BatchRandom& random) const;

 private:
  const PairwiseMrfPath& path_;
  std::vector<double> cdf_;
};

}  // namespace logz::exact
