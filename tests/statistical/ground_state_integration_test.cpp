// Thermodynamic integration from the ground state against exact answers:
// Kaufman's formula (Ising, ferro- and antiferromagnetic) and the transfer
// matrix (10-state Potts on a 4 x 4 torus). Tolerance: 5 between-chain standard
// errors plus 5 Richardson quadrature errors plus the extrapolated tail (the
// stated bias allowance of the quadrature and of cutting the integral).
#include <gtest/gtest.h>

#include <cmath>

#include "logz/services/run.hpp"

namespace logz {
namespace {

void expect_matches_exact(const std::string& toml) {
  Config config = Config::from_toml(toml, "test.toml");
  const RunResult r = run_experiment(config);
  ASSERT_TRUE(r.reference);
  ASSERT_EQ(r.estimates.size(), 1u);
  const Estimate& e = r.estimates.front();
  EXPECT_EQ(e.method, "ground_state_ti");
  double quadrature = NAN, tail = NAN;
  for (const auto& [k, v] : e.diagnostics.values) {
    if (k == "quadrature_error") quadrature = v;
    if (k == "tail") tail = v;
  }
  ASSERT_TRUE(std::isfinite(e.std_error) && e.std_error > 0);
  const double exact = r.reference->log_z - r.base_log_z;
  const double tolerance = 5 * e.std_error + 5 * quadrature + tail;
  EXPECT_NEAR(e.log_z, exact, tolerance) << "SE " << e.std_error << ", quadrature " << quadrature;
  // The error bar is meaningful: small against the answer's scale but not zero.
  EXPECT_LT(e.std_error, 0.05);
}

TEST(GroundStateIntegration, IsingFerromagnetMatchesKaufman) {
  expect_matches_exact(R"(
[model]
type = "ising"
size = 16
beta = 0.6
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 1
[run]
method = "ground_state_integration"
seed = 11
threads = 2
[integration]
num_chains = 32
)");
}

TEST(GroundStateIntegration, IsingAntiferromagnetMatchesKaufman) {
  expect_matches_exact(R"(
[model]
type = "ising"
rows = 8
cols = 12
coupling = -1.0
beta = 0.8
[kernel]
type = "metropolis"
site_order = "random"
steps_per_temperature = 96
[run]
method = "ground_state_integration"
seed = 12
threads = 2
[integration]
num_chains = 32
)");
}

TEST(GroundStateIntegration, PottsMatchesTransferMatrix) {
  expect_matches_exact(R"(
[model]
type = "potts"
rows = 4
cols = 6
q = 10
coupling = 2.0
beta = 1.0
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 1
[run]
method = "ground_state_integration"
seed = 13
threads = 2
[integration]
num_chains = 64
measurement_steps = 1000
)");
}

}  // namespace
}  // namespace logz
