// Parallel tempering's own cost beside its kernel's: a run of the driver on one thread, with the
// time spent inside the kernel's moves measured from within (a clock around every level's move),
// so that `overhead` = (run time - kernel time) / kernel time is what the swaps, the replicas'
// energies, the round-trip bookkeeping, the ladder's adaptation and the last round's samples cost
// beyond the sweeps (the bound: 5%). Kernels: one checkerboard heat-bath sweep per scan of
// the 32 x 32 Ising and the q = 10 Potts torus at beta = 1 (range(0) sweeps per scan), 4 chains,
// 7 rounds (254 scans), the ladder chosen from the barrier.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "logz/kernels/heat_bath.hpp"
#include "logz/models/ising.hpp"
#include "logz/models/potts.hpp"
#include "logz/tempering/parallel_tempering.hpp"

namespace {

template <class Model>
void time_parallel_tempering(benchmark::State& state, const Model& model) {
  const logz::HeatBath kernel(logz::SiteOrder::checkerboard,
                              static_cast<std::size_t>(state.range(0)));
  const logz::PtLevelMove<Model> sweeps = logz::pt_level_move(model, kernel);
  std::chrono::steady_clock::duration in_kernel{};
  const logz::PtLevelMove<Model> timed = [&](double t, typename Model::Batch& batch,
                                             const logz::BatchRandom& random,
                                             logz::StopToken stop) {
    const auto start = std::chrono::steady_clock::now();
    const logz::KernelInfo info = sweeps(t, batch, random, stop);
    in_kernel += std::chrono::steady_clock::now() - start;
    return info;
  };
  logz::ParallelTemperingOptions o;
  o.num_chains = 4;
  o.rounds = 7;
  o.threads = 1;
  std::chrono::steady_clock::duration total{};
  std::uint64_t updates = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const logz::ParallelTemperingResult r = logz::parallel_tempering(model, timed, o);
    total += std::chrono::steady_clock::now() - start;
    updates += r.updates;
    benchmark::DoNotOptimize(r.stats.sample_delta.data());
  }
  const double kernel_s = std::chrono::duration<double>(in_kernel).count();
  const double total_s = std::chrono::duration<double>(total).count();
  state.counters["overhead"] = (total_s - kernel_s) / kernel_s;
  state.counters["updates_per_ns"] =
      benchmark::Counter(static_cast<double>(updates) * 1e-9, benchmark::Counter::kIsRate);
}

void BM_ParallelTemperingIsing32(benchmark::State& state) {
  time_parallel_tempering(state, logz::IsingModel(32, 32, 1.0, 1.0));
}
void BM_ParallelTemperingPotts32(benchmark::State& state) {
  time_parallel_tempering(state, logz::PottsModel(32, 32, 10, 2.0, 1.0));
}
BENCHMARK(BM_ParallelTemperingIsing32)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParallelTemperingPotts32)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
