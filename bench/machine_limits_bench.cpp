// The machine's own limits, measured beside the kernels they bound (bench/peers/compare prints
// them under its table): GEMM FLOP/s of OpenBLAS on one thread (dgemm and sgemm on 512^3 and on
// the RBM's 784 x 500 weights against 100 particles, as logz calls it: logz::detail::gemm, which
// sets OpenBLAS to one thread), Philox4x32-10 draws per nanosecond (RandomStream::fill_u32 in
// bulk, next_u32 one at a time) and memory bandwidth (a streaming sum and copy over 256 MiB,
// far beyond any cache). Counters: gflops (10^9 floating-point operations per CPU second, a
// multiply-add counted as two), draws_per_ns (32-bit draws per CPU nanosecond) and gb_per_s
// (10^9 bytes read plus written per CPU second).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "logz/models/rbm.hpp"
#include "logz/random/particle_draws.hpp"
#include "logz/random/philox.hpp"

namespace {

// C (m x n) = A (m x k) B (k x n), column-major, or A^T B with A stored k x m (the RBM's W^T V).
template <class Scalar>
void BM_Gemm(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1)),
            k = static_cast<int>(state.range(2));
  const bool trans_a = state.range(3) != 0;
  logz::RandomStream rng(1, 0, logz::Purpose::test, 0);
  std::vector<Scalar> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
      C(static_cast<std::size_t>(m) * n, Scalar(0));
  for (Scalar& a : A) a = static_cast<Scalar>(rng.uniform() - 0.5);
  for (Scalar& b : B) b = static_cast<Scalar>(rng.uniform() - 0.5);
  for (auto _ : state) {
    logz::detail::gemm(trans_a, false, m, n, k, Scalar(1), A.data(), trans_a ? k : m, B.data(), k,
                       Scalar(0), C.data(), m);
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  state.counters["gflops"] =
      benchmark::Counter(2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
// 512^3, and the RBM's hidden input W^T V: W is 784 x 500, V is 784 x 100 particles.
BENCHMARK(BM_Gemm<double>)->Name("BM_Dgemm")->Args({512, 512, 512, 0})->Args({500, 100, 784, 1});
BENCHMARK(BM_Gemm<float>)->Name("BM_Sgemm")->Args({512, 512, 512, 0})->Args({500, 100, 784, 1});

constexpr std::size_t kDrawsPerIteration = 1 << 16;

// Philox in bulk: fill_u32 into a 256 KiB buffer (in cache), every block in one call.
void BM_PhiloxFillU32(benchmark::State& state) {
  logz::RandomStream rng(1, 0, logz::Purpose::test, 0);
  std::vector<std::uint32_t> out(kDrawsPerIteration);
  for (auto _ : state) {
    rng.fill_u32(out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["draws_per_ns"] =
      benchmark::Counter(static_cast<double>(kDrawsPerIteration) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PhiloxFillU32);

// Philox one draw at a time, as a scalar loop uses it.
void BM_PhiloxNextU32(benchmark::State& state) {
  logz::RandomStream rng(1, 0, logz::Purpose::test, 0);
  std::uint32_t acc = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kDrawsPerIteration; ++i) acc += rng.next_u32();
    benchmark::DoNotOptimize(acc);
  }
  state.counters["draws_per_ns"] =
      benchmark::Counter(static_cast<double>(kDrawsPerIteration) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PhiloxNextU32);

// One HAIS step's draws for the 36-d product of experts: 200 particles, each a uniform and 36
// normals from its own stream (particle_draws.hpp), in double (arg 0) or single (1) precision.
void BM_ParticleNormals(benchmark::State& state) {
  constexpr std::size_t kParticles = 200, kDims = 36;
  const auto precision =
      state.range(0) == 0 ? logz::NormalPrecision::double_ : logz::NormalPrecision::single;
  std::vector<double> uniforms(kParticles), normals(kParticles * kDims);
  std::uint32_t step = 0;
  for (auto _ : state) {
    logz::draw_uniform_and_normals(logz::BatchRandom{1, logz::Purpose::test, ++step, 0},
                                   logz::DrawOrder::normals_first, uniforms, normals.data(), kDims,
                                   kDims, precision);
    benchmark::DoNotOptimize(normals.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_normal"] = benchmark::Counter(
      static_cast<double>(kParticles * kDims),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ParticleNormals)->Arg(0)->Arg(1);

constexpr std::size_t kStreamBytes = std::size_t{256} << 20;

// Streaming read: the sum of 256 MiB of 64-bit integers (integer addition is associative, so
// the compiler vectorises it freely; the loop is bound by memory, not by the adds).
void BM_MemorySum(benchmark::State& state) {
  std::vector<std::uint64_t> a(kStreamBytes / sizeof(std::uint64_t));
  std::iota(a.begin(), a.end(), std::uint64_t{0});  // touches every page before timing
  for (auto _ : state) {
    std::uint64_t s = 0;
    for (const std::uint64_t v : a) s += v;
    benchmark::DoNotOptimize(s);
  }
  state.counters["gb_per_s"] = benchmark::Counter(static_cast<double>(kStreamBytes) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MemorySum)->Unit(benchmark::kMillisecond);

// Streaming copy: memcpy of 256 MiB into another 256 MiB; counted as 512 MiB moved (read plus
// written; glibc uses non-temporal stores at this size, so there is no read-for-ownership).
void BM_MemoryCopy(benchmark::State& state) {
  std::vector<std::uint8_t> src(kStreamBytes, 1), dst(kStreamBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kStreamBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.counters["gb_per_s"] = benchmark::Counter(2.0 * static_cast<double>(kStreamBytes) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MemoryCopy)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
