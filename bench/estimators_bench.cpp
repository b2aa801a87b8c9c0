// Time of the work-based estimators on 10^6 forward and 10^6 reverse Crooks-consistent Gaussian
// works (forward N(5, 1.5^2), reverse N(1.5^2 - 5, 1.5^2), log Z = -3.875). Each benchmark reports
// its estimate as the counter log_z. With LOGZ_BENCH_WORKS_DIR set, the works are also written
// there as forward.npy and reverse.npy, so that bench/peers/pymbar_bar_timing.py can time
// pymbar's BAR on the same numbers.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "logz/estimators/bar.hpp"
#include "logz/estimators/crooks_crossing.hpp"
#include "logz/estimators/cumulant.hpp"
#include "logz/estimators/histogram.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/estimators/mbar.hpp"
#include "logz/io/npy.hpp"
#include "logz/random/philox.hpp"

namespace {

constexpr std::size_t kWorks = 1000000;

struct BenchWorks {
  std::vector<double> forward, reverse;
};

const BenchWorks& works() {
  static const BenchWorks w = [] {
    const double mu = 5.0, s = 1.5;
    BenchWorks b;
    logz::RandomStream f(2024, 0, logz::Purpose::test, 0), r(2024, 1, logz::Purpose::test, 0);
    b.forward.resize(kWorks);
    b.reverse.resize(kWorks);
    for (double& v : b.forward) v = mu + s * f.normal();
    for (double& v : b.reverse) v = s * s - mu + s * r.normal();
    if (const char* dir = std::getenv("LOGZ_BENCH_WORKS_DIR")) {
      logz::io::write_npy(std::string(dir) + "/forward.npy", {{kWorks}, b.forward});
      logz::io::write_npy(std::string(dir) + "/reverse.npy", {{kWorks}, b.reverse});
    }
    return b;
  }();
  return w;
}

template <class F>
void run(benchmark::State& state, F&& estimate) {
  const BenchWorks& w = works();
  double log_z = 0.0;
  for (auto _ : state) {
    log_z = estimate(w.forward, w.reverse);
    benchmark::DoNotOptimize(log_z);
  }
  state.counters["log_z"] = log_z;
  state.SetItemsProcessed(state.iterations() * static_cast<long>(2 * kWorks));
}

void BM_Ais(benchmark::State& state) {
  run(state, [](const auto& f, const auto&) { return logz::ais(f).log_z; });
}
void BM_Raise(benchmark::State& state) {
  run(state, [](const auto&, const auto& r) { return logz::raise(r).log_z; });
}
void BM_Bar(benchmark::State& state) {
  run(state, [](const auto& f, const auto& r) { return logz::bar(f, r).log_z; });
}
void BM_HistogramUnbinned(benchmark::State& state) {
  run(state, [](const auto& f, const auto& r) { return logz::histogram(f, r).estimate.log_z; });
}
void BM_HistogramBinned1000(benchmark::State& state) {
  logz::HistogramOptions o;
  o.bins = 1000;
  run(state, [&](const auto& f, const auto& r) { return logz::histogram(f, r, o).estimate.log_z; });
}
void BM_CumulantTwoSided(benchmark::State& state) {
  run(state, [](const auto& f, const auto& r) { return logz::cumulant(f, r).log_z; });
}
void BM_CrooksCrossing(benchmark::State& state) {
  run(state, [](const auto& f, const auto& r) { return logz::crooks_crossing(f, r).log_z; });
}

}  // namespace

// MBAR on K = 100 harmonic states u_k(x) = c_k x^2 / 2, c_k = 1 + 9 k / 99, with 10^4 exact
// samples of each (N = 10^6): the size of the RTS paper's MBAR comparison. The samples come
// from LOGZ_BENCH_MBAR_SAMPLES (an .npy of N values, state after state, as
// bench/peers/pymbar_mbar_timing.py writes them) or, without it, from Philox.
void BM_MbarHarmonic100x10000(benchmark::State& state) {
  constexpr int k_states = 100, per_state = 10000;
  std::vector<double> x;
  if (const char* path = std::getenv("LOGZ_BENCH_MBAR_SAMPLES")) {
    x = logz::io::read_npy(path).to_doubles();
  } else {
    for (int k = 0; k < k_states; ++k)
      for (int n = 0; n < per_state; ++n) {
        logz::RandomStream s(7, static_cast<std::uint64_t>(k) * per_state + n, logz::Purpose::test, 0);
        x.push_back(s.normal() / std::sqrt(1.0 + 9.0 * k / 99.0));
      }
  }
  Eigen::MatrixXd u(k_states, static_cast<Eigen::Index>(x.size()));
  for (int k = 0; k < k_states; ++k)
    for (std::size_t n = 0; n < x.size(); ++n) u(k, static_cast<Eigen::Index>(n)) = (1.0 + 9.0 * k / 99.0) * x[n] * x[n] / 2;
  const std::vector<double> counts(k_states, per_state);
  logz::MbarResult r;
  for (auto _ : state) r = logz::mbar(u, counts);
  state.counters["iterations"] = r.iterations;
  state.counters["log_z_last"] = r.log_z.back();  // log(Z_K / Z_1) = -0.5 log 10 exactly
  state.counters["std_error_last"] = r.std_error.back();
}

BENCHMARK(BM_MbarHarmonic100x10000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Ais)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Raise)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bar)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_HistogramUnbinned)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_HistogramBinned1000)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_CumulantTwoSided)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CrooksCrossing)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
