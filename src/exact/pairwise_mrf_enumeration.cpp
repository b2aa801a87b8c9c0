#include "logz/exact/pairwise_mrf_enumeration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "logz/core/error.hpp"

namespace logz::exact {

namespace {

void check_units(const PairwiseMrfParameters& m, int max_units, const char* function) {
  if (m.size() > max_units)
    fail_argument(
        function, "m",
        "at most " + std::to_string(max_units) + " units, got " + std::to_string(m.size()));
}

// The Gray-code walk: log Z into log_z and, with keep_all, every state's log weight.
std::vector<double> enumerate_log_weights(const PairwiseMrfParameters& m, double beta,
                                          bool keep_all, double& log_z) {
  const int n = m.size();
  const std::uint64_t states = std::uint64_t{1} << n;
  std::vector<double> all;
  if (keep_all) all.resize(states);
  std::vector<std::uint8_t> x(static_cast<std::size_t>(n), 0);
  double e = 0.0;               // E(0) = 0
  double top = 0.0, sum = 0.0;  // log Z = top + log(sum), rescaled whenever a larger term comes
  for (std::uint64_t k = 0; k < states; ++k) {
    const std::uint64_t gray = k ^ (k >> 1);
    if (k > 0) {
      const int i = __builtin_ctzll(k);  // the unit that flips between gray(k - 1) and gray(k)
      double coupling = m.b(i);
      for (int j = 0; j < n; ++j) coupling += m.W(i, j) * x[static_cast<std::size_t>(j)];
      const double d = x[static_cast<std::size_t>(i)] ? -1.0 : 1.0;
      e -= d * coupling;
      x[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(i)] ? 0 : 1;
    }
    const double lw = -beta * e;
    if (k == 0 || lw > top) {
      sum = (k == 0 ? 0.0 : sum * std::exp(top - lw)) + 1.0;
      top = lw;
    } else {
      sum += std::exp(lw - top);
    }
    if (keep_all) all[gray] = lw;
  }
  log_z = top + std::log(sum);
  return all;
}

}  // namespace

double pairwise_mrf_log_z_enumeration(const PairwiseMrfParameters& m, double beta) {
  check_units(m, kPairwiseMrfEnumerationMaxUnits, "logz::exact::pairwise_mrf_log_z_enumeration");
  double log_z = 0.0;
  enumerate_log_weights(m, beta, false, log_z);
  return log_z;
}

std::vector<double> pairwise_mrf_log_weights(const PairwiseMrfParameters& m, double beta) {
  check_units(m, kPairwiseMrfExactSamplerMaxUnits, "logz::exact::pairwise_mrf_log_weights");
  double log_z = 0.0;
  return enumerate_log_weights(m, beta, true, log_z);
}

PairwiseMrfExactSampler::PairwiseMrfExactSampler(const PairwiseMrfPath& path) : path_(path) {
  check_units(path.parameters(), kPairwiseMrfExactSamplerMaxUnits,
              "logz::exact::PairwiseMrfExactSampler");
  double log_z = 0.0;
  const std::vector<double> lw = enumerate_log_weights(path.parameters(), path.beta(), true, log_z);
  cdf_.resize(lw.size());
  double c = 0.0;
  for (std::size_t s = 0; s < lw.size(); ++s) cdf_[s] = c += std::exp(lw[s] - log_z);
}

void PairwiseMrfExactSampler::sample(PairwiseMrfBatch& batch, const BatchRandom& random) const {
  for (std::size_t p = 0; p < batch.num_particles(); ++p) {
    RandomStream rng = random.stream(p);
    const double u = rng.uniform() * cdf_.back();
    const auto s =
        static_cast<std::uint64_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
    for (int i = 0; i < path_.parameters().size(); ++i) batch.x(p)[i] = (s >> i) & 1u;
    path_.refresh(batch, p);
  }
}

}  // namespace logz::exact
