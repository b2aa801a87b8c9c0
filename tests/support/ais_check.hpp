// log Z from forward AIS on a path with an exact answer, and the check of the statistical tests
// (|estimate - exact| <= 5 SE + SE^2; the bias of the log of an unbiased Z estimate is about
// -SE^2 / 2), with SE below a target so that the check has power.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/paths/schedule.hpp"

namespace logz::test_support {

// The z of the statistical tests' tolerances.
inline constexpr double kZ = 5.0;

struct AisCheck {
  double estimate, std_error;
};

// One thread, chunks of 50 particles; `finals` (optional) receives the particles at t = 1.
template <class Path, class Kernel>
AisCheck run_ais(const Path& path, const Kernel& kernel, std::size_t num_steps,
                 std::size_t num_paths, std::uint64_t seed,
                 std::vector<typename Path::Batch>* finals = nullptr) {
  AnnealOptions o;
  o.num_paths = num_paths;
  o.seed = seed;
  o.threads = 1;
  o.chunk_size = 50;
  const Works w = anneal_forward(path, kernel, sigmoid_schedule(num_steps), o, finals);
  const Estimate e = ais(w.works);
  return {e.log_z + path.base_log_z(), e.std_error};
}

inline void expect_agrees(const AisCheck& c, double exact, double se_target,
                          const std::string& what) {
  ASSERT_TRUE(std::isfinite(c.std_error)) << what;
  EXPECT_LT(c.std_error, se_target) << what;
  EXPECT_NEAR(c.estimate, exact, kZ * c.std_error + c.std_error * c.std_error)
      << what << ": SE " << c.std_error;
  std::printf("%-34s estimate %.4f  exact %.4f  SE %.4f\n", what.c_str(), c.estimate, exact,
              c.std_error);
}

}  // namespace logz::test_support
