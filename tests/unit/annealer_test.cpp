// The annealing driver: reproducible for any thread count, works accumulated
// with the documented signs, non-finite energies reported with their place.
#include "logz/anneal/annealer.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"

namespace {

logz::Works forward_with_threads(int threads) {
  const logz::IsingModel model(6, 6, 1.0, 0.6);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 20);
  logz::AnnealOptions o;
  o.num_paths = 37;  // not a multiple of the chunk size
  o.seed = 99;
  o.threads = threads;
  o.chunk_size = 4;
  return logz::anneal_forward(model, kernel, logz::linear_schedule(50), o);
}

TEST(Annealer, BitwiseIdenticalForAnyThreadCount) {
  const auto one = forward_with_threads(1);
  for (int t : {2, 3, 8}) {
    const auto other = forward_with_threads(t);
    EXPECT_EQ(one.works, other.works) << t << " threads";
    ASSERT_EQ(one.mean_energy.size(), other.mean_energy.size());
    for (std::size_t k = 0; k + 1 < one.mean_energy.size(); ++k)
      EXPECT_EQ(one.mean_energy[k], other.mean_energy[k]);
    for (std::size_t k = 1; k + 1 < one.acceptance.size(); ++k)
      EXPECT_EQ(one.acceptance[k], other.acceptance[k]);
  }
}

TEST(Annealer, WorkOfAQuenchIsTheTargetEnergy) {
  // K = 1: W_f = beta * E(x_0) for a base sample x_0, with no kernel step at all.
  const logz::IsingModel model(4, 4, 1.0, 0.7);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 10);
  logz::AnnealOptions o;
  o.num_paths = 5;
  o.seed = 3;
  o.threads = 1;
  const auto w = logz::anneal_forward(model, kernel, logz::linear_schedule(1), o);
  auto batch = model.make_batch(5);
  model.sample_base(batch, logz::BatchRandom{3, logz::Purpose::base_sample, 0, 0});
  for (std::size_t p = 0; p < 5; ++p) EXPECT_DOUBLE_EQ(w.works[p], 0.7 * model.energy(batch.bond_sum(p)));
  EXPECT_TRUE(std::isnan(w.acceptance[0]));
  EXPECT_TRUE(std::isnan(w.acceptance[1]));
}

TEST(Annealer, ReverseWorkFromAGroundStateQuench) {
  // K = 1 in reverse from the all-up state: W_r = U_0 - U_1 = -beta E(ground) = beta J 2N.
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 10);
  logz::AnnealOptions o;
  o.num_paths = 3;
  auto start = [&](logz::SpinBatch& b, const logz::ChunkStreams& streams) {
    model.ground_state(b, streams.random(0));
  };
  const auto w = logz::anneal_reverse(model, kernel, logz::linear_schedule(1), start, o);
  for (double x : w.works) EXPECT_DOUBLE_EQ(x, 0.5 * 32.0);
  EXPECT_DOUBLE_EQ(w.mean_energy[1], -32.0);
  EXPECT_TRUE(std::isnan(w.mean_energy[0]));
}

// A path whose energy is NaN for one particle, to check the error names it.
struct NanPath : logz::IsingModel {
  NanPath() : logz::IsingModel(2, 2, 1.0, 1.0) {}
  void work_increment(double, double, const Batch& b, std::span<double> out) const {
    for (std::size_t p = 0; p < b.num_particles(); ++p) out[p] = p == 1 ? std::nan("") : 0.0;
  }
};

TEST(Annealer, NonFiniteWorkIsReportedWithItsPlace) {
  const NanPath path;
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 1);
  logz::AnnealOptions o;
  o.num_paths = 4;
  o.threads = 2;
  o.chunk_size = 2;
  try {
    logz::anneal_forward(path, kernel, logz::linear_schedule(3), o);
    FAIL() << "expected a NumericalError";
  } catch (const logz::NumericalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("path 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("temperature index 1"), std::string::npos) << msg;
  }
}

}  // namespace
