// The coverage of each method's 95% intervals (+- 1.96 std_error) over a run's repetitions
// against its exact reference, printed with the RMSE and the mean error bar: what the
// calibration tests of `[run] repetitions` check.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "logz/services/results.hpp"

namespace logz::test_support {

inline std::map<std::string, double> repetition_coverage(const RunResult& r, std::size_t runs) {
  std::map<std::string, double> out;
  EXPECT_TRUE(r.reference.has_value());
  EXPECT_TRUE(r.repetitions.has_value());
  if (!r.reference || !r.repetitions) return out;
  const double truth = r.reference->log_z - r.base_log_z;
  for (const auto& m : r.repetitions->methods) {
    EXPECT_EQ(m.evidence.size(), runs) << m.method;
    int covered = 0;
    for (std::size_t i = 0; i < m.evidence.size(); ++i)
      covered += std::abs(m.evidence[i] - truth) <= 1.96 * m.std_error[i];  // NaN: a miss
    out[m.method] = static_cast<double>(covered) / static_cast<double>(runs);
    std::printf("%-14s coverage %.3f  rmse %.4f  mean std error %.4f\n", m.method.c_str(),
                out[m.method], m.rmse, m.mean_std_error);
  }
  return out;
}

}  // namespace logz::test_support
