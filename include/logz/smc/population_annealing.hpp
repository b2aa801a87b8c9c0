// Population annealing (Hukushima & Iba 2003; Machta 2010; Wang, Machta & Katzgraber 2015) for
// the discrete models: a population of R replicas carried along an annealing path
// (core/annealing_path.hpp: the lattice models' path over beta, U_t = t beta E, or a path around
// a transition such as PottsFieldPath) by the same kernels the annealer applies
// (core/kernel_for.hpp):
//   1. R replicas drawn exactly from the base (t = 0), weights 1/R, each the founder of its
//      own family;
//   2. the next temperature by bisection on the conditional ESS (smc/conditional_ess.hpp): on a
//      geometric path (geometric_path = true) from the gaps g = U_1 - U_0 (beta E for the
//      lattice models), once per temperature; on any other path from work_increment(t, t')
//      at every bisection step (a pass over the replicas each);
//   3. reweighting by exp(-(U_t' - U_t)): log Z += log sum_i W_i exp(-(U_t' - U_t)(x_i));
//   4. below t = 1: resampling (by default systematic, at every temperature, as in Machta's
//      population annealing; or when the ESS falls below a fraction of R), families following
//      their replicas; then one step of the kernel at t' (its own number of sweeps);
//   5. at t = 1: log(Z_1 / Z_0), the equilibration population size rho_f = R sum_f S_f^2 (S_f
//      the final weight of family f): rho_f / R estimates Var(Z_hat) / Z^2, the log-normal bias
//      of log Z_hat is about -rho_f / (2 R), and a population much larger than rho_f is what
//      equilibration needs; and the genealogy estimate of the variance
//      (smc/genealogy_variance.hpp).
//
// Why systematic resampling at every temperature by default (Machta's population annealing
// resamples every step with a low-noise scheme): the kernel then always works on equally
// weighted replicas, and replicas in a phase that has lost its weight are dropped before the
// kernel spends sweeps on them. Measured on the Ising model (16 x 16 at beta 0.44, R = 1024,
// 40 seeds; docs/population_annealing.md) it had the smallest error (RMS 0.068 against 0.088
// for multinomial at every step and 0.107 for multinomial below ESS R / 2). Its error bar is
// rho_f's, sqrt(log(1 + rho_f / R)) (RMS z 0.72 there: conservative). The genealogy estimator
// assumes multinomial resampling: with systematic resampling its drift correction exceeds the
// drift and it comes out negative, so it is the error bar only with
// resampling = multinomial, where it is unbiased (but, resampling at every one of m
// temperatures, the difference of two numbers near m / R: NaN in 7 of those 40 runs).
//
// Reproducible for any thread count: replicas live in fixed chunks (chunk_size; a multiple of
// 64 for the multi-spin kernels, whose groups draw from the stream of their first lane);
// replica i draws from its own Philox streams: base (base_sample, step 0), the kernel at
// temperature k (forward_kernel, step k); resampling at temperature k from (resample, step k) of
// replica 0; every sum over replicas is taken in replica or chunk order.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/parallel/chunk_range.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/random/philox.hpp"
#include "logz/smc/conditional_ess.hpp"
#include "logz/smc/smc_resampling.hpp"

namespace logz {

// One temperature of a run: the reweighting that reached it, then (below t = 1) the resampling
// and the kernel's step there.
struct PopulationAnnealingStage {
  double temperature = 0.0;      // path fraction t (the lattice models' inverse temperature t beta)
  double log_z_increment = 0.0;  // log sum_i W_i exp(-(U_t - U_t_prev)(x_i))
  double ess = 0.0;              // of the weights after reweighting, as a fraction of R
  bool resampled = false;
  std::size_t num_families = 0;  // families with replicas of weight after this temperature
  double acceptance = kNaN;      // accepted / attempted updates of the kernel's step
  double mean_energy = kNaN;     // weighted mean of the path's trace energy (E) after the step
};

struct PopulationAnnealingOptions {
  std::size_t num_replicas = 1000;  // R
  // The next temperature keeps the conditional ESS at this fraction of R (in (0, 1)).
  double cess_target = 0.9;
  // Resample when the ESS falls below this fraction of R; 1 (the default): at every
  // temperature, as Machta's population annealing does (see above).
  double resample_threshold = 1.0;
  // Systematic: error bar from rho_f; multinomial: from the genealogy (see above).
  SmcResampling resampling = SmcResampling::systematic;
  // Temperatures in all (< 2^20); the last one allowed jumps to t = 1 and is flagged.
  std::size_t max_temperatures = 10000;
  // Flag families_dominate when rho_f / R exceeds this: the estimate then rests on a few
  // families (not equilibrated), and log Z_hat may read low by about rho_f / (2 R). Multinomial
  // resampling alone (neutral drift) adds about (m + 1) / R to rho_f / R after m resamplings,
  // which the genealogy estimate removes and rho_f does not: hence 0.05, not 0.01.
  double max_family_fraction = 0.05;

  std::uint64_t seed = kDefaultSeed;
  int threads = 0;              // 0: all hardware threads
  std::size_t chunk_size = 64;  // replicas per chunk (fixes the reduction order)
  // Called after every temperature with its record (t = 1 last).
  std::function<void(const PopulationAnnealingStage&)> progress;
  StopToken stop;  // the run stops (logz::Stopped) between chunks once it is requested
};

// InvalidArgument naming the first field out of range.
void validate(const PopulationAnnealingOptions& options);

struct PopulationAnnealingResult {
  // log(Z_1 / Z_0), method "population_annealing", se_method "rho_f" (systematic resampling) or
  // "genealogy" (multinomial; Lee & Whiteley 2018); flags: genealogy_collapsed (one family left:
  // SE NaN), variance_estimate_not_positive (genealogy SE NaN), families_dominate
  // (rho_f / R > max_family_fraction), too_many_temperatures, non_finite_energy.
  Estimate log_z;
  double base_log_z = kNaN;
  double relative_variance = kNaN;  // genealogy estimate of Var(Z_hat) / Z^2
  std::size_t num_families = 0;     // families with replicas of weight at the end
  // Wang, Machta & Katzgraber's equilibration population size R sum_f S_f^2, and the standard
  // error of log Z_hat it implies, sqrt(log(1 + rho_f / R)) (no correction for the drift of the
  // resamplings, unlike the genealogy estimate: it reads high, much so with multinomial).
  double rho_f = kNaN;
  double rho_f_std_error = kNaN;
  std::vector<PopulationAnnealingStage> stages;  // t_1 .. t_K = 1 (t_0 = 0 is the base)
  std::size_t num_resamplings = 0;
  std::uint64_t updates = 0;        // the kernel's attempted updates (site updates, clusters)
  std::vector<double> log_weights;  // normalised, one per replica at t = 1
  std::vector<std::size_t> families;
  std::vector<double> energies;  // the path's trace energy (E) of every replica at t = 1

  double absolute_log_z() const { return base_log_z + log_z.log_z; }
  std::vector<double> temperatures() const;  // 0, t_1, ..., 1
};

namespace detail {

// Distinct families among the replicas of positive weight.
std::size_t count_families(std::span<const double> log_weights,
                           std::span<const std::size_t> families);
// The weighted mean of finite values.
double weighted_mean(std::span<const double> log_weights, std::span<const double> values);
// The Estimate, error bars, rho_f, diagnostics and flags of a finished run (r's weights,
// families, stages and counts filled in).
void finish_population_annealing(PopulationAnnealingResult& r, double log_z, bool capped,
                                 std::uint64_t invalid, const PopulationAnnealingOptions& options);

}  // namespace detail

// A batch whose particles can be copied one by one (every lattice batch): what resampling needs.
template <class B>
concept ResamplableBatch = requires(B& to, const B& from, std::size_t p) {
  to.copy_particle(from, p, p);
};

template <AnnealingPath Path, KernelFor<Path> Kernel>
requires ResamplableBatch<typename Path::Batch> PopulationAnnealingResult population_annealing(
    const Path& path, const Kernel& kernel, const PopulationAnnealingOptions& options) {
  using Batch = typename Path::Batch;
  validate(options);
  const std::size_t n = options.num_replicas, chunk = options.chunk_size;
  const std::size_t chunks = num_chunks(n, chunk);
  const std::uint64_t seed = options.seed;
  PopulationAnnealingResult r;
  if constexpr (requires { path.base_log_z(); }) r.base_log_z = path.base_log_z();

  // 1. Exact base draws, their trace energies and (geometric path) their gaps g = U_1 - U_0:
  // there U_t' - U_t = (t' - t) g.
  constexpr bool geometric = is_geometric_path<Path>;
  std::vector<Batch> batches;
  batches.reserve(chunks);
  for (std::size_t c = 0; c < chunks; ++c)
    batches.push_back(path.make_batch(chunk_range(c, n, chunk).size()));
  std::vector<double> gaps(geometric ? n : 0), energies(n), inc(n);
  auto measure = [&](const ChunkRange& c) {
    if constexpr (geometric)
      path.work_increment(0.0, 1.0, batches[c.index],
                          std::span<double>(gaps).subspan(c.begin, c.size()));
    path.trace_energy(batches[c.index], std::span<double>(energies).subspan(c.begin, c.size()));
  };
  run_chunks(
      n, chunk, options.threads,
      [&](const ChunkRange& c) {
        path.sample_base(batches[c.index], BatchRandom{seed, Purpose::base_sample, 0, c.begin});
        measure(c);
      },
      {}, options.stop);
  std::vector<double> log_w(n, -std::log(static_cast<double>(n))), log_inc(n);
  std::vector<std::size_t> families(n);
  std::iota(families.begin(), families.end(), std::size_t{0});
  std::uint64_t invalid = 0;  // replica-temperatures with a NaN or -inf energy difference
  auto count_invalid = [&](std::span<const double> values) {
    for (double v : values) invalid += std::isnan(v) || (std::isinf(v) && v < 0.0);
  };
  if constexpr (geometric) count_invalid(gaps);

  bool capped = false;
  double t = 0.0, log_z = 0.0;
  // inc[i] = U_{t_to}(x_i) - U_t(x_i) (a path that is not geometric).
  auto increments_to = [&](double t_to) {
    run_chunks(
        n, chunk, options.threads,
        [&](const ChunkRange& c) {
          path.work_increment(t, t_to, batches[c.index],
                              std::span<double>(inc).subspan(c.begin, c.size()));
        },
        {}, options.stop);
  };
  auto cess_at = [&](double t_to) {
    increments_to(t_to);
    return conditional_ess_fraction(log_w, inc, 1.0);
  };
  while (t < 1.0) {
    const std::size_t k = r.stages.size() + 1;  // the temperature being reached
    // 2.-3. The next temperature and the reweighting.
    double t_next = 1.0;
    if constexpr (geometric) {
      t_next = next_temperature(log_w, gaps, t, options.cess_target);
    } else if (cess_at(1.0) < options.cess_target) {
      double low = t, high = 1.0;  // CESS(low) > target >= CESS(high), as next_temperature
      while (high - low > 1e-9) {
        const double mid = 0.5 * (low + high);
        if (mid <= low || mid >= high) break;
        (cess_at(mid) >= options.cess_target ? low : high) = mid;
      }
      t_next = high;
    }
    if (k >= options.max_temperatures && t_next < 1.0) capped = true, t_next = 1.0;
    if constexpr (geometric) {
      for (std::size_t i = 0; i < n; ++i) log_inc[i] = log_incremental_weight(t_next - t, gaps[i]);
    } else {
      increments_to(t_next);
      count_invalid(inc);
      for (std::size_t i = 0; i < n; ++i) log_inc[i] = log_incremental_weight(1.0, inc[i]);
    }
    const double increment = reweight(log_w, log_inc, "logz::population_annealing", t_next);
    log_z += increment;
    t = t_next;
    PopulationAnnealingStage stage;
    stage.temperature = t;
    stage.log_z_increment = increment;
    stage.ess = ess_fraction(log_w);
    if (t >= 1.0) {
      stage.num_families = detail::count_families(log_w, families);
      stage.mean_energy = detail::weighted_mean(log_w, energies);
      r.stages.push_back(stage);
      if (options.progress) options.progress(stage);
      break;
    }

    // 4. Resampling: every chunk gathers its new replicas from the old chunks.
    if (options.resample_threshold >= 1.0 || stage.ess < options.resample_threshold) {
      RandomStream rng(seed, 0, Purpose::resample, static_cast<std::uint32_t>(k));
      const std::vector<std::size_t> idx = resample_ancestors(options.resampling, log_w, rng);
      std::vector<Batch> resampled = run_chunks(
          n, chunk, options.threads,
          [&](const ChunkRange& c) {
            Batch b = path.make_batch(c.size());
            for (std::size_t p = 0; p < c.size(); ++p) {
              const std::size_t a = idx[c.begin + p];
              b.copy_particle(batches[a / chunk], a % chunk, p);
            }
            return b;
          },
          {}, options.stop);
      batches = std::move(resampled);
      std::vector<std::size_t> families_r(n);
      for (std::size_t i = 0; i < n; ++i) families_r[i] = families[idx[i]];
      families.swap(families_r);
      std::fill(log_w.begin(), log_w.end(), -std::log(static_cast<double>(n)));
      stage.resampled = true;
      ++r.num_resamplings;
    }

    // The kernel's step at t.
    const auto target = path.at(t);
    const std::vector<KernelInfo> infos = run_chunks(
        n, chunk, options.threads,
        [&](const ChunkRange& c) {
          const auto info = step_kernel(
              kernel, target, batches[c.index],
              BatchRandom{seed, Purpose::forward_kernel, static_cast<std::uint32_t>(k), c.begin},
              options.stop);
          measure(c);
          return KernelInfo{static_cast<std::uint64_t>(info.attempted),
                            static_cast<std::uint64_t>(info.accepted)};
        },
        {}, options.stop);
    KernelInfo info;
    for (const KernelInfo& i : infos) info += i;
    r.updates += info.attempted;
    if constexpr (geometric) count_invalid(gaps);
    stage.acceptance = info.attempted == 0 ? kNaN
                                           : static_cast<double>(info.accepted) /
                                                 static_cast<double>(info.attempted);
    stage.num_families = detail::count_families(log_w, families);
    stage.mean_energy = detail::weighted_mean(log_w, energies);
    r.stages.push_back(stage);
    if (options.progress) options.progress(stage);
  }

  r.log_weights = std::move(log_w);
  r.families = std::move(families);
  r.energies = std::move(energies);
  detail::finish_population_annealing(r, log_z, capped, invalid, options);
  return r;
}

}  // namespace logz
