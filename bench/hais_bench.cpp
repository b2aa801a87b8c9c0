// Products of experts and Hamiltonian AIS: energy-and-gradient throughput per particle for
// POE 36 x 36 and 144 x 36 (two GEMMs and the expert nonlinearity per call), for the mcRBM
// and the bilinear posterior (six GEMMs each) at 36 inputs, beside the
// machine's GEMM rate (Eigen, the library the models use, on a large square product and on
// the models' own shapes), and the wall time of the paper's HAIS run: POE 36-d, 200
// particles, N = 10^5 intermediate distributions (Sohl-Dickstein & Culpepper 2011 report
// about 170 s), and the CPU time of the Laplace run of docs/performance.md on one thread, in
// double and single precision. Run with --benchmark_filter to pick one.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/jarzynski.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/models/bilinear_generative.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/models/mcrbm.hpp"
#include "logz/models/product_of_experts.hpp"
#include "logz/paths/geometric_path.hpp"

namespace {

Eigen::MatrixXd positions(int d, int p) {
  Eigen::MatrixXd X(d, p);
  logz::RandomStream s(1, 0, logz::Purpose::test, 0);
  for (int j = 0; j < p; ++j)
    for (int i = 0; i < d; ++i) X(i, j) = s.normal();
  return X;
}

// state.range: (experts L, particles P, expert type 0 = Laplace, 1 = Student-t, precision 0 =
// double, 1 = single); d = 36.
void BM_PoeEnergyAndGrad(benchmark::State& state) {
  const int L = static_cast<int>(state.range(0)), P = static_cast<int>(state.range(1));
  const auto type = state.range(2) ? logz::ExpertType::student_t : logz::ExpertType::laplace;
  const auto poe =
      logz::ProductOfExperts::random(type, 36, L, 1).with_single_precision(state.range(3) != 0);
  const Eigen::MatrixXd X = positions(36, P);
  Eigen::VectorXd e;
  Eigen::MatrixXd G;
  for (auto _ : state) {
    poe.energy_and_grad(X, e, G);
    benchmark::DoNotOptimize(G.data());
  }
  state.counters["particles_per_s"] =
      benchmark::Counter(static_cast<double>(P), benchmark::Counter::kIsIterationInvariantRate);
  // Two GEMMs of 2 L d P flops each.
  state.counters["gemm_flops"] =
      benchmark::Counter(4.0 * L * 36 * P, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PoeEnergyAndGrad)
    ->Args({36, 200, 0, 0})
    ->Args({36, 200, 1, 0})
    ->Args({144, 200, 0, 0})
    ->Args({144, 200, 1, 0})
    ->Args({36, 25, 1, 0})
    ->Args({144, 25, 1, 0})
    ->Args({36, 200, 0, 1})
    ->Args({36, 200, 1, 1});

// state.range: (factors = covariance units = mean units N, particles P); mcRBM with M = 36.
void BM_McRbmEnergyAndGrad(benchmark::State& state) {
  const int N = static_cast<int>(state.range(0)), P = static_cast<int>(state.range(1));
  const auto model = logz::McRbm::random(36, N, N, N, 1.0, logz::McRbmNorm::sum, 1);
  const Eigen::MatrixXd X = positions(36, P);
  Eigen::VectorXd e;
  Eigen::MatrixXd G;
  for (auto _ : state) {
    model.energy_and_grad(X, e, G);
    benchmark::DoNotOptimize(G.data());
  }
  state.counters["particles_per_s"] =
      benchmark::Counter(static_cast<double>(P), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_McRbmEnergyAndGrad)->Args({36, 200})->Args({144, 200});

// state.range: (K_c, K_d, particles P); the bilinear posterior with M = L = 36.
void BM_BilinearPosteriorEnergyAndGrad(benchmark::State& state) {
  const int Kc = static_cast<int>(state.range(0)), Kd = static_cast<int>(state.range(1));
  const int P = static_cast<int>(state.range(2));
  const auto model = logz::BilinearGenerative::random(36, 36, Kc, Kd, 0.1, 1);
  const logz::BilinearGenerativePosterior post(model, positions(36, 1).col(0));
  Eigen::MatrixXd Z = positions(Kc + Kd, P);
  Z.bottomRows(Kd) = Z.bottomRows(Kd).cwiseAbs();
  Eigen::VectorXd e;
  Eigen::MatrixXd G;
  for (auto _ : state) {
    post.energy_and_grad(Z, e, G);
    benchmark::DoNotOptimize(G.data());
  }
  state.counters["particles_per_s"] =
      benchmark::Counter(static_cast<double>(P), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BilinearPosteriorEnergyAndGrad)->Args({36, 9, 200})->Args({80, 18, 200});

// The GEMM rate: C = A B with A m x k, B k x n.
void BM_EigenGemm(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1)),
            n = static_cast<int>(state.range(2));
  const Eigen::MatrixXd A = positions(m, k), B = positions(k, n);
  Eigen::MatrixXd C(m, n);
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["gemm_flops"] =
      benchmark::Counter(2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EigenGemm)
    ->Args({512, 512, 512})
    ->Args({36, 36, 200})
    ->Args({144, 36, 200})
    ->Args({36, 144, 200});

// The paper's run: HAIS on a complete 36-d POE (Student-t), 200 particles, N temperatures
// (state.range(0)), all hardware threads, chunks of 25 particles.
void BM_HaisPoe36(benchmark::State& state) {
  const auto poe = logz::ProductOfExperts::random(logz::ExpertType::student_t, 36, 36, 1);
  const logz::GeometricPath<logz::GaussianBase, logz::ProductOfExperts> path(
      logz::GaussianBase::isotropic(36, 1.5), poe);
  const logz::Hais kernel(0.2, logz::Hais::half_life_refresh(0.2, 1));
  const auto schedule = logz::linear_schedule(static_cast<std::size_t>(state.range(0)));
  logz::AnnealOptions o;
  o.num_paths = 200;
  o.chunk_size = 25;
  o.seed = 1;
  double err = 0;
  for (auto _ : state) {
    const logz::Works w = logz::anneal_forward(path, kernel, schedule, o);
    err = logz::ais(w.works).log_z + path.base_log_z() - *poe.exact_log_z();
  }
  state.counters["error_vs_exact"] = err;
  state.counters["particle_temperatures_per_s"] =
      benchmark::Counter(200.0 * state.range(0), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_HaisPoe36)->Arg(100000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// The reference run of issue 16 (examples/poe-36-laplace.toml, bench/python/hais_poe_timing.py):
// HAIS on the complete 36-d Laplace POE, 200 particles, state.range(0) temperatures, one
// thread (so the CPU column is all the run's CPU time), chunks of state.range(1) particles,
// the filter products in double (state.range(2) = 0) or single precision (1), or single
// precision with the kernel's refresh normals in single precision too (2).
void BM_HaisPoe36Laplace(benchmark::State& state) {
  const auto poe = logz::ProductOfExperts::random(logz::ExpertType::laplace, 36, 36, 1)
                       .with_single_precision(state.range(2) != 0);
  const logz::GeometricPath<logz::GaussianBase, logz::ProductOfExperts> path(
      logz::GaussianBase::isotropic(36, 1.5), poe);
  const logz::Hais kernel = logz::Hais(0.2, logz::Hais::half_life_refresh(0.2, 1))
                                .with_normals(state.range(2) == 2 ? logz::NormalPrecision::single
                                                                  : logz::NormalPrecision::double_);
  const auto schedule = logz::linear_schedule(static_cast<std::size_t>(state.range(0)));
  logz::AnnealOptions o;
  o.num_paths = 200;
  o.chunk_size = static_cast<std::size_t>(state.range(1));
  o.seed = 1;
  o.threads = 1;
  double err = 0, se = 0;
  for (auto _ : state) {
    const logz::Works w = logz::anneal_forward(path, kernel, schedule, o);
    const auto est = logz::ais(w.works);
    err = est.log_z + path.base_log_z() - *poe.exact_log_z();
    se = est.std_error;
  }
  state.counters["error_vs_exact"] = err;
  state.counters["std_error"] = se;
}
BENCHMARK(BM_HaisPoe36Laplace)
    ->Args({100000, 8, 0})
    ->Args({100000, 25, 0})
    ->Args({100000, 50, 0})
    ->Args({100000, 200, 0})
    ->Args({100000, 50, 1})
    ->Args({100000, 200, 1})
    ->Args({100000, 200, 2})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
