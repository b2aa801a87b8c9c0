// The error bar of an SMC estimate of Z from one run (Lee & Whiteley 2018; for adaptive
// tempering and resampling, Du & Guyader 2021): with E_i the Eve index of particle i (its
// ancestor among the N starting particles), S_e = sum_{i: E_i = e} W_i the final weight of
// Eve e's descendants and m the number of resampling events,
//     V = 1 - (N / (N - 1))^(m + 1) (1 - sum_e S_e^2)
// estimates Var(Z_hat) / Z^2 without bias under multinomial resampling (with no resampling
// it is the importance-sampling estimate (N sum W_i^2 - 1) / (N - 1)). Once every particle
// descends from one Eve the genealogy holds no information about the variance (V = 1 whatever
// it is): the estimate is then unavailable, never a number.
#pragma once

#include <cstddef>
#include <span>

namespace logz {

struct GenealogyVariance {
  double relative_variance;  // V above; NaN when the genealogy has collapsed
  std::size_t num_eves;      // distinct Eve indices among the particles of positive weight
  bool collapsed() const { return num_eves < 2; }
};

// V for normalised log weights and Eve indices in [0, N); N >= 2 (InvalidArgument otherwise).
GenealogyVariance genealogy_variance(std::span<const double> log_weights,
                                     std::span<const std::size_t> eves,
                                     std::size_t num_resamplings);

// The standard error of log Z_hat from V, log-normal: sqrt(log(1 + V)) (sqrt(V) for small V);
// NaN for V <= 0 or NaN (no error bar to give: never 0).
double log_z_std_error(double relative_variance);

}  // namespace logz
