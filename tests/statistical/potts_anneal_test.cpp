// End-to-end known answers for the Potts model and the heat-bath kernels:
// forward and reverse annealing of the paper's ten-state Potts model (J = 2,
// beta 0 -> 1; Habeck 2017, section 6.2) on a 3 x 4 torus, AIS, RAISE and BAR
// against the transfer-matrix log Z, with Metropolis and heat-bath kernels; and
// the path around the transition with a field (heat bath); the Ising heat bath on a 4 x 4 torus
// against Kaufman's formula.
//
// Tolerance: |estimate - exact| <= 5 SE + bias, where SE is the estimator's own
// standard error and the bias allowance SE^2 is twice the leading-order bias
// of the log of a mean (var / (2 M mean^2) = SE^2 / 2). z = 5 keeps the
// false-failure rate per assertion below 1e-6. The SE must also be finite and
// below a target fixed in advance, so a uselessly wide error bar cannot pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/exact/potts_transfer_matrix.hpp"
#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/multispin_potts_metropolis.hpp"
#include "logz/kernels/potts_metropolis.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/kernels/wolff.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_potts.hpp"
#include "logz/models/packed_potts_field_path.hpp"
#include "logz/models/potts.hpp"
#include "logz/models/potts_field_path.hpp"

namespace {

struct Budget {
  std::size_t num_steps, steps_per_temperature, num_paths, equilibration_steps;
  double se_target;  // every estimator's SE must be below this (nats), fixed in advance
};

// Anneals both ways, checks AIS, RAISE and BAR against `exact` (the evidence
// log Z - log Z_0), the sandwich bounds, and the reverse run's starting energy.
template <class Model, class Kernel>
void check_annealing(const std::string& label, const Model& model, const Kernel& kernel,
                     const Budget& b, double exact, double exact_energy, std::uint64_t seed) {
  const auto schedule = logz::linear_schedule(b.num_steps);
  logz::AnnealOptions options;
  options.num_paths = b.num_paths;
  options.seed = seed;
  options.threads = 2;
  options.chunk_size = 64;  // the multi-spin kernel's groups; the other kernels do not mind
  const auto forward = logz::anneal_forward(model, kernel, schedule, options);
  // The paper's reverse start: a ground state equilibrated at the target.
  const auto equilibrate = kernel.with_steps(b.equilibration_steps);
  auto start = [&](typename Model::Batch& batch, const logz::ChunkStreams& streams) {
    model.ground_state(batch, streams.random(0));
    equilibrate.step(model.at(1.0), batch, streams.random(1));
    if constexpr (requires { model.relabel_to_colour0(batch, streams.random(2)); })
      model.relabel_to_colour0(batch,
                               streams.random(2));  // a path that restricts the model at t = 1
  };
  const auto reverse = logz::anneal_reverse(model, kernel, schedule, start, options);

  for (const auto& e : {logz::ais(forward.works), logz::raise(reverse.works),
                        logz::bar(forward.works, reverse.works)}) {
    SCOPED_TRACE(label + " " + e.method);
    std::printf("%-28s %-5s %9.4f +- %.4f (exact %.4f, z = %+.2f)\n", label.c_str(),
                e.method.c_str(), e.log_z, e.std_error, exact, (e.log_z - exact) / e.std_error);
    ASSERT_TRUE(std::isfinite(e.std_error));
    EXPECT_LT(e.std_error, b.se_target);
    EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + e.std_error * e.std_error)
        << "estimate " << e.log_z << " exact " << exact << " SE " << e.std_error;
  }
  // Sandwich: the bounds hold in expectation; with their own SEs, allow 5 SE.
  const auto lower = logz::lower_bound(forward.works), upper = logz::upper_bound(reverse.works);
  EXPECT_LE(lower.log_z, exact + 5 * lower.std_error);
  EXPECT_GE(upper.log_z, exact - 5 * upper.std_error);
  EXPECT_LE(lower.log_z, upper.log_z);
  // The equilibrated reverse start has the target's mean energy: the energy's
  // sd is at most J * (number of bonds), so 5 sd / sqrt(M) bounds the error.
  const double sd_bound = std::abs(model.coupling()) * 2.0 * model.num_sites();
  EXPECT_NEAR(reverse.mean_energy.back(), exact_energy, 5 * sd_bound / std::sqrt(b.num_paths));
}

// The paper's Potts model (q = 10, J = 2, beta = 1) on the 3 x 4 torus. Its
// first-order transition (beta_c J = log(1 + sqrt 10)) is at beta ~ 0.71.
constexpr int kRows = 3, kCols = 4, kColours = 10;
constexpr double kCoupling = 2.0, kBeta = 1.0;

double potts_exact_evidence() {
  return logz::exact::potts_log_z_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling) -
         kRows * kCols * std::log(static_cast<double>(kColours));
}

TEST(PottsAnnealing, Torus3x4MetropolisRandomSite) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  const logz::PottsMetropolis kernel(logz::SiteOrder::random, 60);
  check_annealing(
      "potts 3x4 metropolis random", model, kernel, {400, 60, 400, 6000, 0.1},
      potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      201);
}

TEST(PottsAnnealing, Torus3x4HeatBathCheckerboard) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  const logz::HeatBath kernel(logz::SiteOrder::checkerboard, 2);
  check_annealing(
      "potts 3x4 heat bath sweeps", model, kernel, {200, 2, 400, 200, 0.1}, potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      202);
}

TEST(PottsAnnealing, Torus3x4HeatBathRandomSite) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  const logz::HeatBath kernel(logz::SiteOrder::random, 24);
  check_annealing(
      "potts 3x4 heat bath random", model, kernel, {200, 24, 400, 2400, 0.1},
      potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      203);
}

TEST(PottsAnnealing, Torus3x4MultiSpin) {
  const logz::PackedPottsModel model(logz::PottsModel(kRows, kCols, kColours, kCoupling, kBeta));
  const logz::MultiSpinPottsMetropolis kernel(logz::SiteOrder::checkerboard, 5);
  check_annealing(
      "potts 3x4 multispin", model, kernel, {400, 5, 400, 500, 0.1}, potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      204);
}

TEST(PottsAnnealing, Torus3x4SwendsenWang) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  check_annealing(
      "potts 3x4 swendsen-wang", model, logz::SwendsenWang(3), {400, 3, 400, 100, 0.1},
      potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      206);
}

TEST(PottsAnnealing, Torus3x4Wolff) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  check_annealing(
      "potts 3x4 wolff", model, logz::Wolff(10), {400, 10, 400, 200, 0.1}, potts_exact_evidence(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      207);
}

// Around the transition instead of through it: a field of 6 on colour 0, switched off at beta;
// the evidence is log(Z / q) - log Z_0 with the path's base (models/potts_field_path.hpp).
TEST(PottsAnnealing, Torus3x4AroundTheTransitionWithAField) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  const logz::PottsFieldPath path(model, 6.0);
  check_annealing(
      "potts 3x4 field path, heat bath", path, logz::HeatBath(logz::SiteOrder::checkerboard, 2),
      {200, 2, 400, 200, 0.1},
      logz::exact::potts_log_z_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling) -
          path.base_log_z(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      208);
}

// The same with the multi-spin kernel (its proposal through colour 0), in chunks of 64.
TEST(PottsAnnealing, Torus3x4AroundTheTransitionWithAFieldMultiSpin) {
  const logz::PottsModel model(kRows, kCols, kColours, kCoupling, kBeta);
  const logz::PackedPottsFieldPath path(model, 6.0);
  check_annealing(
      "potts 3x4 field path, multi-spin", path,
      logz::MultiSpinPottsMetropolis(logz::SiteOrder::checkerboard, 2), {200, 2, 512, 200, 0.1},
      logz::exact::potts_log_z_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling) -
          path.base_log_z(),
      logz::exact::potts_mean_energy_transfer_matrix(kRows, kCols, kColours, kBeta, kCoupling),
      209);
}

TEST(IsingAnnealing, Torus4x4HeatBath) {
  const logz::IsingModel model(4, 4, 1.0, 1.0);
  const double exact = logz::exact::ising_log_z_kaufman(4, 4, 1.0) - model.base_log_z();
  const double energy = logz::exact::ising_mean_energy_kaufman(4, 4, 1.0);
  check_annealing("ising 4x4 heat bath random", model, logz::HeatBath(logz::SiteOrder::random, 32),
                  {200, 32, 400, 3200, 0.05}, exact, energy, 204);
  check_annealing("ising 4x4 heat bath sweeps", model,
                  logz::HeatBath(logz::SiteOrder::checkerboard, 2), {200, 2, 400, 200, 0.05}, exact,
                  energy, 205);
}

}  // namespace
