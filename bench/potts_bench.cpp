// Flip attempts per nanosecond of the single-site Potts kernels (Metropolis and
// heat bath, random and checkerboard order) on the 32 x 32 torus with q = 10,
// J = 2 (the paper's model) at its transition temperature, beta J = log(1 + sqrt 10),
// beside a plain reference Metropolis loop (xorshift random numbers, no
// streams, no batches) on the same machine.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/kernels/heat_bath.hpp"
#include "logz/kernels/multispin_potts_metropolis.hpp"
#include "logz/kernels/potts_metropolis.hpp"
#include "logz/models/packed_potts.hpp"
#include "logz/models/packed_potts_field_path.hpp"
#include "logz/models/potts.hpp"

namespace {

constexpr int kSide = 32, kColours = 10;
constexpr double kCoupling = 2.0;
const double kBetaCritical = std::log(1.0 + std::sqrt(10.0)) / kCoupling;

// Calls kernel.step on range(0) particles of the model at path fraction t: attempts per ns and
// acceptance.
template <class Model, class Kernel>
void time_kernel(benchmark::State& state, const Model& model, const Kernel& kernel,
                 double t = 1.0) {
  auto batch = model.make_batch(static_cast<std::size_t>(state.range(0)));
  model.sample_base(batch, logz::BatchRandom{1, logz::Purpose::base_sample, 0, 0});
  const auto target = model.at(t);
  std::uint32_t step = 0;
  std::uint64_t attempts = 0, accepted = 0;
  for (auto _ : state) {
    const auto info =
        kernel.step(target, batch, logz::BatchRandom{1, logz::Purpose::forward_kernel, ++step, 0});
    attempts += info.attempted;
    accepted += info.accepted;
    benchmark::DoNotOptimize(batch.bond_sum(0));
  }
  state.counters["flips_per_ns"] =
      benchmark::Counter(static_cast<double>(attempts) * 1e-9, benchmark::Counter::kIsRate);
  state.counters["acceptance"] = static_cast<double>(accepted) / static_cast<double>(attempts);
}

const logz::PottsModel& paper_model() {
  static const logz::PottsModel model(kSide, kSide, kColours, kCoupling, kBetaCritical);
  return model;
}

// random: 102,400 single-site steps; checkerboard: 100 sweeps (the same number of updates).
template <class Kernel>
void run_kernel(benchmark::State& state, logz::SiteOrder order) {
  time_kernel(state, paper_model(), Kernel(order, order == logz::SiteOrder::random ? 102400 : 100));
}

void BM_PottsMetropolisRandomSite(benchmark::State& s) {
  run_kernel<logz::PottsMetropolis>(s, logz::SiteOrder::random);
}
void BM_PottsMetropolisCheckerboard(benchmark::State& s) {
  run_kernel<logz::PottsMetropolis>(s, logz::SiteOrder::checkerboard);
}
void BM_PottsHeatBathRandomSite(benchmark::State& s) {
  run_kernel<logz::HeatBath>(s, logz::SiteOrder::random);
}
void BM_PottsHeatBathCheckerboard(benchmark::State& s) {
  run_kernel<logz::HeatBath>(s, logz::SiteOrder::checkerboard);
}
BENCHMARK(BM_PottsMetropolisRandomSite)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PottsMetropolisCheckerboard)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PottsHeatBathRandomSite)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PottsHeatBathCheckerboard)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

// Multi-spin coding: checkerboard sweeps of 64 particles per bit-sliced word (range(0)
// particles), 10 sweeps per call.
void BM_PottsMultiSpin(benchmark::State& state) {
  time_kernel(state, logz::PackedPottsModel(paper_model()),
              logz::MultiSpinPottsMetropolis(logz::SiteOrder::checkerboard, 10));
}
BENCHMARK(BM_PottsMultiSpin)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

// On the field path of examples/potts-32-best.toml (beta = 1, h0 = 10), proposals through colour
// 0, at path fraction t = range(1) / 100 (beta 2t with the field on for t <= 1/2, then the field
// 10 (2 - 2t) at beta = 1).
void BM_PottsMultiSpinField(benchmark::State& state) {
  static const logz::PottsModel model(kSide, kSide, kColours, kCoupling, 1.0);
  time_kernel(state, logz::PackedPottsFieldPath(model, 10.0),
              logz::MultiSpinPottsMetropolis(logz::SiteOrder::checkerboard, 10),
              static_cast<double>(state.range(1)) / 100);
}
BENCHMARK(BM_PottsMultiSpinField)
    ->Args({1024, 25})
    ->Args({1024, 50})
    ->Args({1024, 75})
    ->Args({1024, 100})
    ->Unit(benchmark::kMillisecond);

// The reference: the simplest correct Potts Metropolis loop.
void BM_PottsReferenceLoop(benchmark::State& state) {
  std::vector<std::uint8_t> x(kSide * kSide, 0);
  std::uint64_t r = 88172645463325252ULL;
  auto next = [&r] {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    return r;
  };
  const double k = kBetaCritical * kCoupling;
  std::uint64_t threshold[9];
  for (int d = 0; d < 9; ++d) {
    const double p = std::exp(k * (d - 4));
    threshold[d] = p >= 1.0 ? (1ULL << 32) : static_cast<std::uint64_t>(p * 4294967296.0);
  }
  std::uint64_t attempts = 0;
  for (auto _ : state) {
    for (int step = 0; step < 102400; ++step) {
      const std::uint64_t a = next(), b = next();
      const int i = static_cast<int>(((a & 0xffffffffULL) * (kSide * kSide)) >> 32);
      int proposal = static_cast<int>(((a >> 32) * (kColours - 1)) >> 32);
      proposal += proposal >= x[i];
      const int row = i / kSide, col = i % kSide;
      const int nb[4] = {row * kSide + (col + 1) % kSide, row * kSide + (col + kSide - 1) % kSide,
                         ((row + 1) % kSide) * kSide + col,
                         ((row + kSide - 1) % kSide) * kSide + col};
      int d = 0;
      for (int j : nb) d += (x[j] == proposal) - (x[j] == x[i]);
      if ((b & 0xffffffffULL) < threshold[d + 4]) x[i] = static_cast<std::uint8_t>(proposal);
    }
    attempts += 102400;
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["flips_per_ns"] =
      benchmark::Counter(static_cast<double>(attempts) * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PottsReferenceLoop)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
