// The quadrature and summary of thermodynamic integration from the ground
// state on synthetic chain means with a known integral.
#include "logz/equilibrium/ground_state_integration.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "logz/core/error.hpp"
#include "logz/services/run.hpp"

namespace logz {
namespace {

TEST(GroundStateIntegrationQuadrature, SimpsonIsExactForCubics) {
  std::vector<double> y;
  const double h = 0.25;
  for (int i = 0; i <= 8; ++i) {
    const double x = i * h;
    y.push_back(x * x * x - 2 * x + 1);
  }
  EXPECT_NEAR(simpson_rule(y, h), 4.0 - 4.0 + 2.0, 1e-12);  // integral_0^2 of x^3 - 2x + 1
  EXPECT_NEAR(trapezoid_rule(std::vector<double>{1, 3}, 2.0), 4.0, 1e-15);
  EXPECT_THROW(simpson_rule(std::vector<double>{1, 2}, 1.0), InvalidArgument);
}

TEST(GroundStateIntegrationQuadrature, SummaryOfExponentialExcess) {
  // Excess energy 5 exp(-4 (b - 1)) + chain noise of mean zero; E_0 = -100, g_0 = 3.
  const auto betas = ground_state_grid(1.0, 4.0, 64);
  std::vector<std::vector<double>> chains;
  for (int c = 0; c < 4; ++c) {
    std::vector<double> m;
    for (double b : betas)
      m.push_back(-100 + 5 * std::exp(-4 * (b - 1)) + (c % 2 == 0 ? 0.01 : -0.01));
    chains.push_back(m);
  }
  const auto r = summarise_ground_state_integration(betas, chains, -100.0, std::log(3.0), 2.0);
  const double integral = 5.0 / 4.0 * (1 - std::exp(-12.0)), tail = 5.0 / 4.0 * std::exp(-12.0);
  EXPECT_NEAR(r.integral, integral, 1e-5);
  EXPECT_NEAR(r.tail, tail, 1e-7);
  EXPECT_LT(r.quadrature_error, 1e-4);
  EXPECT_NEAR(r.log_z, std::log(3.0) + 100.0 + integral + tail, 1e-5);
  EXPECT_NEAR(r.estimate.log_z, r.log_z - 2.0, 1e-12);
  // Chain integrals differ by +-0.01 * 3: the between-chain SE is sd / sqrt(4).
  EXPECT_NEAR(r.integral_std_error, 0.03 * std::sqrt(4.0 / 3.0) / 2.0, 1e-9);
  EXPECT_TRUE(r.estimate.diagnostics.flags.empty());
}

TEST(GroundStateIntegrationQuadrature, BadGridsAreRejected) {
  EXPECT_THROW(ground_state_grid(1.0, 2.0, 6), InvalidArgument);
  EXPECT_THROW(ground_state_grid(1.0, 0.5, 8), InvalidArgument);
  Config config = Config::from_toml(R"(
[model]
type = "potts"
size = 4
[run]
method = "ground_state_integration"
[integration]
intervals = 30
)",
                                    "bad.toml");
  try {
    run_experiment(config);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("bad.toml: [integration] intervals: expected a multiple of 4"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace logz
