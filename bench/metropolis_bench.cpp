// Flip attempts per nanosecond of the single-site Metropolis kernel on the
// 32 x 32 Ising torus, beside a plain reference loop (xorshift random numbers,
// the same acceptance table, no streams, no batches) on the same machine, and
// the cost of the Philox stream alone.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "logz/kernels/multispin_metropolis.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/packed_ising.hpp"
#include "logz/models/packed_ising_field_path.hpp"

namespace {

constexpr int kSide = 32;

// Calls kernel.step on range(0) particles of the model at path fraction t and reports flip
// attempts per ns.
template <class Model, class Kernel>
void time_kernel(benchmark::State& state, const Model& model, const Kernel& kernel,
                 double t = 1.0) {
  auto batch = model.make_batch(static_cast<std::size_t>(state.range(0)));
  model.sample_base(batch, logz::BatchRandom{1, logz::Purpose::base_sample, 0, 0});
  const auto target = model.at(t);
  std::uint32_t step = 0;
  std::uint64_t attempts = 0;
  for (auto _ : state) {
    const auto info =
        kernel.step(target, batch, logz::BatchRandom{1, logz::Purpose::forward_kernel, ++step, 0});
    attempts += info.attempted;
    benchmark::DoNotOptimize(batch.bond_sum(0));
  }
  state.counters["flips_per_ns"] =
      benchmark::Counter(static_cast<double>(attempts) * 1e-9, benchmark::Counter::kIsRate);
}

// random: 10^5 single-site steps; checkerboard: 100 sweeps (about the same number of updates).
void run_kernel(benchmark::State& state, logz::SiteOrder order, double beta) {
  const std::size_t steps = order == logz::SiteOrder::random ? 102400 : 100;
  time_kernel(state, logz::IsingModel(kSide, kSide, 1.0, beta),
              logz::SpinFlipMetropolis(order, steps));
}

void BM_MetropolisRandomSite(benchmark::State& s) { run_kernel(s, logz::SiteOrder::random, 0.44); }
void BM_MetropolisCheckerboard(benchmark::State& s) {
  run_kernel(s, logz::SiteOrder::checkerboard, 0.44);
}
BENCHMARK(BM_MetropolisRandomSite)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MetropolisCheckerboard)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

// Multi-spin coding: checkerboard sweeps of 64 particles per word (range(0) particles), 10
// sweeps per call at beta = range(1) / 100.
void BM_IsingMultiSpin(benchmark::State& state) {
  const double beta = static_cast<double>(state.range(1)) / 100;
  time_kernel(state, logz::PackedIsingModel(logz::IsingModel(kSide, kSide, 1.0, beta)),
              logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 10));
}
BENCHMARK(BM_IsingMultiSpin)
    ->Args({64, 44})
    ->Args({1024, 44})
    ->Args({1024, 100})
    ->Args({1024, 0})
    ->Unit(benchmark::kMillisecond);

// On the field path (models/packed_ising_field_path.hpp, h0 = 10, beta = 1) at path fraction
// t = range(1) / 100: beta 2t with the field on for t <= 1/2, then the field 10 (2 - 2t).
void BM_IsingMultiSpinField(benchmark::State& state) {
  time_kernel(state, logz::PackedIsingFieldPath(logz::IsingModel(kSide, kSide, 1.0, 1.0), 10.0),
              logz::MultiSpinMetropolis(logz::SiteOrder::checkerboard, 10),
              static_cast<double>(state.range(1)) / 100);
}
BENCHMARK(BM_IsingMultiSpinField)
    ->Args({1024, 25})
    ->Args({1024, 50})
    ->Args({1024, 75})
    ->Args({1024, 100})
    ->Unit(benchmark::kMillisecond);

// The reference: the simplest correct loop a physicist would write.
void BM_ReferenceLoop(benchmark::State& state) {
  std::vector<std::int8_t> s(kSide * kSide, 1);
  std::uint64_t x = 88172645463325252ULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  std::uint64_t threshold[5];
  for (int j = 0; j < 5; ++j) {
    const double p = std::exp(-2.0 * 0.44 * (2.0 * j - 4.0));
    threshold[j] = p >= 1.0 ? (1ULL << 32) : static_cast<std::uint64_t>(p * 4294967296.0);
  }
  std::uint64_t attempts = 0;
  for (auto _ : state) {
    for (int k = 0; k < 102400; ++k) {
      const std::uint64_t r = next();
      const int i = static_cast<int>(((r & 0xffffffffULL) * (kSide * kSide)) >> 32);
      const int row = i / kSide, col = i % kSide;
      const int h =
          s[row * kSide + (col + 1) % kSide] + s[row * kSide + (col + kSide - 1) % kSide] +
          s[((row + 1) % kSide) * kSide + col] + s[((row + kSide - 1) % kSide) * kSide + col];
      const int sh = s[i] * h;
      if ((r >> 32) < threshold[(sh + 4) >> 1]) s[i] = static_cast<std::int8_t>(-s[i]);
    }
    attempts += 102400;
    benchmark::DoNotOptimize(s.data());
  }
  state.counters["flips_per_ns"] =
      benchmark::Counter(static_cast<double>(attempts) * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReferenceLoop)->Unit(benchmark::kMillisecond);

// Philox4x32-10 alone: 32-bit draws per nanosecond.
void BM_PhiloxStream(benchmark::State& state) {
  logz::RandomStream rng(1, 0, logz::Purpose::test, 0);
  std::uint32_t acc = 0;
  for (auto _ : state) {
    for (int k = 0; k < 4096; ++k) acc += rng.next_u32();
    benchmark::DoNotOptimize(acc);
  }
  state.counters["draws_per_ns"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 4096e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PhiloxStream);

}  // namespace

BENCHMARK_MAIN();
