// Block Gibbs sweeps per second for a 784 x 500 RBM with 100 and 1000
// particles in one chunk, float and double, beside the GEMM bound measured in
// the same program: a sweep needs two GEMMs (W^T V: 500 x 784 x P, and W H:
// 784 x 500 x P), so "gemm_fraction" = (time of those two GEMMs alone) / (time
// of a sweep) is the share of the GEMM bound the kernel reaches (target >= 0.8).
// Also: OpenBLAS against Eigen's own GEMM, and the cost of one AIS temperature
// (work increment + one kernel step) for the full, marginal-v and marginal-h
// paths (Habeck 2017 found the marginal model three times faster), with its
// own gemm_fraction for the Gibbs kernels.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/kernels/rbm_marginal_metropolis.hpp"
#include "logz/models/rbm.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/tempering/simulated_tempering.hpp"

namespace {

constexpr int kVisible = 784, kHidden = 500;

const logz::RbmParameters& parameters() {
  static const logz::RbmParameters p = [] {
    logz::RandomStream rng(1, 0, logz::Purpose::test, 0);
    logz::RbmParameters q;
    q.W.resize(kVisible, kHidden);
    q.a.resize(kVisible);
    q.b.resize(kHidden);
    for (Eigen::Index i = 0; i < q.W.size(); ++i) q.W.data()[i] = 0.05 * rng.normal();
    for (int i = 0; i < kVisible; ++i) q.a[i] = 0.1 * rng.normal();
    for (int j = 0; j < kHidden; ++j) q.b[j] = 0.1 * rng.normal();
    return q;
  }();
  return p;
}

// Seconds per call of f: the best of 5 timings of a few calls each.
template <class F>
double seconds_per_call(F&& f, int calls) {
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) f();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  return best;
}

// The two GEMMs of one sweep through OpenBLAS, single-threaded as the kernels call it.
template <class Scalar>
double gemm_pair_seconds(int particles) {
  const logz::Rbm<Scalar> rbm(parameters());
  const logz::RbmMatrix<Scalar> V =
      logz::RbmMatrix<Scalar>::Ones(kVisible, particles) * Scalar(0.5);
  const logz::RbmMatrix<Scalar> H = logz::RbmMatrix<Scalar>::Ones(kHidden, particles) * Scalar(0.5);
  logz::RbmMatrix<Scalar> X(kHidden, particles), Y(kVisible, particles);
  const auto& W = rbm.weights();
  return seconds_per_call(
      [&] {
        logz::detail::gemm(true, false, kHidden, particles, kVisible, Scalar(1), W.data(), kVisible,
                           V.data(), kVisible, Scalar(1), X.data(), kHidden);
        logz::detail::gemm(false, false, kVisible, particles, kHidden, Scalar(1), W.data(),
                           kVisible, H.data(), kHidden, Scalar(1), Y.data(), kVisible);
        benchmark::DoNotOptimize(X.data());
        benchmark::DoNotOptimize(Y.data());
      },
      particles >= 1000 ? 2 : 10);
}

template <class Scalar>
void BM_GemmPairOpenBlas(benchmark::State& state) {
  const int particles = static_cast<int>(state.range(0));
  const logz::Rbm<Scalar> rbm(parameters());
  const logz::RbmMatrix<Scalar> V = logz::RbmMatrix<Scalar>::Ones(kVisible, particles);
  const logz::RbmMatrix<Scalar> H = logz::RbmMatrix<Scalar>::Ones(kHidden, particles);
  logz::RbmMatrix<Scalar> X(kHidden, particles), Y(kVisible, particles);
  for (auto _ : state) {
    rbm.hidden_input(V, X);
    rbm.visible_input(H, Y);
    benchmark::DoNotOptimize(X.data());
  }
  state.counters["gflops"] = benchmark::Counter(4.0 * kVisible * kHidden * particles * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Eigen's own (single-threaded) GEMM for the same two products.
template <class Scalar>
void BM_GemmPairEigen(benchmark::State& state) {
  const int particles = static_cast<int>(state.range(0));
  const logz::RbmMatrix<Scalar> W = parameters().W.cast<Scalar>();
  const logz::RbmMatrix<Scalar> V = logz::RbmMatrix<Scalar>::Ones(kVisible, particles);
  const logz::RbmMatrix<Scalar> H = logz::RbmMatrix<Scalar>::Ones(kHidden, particles);
  logz::RbmMatrix<Scalar> X(kHidden, particles), Y(kVisible, particles);
  for (auto _ : state) {
    X.noalias() = W.transpose() * V;
    Y.noalias() = W * H;
    benchmark::DoNotOptimize(X.data());
  }
  state.counters["gflops"] = benchmark::Counter(4.0 * kVisible * kHidden * particles * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar>
void BM_GibbsSweep(benchmark::State& state) {
  const int particles = static_cast<int>(state.range(0));
  const logz::RbmFullPath<Scalar> path(parameters(), logz::uniform_rbm_base(kVisible));
  const logz::RbmGibbs<Scalar> kernel(1);
  auto batch = path.make_batch(static_cast<std::size_t>(particles));
  path.sample_base(batch, logz::BatchRandom{1, logz::Purpose::base_sample, 0, 0});
  const auto target = path.at(0.9);
  std::uint32_t step = 0;
  for (auto _ : state) {
    kernel.step(target, batch, logz::BatchRandom{1, logz::Purpose::forward_kernel, ++step, 0});
    benchmark::DoNotOptimize(batch.visible().data());
  }
  const double sweep_s = seconds_per_call(
      [&] {
        kernel.step(target, batch, logz::BatchRandom{1, logz::Purpose::forward_kernel, ++step, 0});
      },
      particles >= 1000 ? 2 : 10);
  state.counters["particle_sweeps_per_s"] = benchmark::Counter(
      static_cast<double>(particles), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gemm_fraction"] = gemm_pair_seconds<Scalar>(particles) / sweep_s;
}

// One temperature of the driver: work increment, kernel step, trace energy.
template <class Path, class Kernel>
void one_temperature(benchmark::State& state, const Kernel& kernel) {
  const int particles = static_cast<int>(state.range(0));
  const Path path(parameters(), logz::uniform_rbm_base(kVisible));
  auto batch = path.make_batch(static_cast<std::size_t>(particles));
  path.sample_base(batch, logz::BatchRandom{1, logz::Purpose::base_sample, 0, 0});
  auto annealing = logz::anneal_init(path, std::move(batch));
  annealing.t = 0.5;
  std::uint32_t step = 0;
  // One step of the AIS driver (anneal/anneal_step.hpp).
  const auto temperature = [&] {
    logz::anneal_step(path, kernel, annealing, annealing.t + 1e-6,
                      logz::BatchRandom{1, logz::Purpose::forward_kernel, ++step, 0});
    benchmark::DoNotOptimize(annealing.work.data());
  };
  for (auto _ : state) temperature();
  state.counters["temperatures_per_s"] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
  // An AIS temperature of the Gibbs kernels needs the same two GEMMs as a sweep.
  if constexpr (std::is_same_v<Kernel, logz::RbmGibbs<float>>)
    state.counters["gemm_fraction"] = gemm_pair_seconds<float>(particles) /
                                      seconds_per_call(temperature, particles >= 1000 ? 2 : 10);
}

void BM_TemperatureFullGibbs(benchmark::State& s) {
  one_temperature<logz::RbmFullPath<float>>(s, logz::RbmGibbs<float>(1));
}
void BM_TemperatureMarginalVisibleGibbs(benchmark::State& s) {
  one_temperature<logz::RbmMarginalVisiblePath<float>>(s, logz::RbmGibbs<float>(1));
}
void BM_TemperatureMarginalHiddenGibbs(benchmark::State& s) {
  one_temperature<logz::RbmMarginalHiddenPath<float>>(s, logz::RbmGibbs<float>(1));
}
// 50 single-unit proposals (a tenth of a sweep over the 500 hidden units).
void BM_TemperatureMarginalHiddenMetropolis50(benchmark::State& s) {
  one_temperature<logz::RbmMarginalHiddenPath<float>>(s, logz::RbmMarginalMetropolis<float>(50));
}

BENCHMARK(BM_GemmPairOpenBlas<float>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmPairOpenBlas<double>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmPairEigen<float>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmPairEigen<double>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
// Simulated tempering of the 784 x 500 RBM: 100 chains over K = 100 levels of the joint path,
// each chunk of 50 chains one block Gibbs step at the chains' own levels, then the exact draw
// of every chain's level; with (state.range(0) = 1) and without (0) the RTS statistics, so the
// ratio of the two is the statistics' overhead.
void BM_TemperedSweep(benchmark::State& state) {
  const logz::RbmFullPath<float> path(parameters(), logz::uniform_rbm_base(kVisible));
  const logz::RbmGibbs<float> kernel(1);
  logz::TemperingOptions o;
  o.num_chains = 100;
  o.chunk_size = 50;
  o.threads = 1;
  o.accumulate = state.range(0) == 1;
  logz::SimulatedTempering st(path, kernel, logz::TemperingLadder(logz::linear_schedule(99)), o);
  const std::vector<double> log_z_hat(100, 0.0);
  for (auto _ : state) benchmark::DoNotOptimize(st.run(1, log_z_hat).num_levels);
  state.counters["chain_sweeps_per_s"] =
      benchmark::Counter(100.0, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_TemperedSweep)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same on the marginal_v path (logz's default for RTS on an RBM: q(beta_k | v) with h summed
// out), to set beside BM_TemperatureMarginalVisibleGibbs per chain-sweep: 100 chains over
// K = 100 levels, block Gibbs at each chain's level, then the level draw; range(0) = 1 with the
// RTS statistics, 0 without; range(1) the chains per chunk (50, the registry's default for an
// RBM, or 100: one GEMM over all chains, the grouping of the AIS benchmark with 100 particles);
// range(2) = 1 with the thermodynamic-integration integrands (the slopes at every level), 0
// without (initial iterations, and runs with no TI estimator).
void BM_TemperedSweepMarginalVisible(benchmark::State& state) {
  const logz::RbmMarginalVisiblePath<float> path(parameters(), logz::uniform_rbm_base(kVisible));
  const logz::RbmGibbs<float> kernel(1);
  logz::TemperingOptions o;
  o.num_chains = 100;
  o.chunk_size = static_cast<std::size_t>(state.range(1));
  o.threads = 1;
  o.accumulate = state.range(0) == 1;
  logz::SimulatedTempering st(path, kernel, logz::TemperingLadder(logz::linear_schedule(99)), o);
  const std::vector<double> log_z_hat(100, 0.0);
  const bool integrands = state.range(2) == 1;
  for (auto _ : state) benchmark::DoNotOptimize(st.run(1, log_z_hat, {}, integrands).num_levels);
  state.counters["chain_sweeps_per_s"] =
      benchmark::Counter(100.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TemperedSweepMarginalVisible)
    ->Args({1, 50, 1})
    ->Args({1, 100, 1})
    ->Args({0, 100, 1})
    ->Args({1, 50, 0})
    ->Args({1, 100, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GibbsSweep<float>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GibbsSweep<double>)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TemperatureFullGibbs)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TemperatureMarginalVisibleGibbs)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TemperatureMarginalHiddenGibbs)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TemperatureMarginalHiddenMetropolis50)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
