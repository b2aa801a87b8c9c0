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
// bench/peers/pymbar_mbar_timing.py writes them; N / 100 per state, so that its --per-state
// can run a smaller size under the same names) or, without it, from Philox. With
// LOGZ_BENCH_MBAR_OUT set, each benchmark writes its log(Z_k / Z_1) and standard errors there as
// <name>.npy (2 x K), for the peer script to compare with pymbar's.
constexpr int kMbarStates = 100, kMbarPerState = 10000;

double harmonic_level(int k) { return 1.0 + 9.0 * k / 99.0; }

const std::vector<double>& mbar_samples() {
  static const std::vector<double> x = [] {
    if (const char* path = std::getenv("LOGZ_BENCH_MBAR_SAMPLES"))
      return logz::io::read_npy(path).to_doubles();
    std::vector<double> v;
    for (int k = 0; k < kMbarStates; ++k)
      for (int n = 0; n < kMbarPerState; ++n) {
        logz::RandomStream s(7, static_cast<std::uint64_t>(k) * kMbarPerState + n,
                             logz::Purpose::test, 0);
        v.push_back(s.normal() / std::sqrt(harmonic_level(k)));
      }
    return v;
  }();
  return x;
}

void report_mbar(benchmark::State& state, const logz::MbarResult& r, const char* name) {
  state.counters["iterations"] = r.iterations;
  state.counters["log_z_last"] = r.log_z.back();  // log(Z_K / Z_1) = -0.5 log 10 exactly
  state.counters["std_error_last"] = r.std_error.back();
  if (const char* dir = std::getenv("LOGZ_BENCH_MBAR_OUT")) {
    std::vector<double> out(r.log_z);
    out.insert(out.end(), r.std_error.begin(), r.std_error.end());
    logz::io::write_npy(std::string(dir) + "/" + name + ".npy", {{2, r.log_z.size()}, out});
  }
}

// The dense form: the K x N matrix u (800 MB) is the input.
void BM_MbarHarmonic100x10000(benchmark::State& state) {
  const std::vector<double>& x = mbar_samples();
  Eigen::MatrixXd u(kMbarStates, static_cast<Eigen::Index>(x.size()));
  for (std::size_t n = 0; n < x.size(); ++n)
    for (int k = 0; k < kMbarStates; ++k)
      u(k, static_cast<Eigen::Index>(n)) = harmonic_level(k) * x[n] * x[n] / 2;
  const std::vector<double> counts(kMbarStates, static_cast<double>(x.size() / kMbarStates));
  logz::MbarResult r;
  for (auto _ : state) r = logz::mbar(u, counts);
  report_mbar(state, r, "dense");
}

// The same states through mbar_linear_in_level (u_k(x) = c_k * x^2 / 2 is linear in c_k): no
// K x N matrix at all.
void BM_MbarHarmonicLinear100x10000(benchmark::State& state) {
  const std::vector<double>& x = mbar_samples();
  std::vector<double> levels(kMbarStates), energies(x.size());
  for (int k = 0; k < kMbarStates; ++k) levels[k] = harmonic_level(k);
  for (std::size_t n = 0; n < x.size(); ++n) energies[n] = x[n] * x[n] / 2;
  const std::vector<double> counts(kMbarStates, static_cast<double>(x.size() / kMbarStates));
  logz::MbarResult r;
  for (auto _ : state) r = logz::mbar_linear_in_level(levels, energies, counts);
  report_mbar(state, r, "linear");
}

BENCHMARK(BM_MbarHarmonic100x10000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_MbarHarmonicLinear100x10000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Ais)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Raise)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bar)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_HistogramUnbinned)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_HistogramBinned1000)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_CumulantTwoSided)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CrooksCrossing)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
