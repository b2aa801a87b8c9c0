// Thermodynamic integration on tempered samples (Carlson et al. 2016, section
// 3.4): d log Z_t / dt = E_{x|t}[Delta], Delta = log f(x) - log p_1(x),
// integrated over the ladder by
//   "ti_riemann"    right Riemann sum  sum_k (t_k - t_{k-1}) m_k
//   "ti_trapezoid"  trapezoid rule      sum_k (t_k - t_{k-1}) (m_{k-1} + m_k) / 2
//   "ti_corrected"  trapezoid minus Friel et al. (2014)'s variance correction
//                   sum_k (t_k - t_{k-1})^2 (v_k - v_{k-1}) / 12
//   "ti_rb"         trapezoid on the Rao-Blackwellized means of eq. 21,
//                   m_k = sum_i q(t_k|x_i) Delta_i / sum_i q(t_k|x_i)
// where m_k, v_k are the mean and variance of Delta among samples at level k
// (levels never visited are filled by linear interpolation in t). Errors:
// a delete-a-group jackknife over num_groups groups of independent chains
// (se_method "chain_jackknife", estimators/chain_jackknife.hpp); the rule's own
// discretization bias is not in it. Values are log(Z_k / Z_1).
#pragma once

#include <span>
#include <string>

#include "logz/core/enum_names.hpp"
#include "logz/estimators/rts.hpp"

namespace logz {

// The rules, each named as the estimator registry and the results name it.
LOGZ_NAMED_ENUM(TiRule, ti_riemann, ti_trapezoid, ti_corrected, ti_rb);

LadderEstimates thermodynamic_integration(const TemperingStats& stats,
                                          std::span<const double> fractions, TiRule rule,
                                          std::size_t num_groups = 20);

// The same by name: method is one of "ti_riemann", "ti_trapezoid", "ti_corrected", "ti_rb"
// (InvalidArgument otherwise).
LadderEstimates thermodynamic_integration(const TemperingStats& stats,
                                          std::span<const double> fractions,
                                          const std::string& method, std::size_t num_groups = 20);

}  // namespace logz
