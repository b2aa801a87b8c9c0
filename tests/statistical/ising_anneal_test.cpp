// End-to-end known answers: forward and reverse annealing of small Ising tori,
// AIS, RAISE and BAR against Kaufman's exact log Z.
//
// Tolerance: |estimate - exact| <= 5 SE + bias, where SE is the estimator's own
// standard error and the bias allowance SE^2 is twice the leading-order bias
// of the log of a mean (var / (2 M mean^2) = SE^2 / 2). z = 5 keeps the
// false-failure rate per assertion below 1e-6. The SE must also be finite and
// below a target fixed in advance, so a uselessly wide error bar cannot pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/estimators/bounds.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/multispin_metropolis.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/kernels/swendsen_wang.hpp"
#include "logz/kernels/wolff.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/models/packed_ising_field_path.hpp"

namespace {

struct IsingCase;
template <class Model, class Kernel>
void check_ising_case(const Model& model, const Kernel& kernel, const IsingCase& c,
                      std::uint64_t seed);

struct IsingCase {
  int side;
  double beta;
  std::size_t num_steps, steps_per_temperature, num_paths;
  logz::SiteOrder order;
  double se_target;  // every estimator's SE must be below this (nats)
  std::size_t chunk_size = 8;
};

void check_ising_case(const IsingCase& c, std::uint64_t seed) {
  const logz::IsingModel model(c.side, c.side, 1.0, c.beta);
  check_ising_case(model, logz::SpinFlipMetropolis(c.order, c.steps_per_temperature), c, seed);
}

// The multi-spin kernel: chunks of 64 paths.
void check_multispin_case(IsingCase c, std::uint64_t seed) {
  c.chunk_size = 64;
  const logz::PackedIsingModel model(logz::IsingModel(c.side, c.side, 1.0, c.beta));
  check_ising_case(model, logz::MultiSpinMetropolis(c.order, c.steps_per_temperature), c, seed);
}

// Model: IsingModel or PackedIsingModel, Kernel: a kernel for its batches.
template <class Model, class Kernel>
void check_ising_case(const Model& model, const Kernel& kernel, const IsingCase& c,
                      std::uint64_t seed) {
  const auto schedule = logz::linear_schedule(c.num_steps);
  logz::AnnealOptions options;
  options.num_paths = c.num_paths;
  options.seed = seed;
  options.threads = 2;
  options.chunk_size = c.chunk_size;
  const auto forward = logz::anneal_forward(model, kernel, schedule, options);
  const std::size_t equilibration =
      c.order == logz::SiteOrder::random ? 200 * static_cast<std::size_t>(model.num_sites()) : 200;
  const auto equilibrate = kernel.with_steps(equilibration);
  auto start = [&](typename Model::Batch& b, const logz::ChunkStreams& streams) {
    model.ground_state(b, streams.random(0));
    equilibrate.step(model.at(1.0), b, streams.random(1));
  };
  const auto reverse = logz::anneal_reverse(model, kernel, schedule, start, options);

  const double exact =
      logz::exact::ising_log_z_kaufman(c.side, c.side, c.beta) - model.base_log_z();
  for (const auto& e : {logz::ais(forward.works), logz::raise(reverse.works),
                        logz::bar(forward.works, reverse.works)}) {
    SCOPED_TRACE(e.method);
    std::printf("%dx%d beta %.4f %-5s %.4f +- %.4f (exact %.4f)\n", c.side, c.side, c.beta,
                e.method.c_str(), e.log_z, e.std_error, exact);
    ASSERT_TRUE(std::isfinite(e.std_error));
    EXPECT_LT(e.std_error, c.se_target);
    EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + e.std_error * e.std_error)
        << "estimate " << e.log_z << " exact " << exact << " SE " << e.std_error;
  }
  // Sandwich: the bounds hold in expectation; with their own SEs, allow 5 SE.
  const auto lower = logz::lower_bound(forward.works), upper = logz::upper_bound(reverse.works);
  EXPECT_LE(lower.log_z, exact + 5 * lower.std_error);
  EXPECT_GE(upper.log_z, exact - 5 * upper.std_error);
  EXPECT_LE(lower.log_z, upper.log_z);
  // Traces: forward starts at the base's mean energy 0, reverse at the target's.
  EXPECT_NEAR(forward.mean_energy[0], 0.0, 5 * std::sqrt(2.0 * model.num_sites() / c.num_paths));
  const double e_exact = logz::exact::ising_mean_energy_kaufman(c.side, c.side, c.beta);
  EXPECT_NEAR(reverse.mean_energy.back(), e_exact, 0.05 * std::abs(e_exact) + 1.0);
}

TEST(IsingAnnealing, Torus4x4RandomSite) {
  check_ising_case({4, 1.0, 200, 32, 400, logz::SiteOrder::random, 0.05}, 101);
}

TEST(IsingAnnealing, Torus4x4Checkerboard) {
  check_ising_case({4, 0.5, 100, 1, 400, logz::SiteOrder::checkerboard, 0.05}, 102);
}

TEST(IsingAnnealing, Torus8x8AtCriticalTemperature) {
  check_ising_case({8, 0.4406868, 300, 64, 400, logz::SiteOrder::random, 0.1}, 103);
}

TEST(IsingAnnealing, Torus8x8ColdCheckerboard) {
  check_ising_case({8, 1.0, 300, 2, 400, logz::SiteOrder::checkerboard, 0.1}, 104);
}

TEST(IsingAnnealing, Torus4x4MultiSpin) {
  check_multispin_case({4, 0.5, 100, 1, 400, logz::SiteOrder::checkerboard, 0.05}, 105);
}

TEST(IsingAnnealing, Torus8x8AtCriticalTemperatureMultiSpin) {
  check_multispin_case({8, 0.4406868, 300, 2, 400, logz::SiteOrder::checkerboard, 0.1}, 106);
}

TEST(IsingAnnealing, Torus8x8ColdMultiSpin) {
  check_multispin_case({8, 1.0, 300, 2, 400, logz::SiteOrder::checkerboard, 0.1}, 107);
}

// Around the transition (models/packed_ising_field_path.hpp), multi-spin: from a field of h0 on
// the +1 spins, reverse runs from ground states equilibrated at beta and relabelled (1600
// temperatures: with 400 the linear schedule's errors spread 1.6x its SE at 16 x 16); the
// estimates include the restriction to the +1 spins' share (log 2 in the base).
void check_field_path_case(int rows, int cols, double beta, double h0, std::uint64_t seed) {
  const logz::PackedIsingFieldPath path(logz::IsingModel(rows, cols, 1.0, beta), h0);
  const logz::MultiSpinMetropolis kernel(logz::SiteOrder::checkerboard, 1);
  const auto schedule = logz::linear_schedule(1600);
  logz::AnnealOptions options;
  options.num_paths = 128;
  options.seed = seed;
  options.threads = 2;
  options.chunk_size = 64;
  const auto forward = logz::anneal_forward(path, kernel, schedule, options);
  const auto equilibrate = kernel.with_steps(200);
  auto start = [&](logz::PackedFieldSpinBatch& b, const logz::ChunkStreams& streams) {
    path.ground_state(b, streams.random(0));
    equilibrate.step(path.at(1.0), b, streams.random(1));
    path.relabel_to_colour0(b, streams.random(2));
  };
  const auto reverse = logz::anneal_reverse(path, kernel, schedule, start, options);
  const double exact = logz::exact::ising_log_z_kaufman(rows, cols, beta) - path.base_log_z();
  for (const auto& e : {logz::ais(forward.works), logz::raise(reverse.works),
                        logz::bar(forward.works, reverse.works)}) {
    SCOPED_TRACE(e.method);
    std::printf("%dx%d field path, beta %.2f %-5s %.4f +- %.4f (exact %.4f)\n", rows, cols, beta,
                e.method.c_str(), e.log_z, e.std_error, exact);
    ASSERT_TRUE(std::isfinite(e.std_error));
    EXPECT_LT(e.std_error, 0.05);
    EXPECT_LE(std::abs(e.log_z - exact), 5 * e.std_error + e.std_error * e.std_error)
        << "estimate " << e.log_z << " exact " << exact << " SE " << e.std_error;
  }
}

TEST(IsingAnnealing, Torus3x4AroundTheTransitionMultiSpin) {
  check_field_path_case(3, 4, 0.6, 3.0, 111);
}

TEST(IsingAnnealing, Torus16x16AroundTheTransitionMultiSpin) {
  check_field_path_case(16, 16, 1.0, 10.0, 112);
}

// Cluster moves through the critical point of a 16 x 16 torus and into the cold phase of an
// 8 x 8 one (the order only says that a step is a sweep).
TEST(IsingAnnealing, Torus16x16AtCriticalTemperatureSwendsenWang) {
  const logz::IsingModel model(16, 16, 1.0, 0.4406868);
  check_ising_case(model, logz::SwendsenWang(1),
                   {16, 0.4406868, 300, 1, 400, logz::SiteOrder::checkerboard, 0.1}, 108);
}

// Wolff: 60 clusters per temperature (tiny ones at high temperature, most of the lattice in the
// cold phase), and 200 for each reverse start.
TEST(IsingAnnealing, Torus16x16AtCriticalTemperatureWolff) {
  const logz::IsingModel model(16, 16, 1.0, 0.4406868);
  check_ising_case(model, logz::Wolff(60),
                   {16, 0.4406868, 300, 60, 400, logz::SiteOrder::checkerboard, 0.1}, 110);
}

TEST(IsingAnnealing, Torus8x8ColdSwendsenWang) {
  const logz::IsingModel model(8, 8, 1.0, 1.0);
  check_ising_case(model, logz::SwendsenWang(2),
                   {8, 1.0, 300, 2, 400, logz::SiteOrder::checkerboard, 0.1}, 109);
}

}  // namespace
