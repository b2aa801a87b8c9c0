// The conditional distribution of the temperature index given x in simulated
// tempering (Carlson et al. 2016, eq. 7):
//   log q(t_k | x) = log r_k - log Zhat_k - (U_k(x) - U_1(x)) - log normaliser,
// computed from the energies u_k = U_k(x) - U_1(x) relative to the base.
#pragma once

#include <cstddef>
#include <span>

namespace logz {

// Writes log q(t_k | x) for all k into log_q; returns nothing. All spans have size K.
void level_log_probabilities(std::span<const double> u, std::span<const double> log_prior,
                             std::span<const double> log_z_hat, std::span<double> log_q);

// Draws k from probabilities exp(log_q) by inversion with a uniform u in (0, 1).
std::size_t draw_level(std::span<const double> log_q, double uniform);

}  // namespace logz
