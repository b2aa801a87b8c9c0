// Population annealing (Hukushima & Iba 2003; Machta 2010; Wang, Machta & Katzgraber 2015) for
// the discrete models: a population of R replicas carried along an annealing path
// (core/annealing_path.hpp: the lattice models' path over beta, U_t = t beta E, or a path around
// a transition such as PottsFieldPath) by the same kernels the annealer applies
// (core/kernel_for.hpp):
//   1. R replicas drawn exactly from the base (t = 0), weights 1/R, each the founder of its
//      own family;
//   2. the next temperature from the conditional ESS (smc/conditional_ess.hpp): on a
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
// Over ranks (options.ranks) every rank holds every replica and steps the kernel on its block of
// chunks; after each step the blocks' replicas, energies and gaps are gathered to every rank, which
// then reweights and resamples alike (a path that is not geometric computes its increments on
// every rank). A journal (options.journal; smc/smc_journal.hpp) is handed the run's state and
// replicas after the base draws, after temperatures when it asks, and at the end.
//
// Reproducible for any thread and rank count: replicas live in fixed chunks (chunk_size; a multiple
// of 64 for the multi-spin kernels, whose groups draw from the stream of their first lane); replica
// i draws from its own Philox streams: base (base_sample, step 0), the kernel at temperature k
// (forward_kernel, step k); resampling at temperature k from (resample, step k) of replica 0; every
// sum over replicas is taken in replica or chunk order.
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

#include "logz/anneal/applied_kernel.hpp"
#include "logz/core/annealing_path.hpp"
#include "logz/core/batch_state.hpp"
#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/kernels/kernel_info.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/parallel/bytes.hpp"
#include "logz/parallel/chunk_range.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/random/philox.hpp"
#include "logz/smc/conditional_ess.hpp"
#include "logz/smc/population_state.hpp"
#include "logz/smc/smc_journal.hpp"
#include "logz/smc/smc_resampling.hpp"

namespace logz {

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
  // Where a checkpointed run records its state and finds it on resume (smc/smc_journal.hpp);
  // nullptr: not checkpointed.
  SmcJournal* journal = nullptr;
  // The ranks the run is split over (parallel/ranks.hpp); nullptr: one.
  Ranks* ranks = nullptr;
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

namespace detail {

// The run, compiled once per path: the kernel comes type-erased (anneal/applied_kernel.hpp).
template <AnnealingPath Path>
requires ResamplableBatch<typename Path::Batch> PopulationAnnealingResult
population_annealing(const Path& path, const AppliedKernel<Path>& kernel,
                     const PopulationAnnealingOptions& options) {
  using Batch = typename Path::Batch;
  validate(options);
  const std::size_t n = options.num_replicas, chunk = options.chunk_size;
  const std::size_t chunks = num_chunks(n, chunk);
  const std::uint64_t seed = options.seed;
  PopulationAnnealingResult r;
  if constexpr (requires { path.base_log_z(); }) r.base_log_z = path.base_log_z();
  constexpr bool geometric = is_geometric_path<Path>;
  // Replicas that can be saved (and sent to other ranks) as bytes.
  constexpr bool checkpointable = CheckpointableBatch<Batch>;
  Ranks& ranks = ranks_or_single(options.ranks);
  if (!checkpointable && (options.journal || ranks.size() > 1))
    fail_argument("logz::population_annealing", "journal",
                  "no journal and one rank for replicas that cannot be saved");

  // Every rank holds every replica; each steps the kernel on its block of chunks (mine).
  const ChunkBlock block = chunks_of_rank(chunks, ranks.rank(), ranks.size());
  const ChunkRange mine = items_of_block(block, n, chunk);
  auto run_mine = [&](auto&& body) {
    return run_chunks(
        mine.size(), chunk, options.threads,
        [&](const ChunkRange& local) { return body(in_whole_run(local, mine)); }, {}, options.stop);
  };
  detail::PopulationRunState s;  // where the run stands, but for the replicas
  std::vector<Batch> batches;
  batches.reserve(chunks);
  for (std::size_t c = 0; c < chunks; ++c)
    batches.push_back(path.make_batch(chunk_range(c, n, chunk).size()));
  std::vector<double>&gaps = s.gaps, &energies = s.energies, &log_w = s.log_w;
  std::vector<std::size_t>& families = s.families;
  gaps.resize(geometric ? n : 0), energies.resize(n);
  std::vector<double> inc(n), log_inc(n);
  // The trace energies and (geometric path) the gaps g = U_1 - U_0 of a chunk's replicas: there
  // U_t' - U_t = (t' - t) g.
  auto measure = [&](const ChunkRange& c) {
    if constexpr (geometric)
      path.work_increment(0.0, 1.0, batches[c.index],
                          std::span<double>(gaps).subspan(c.begin, c.size()));
    path.trace_energy(batches[c.index], std::span<double>(energies).subspan(c.begin, c.size()));
  };
  // Every rank's block of replicas, with their energies and gaps, onto every rank.
  auto share = [&] {
    if constexpr (checkpointable) {
      if (ranks.size() == 1) return;
      std::string bytes;
      for (std::size_t c = block.first; c < block.last; ++c)
        append_blob(bytes, batch_state_bytes(batches[c]));
      append_bytes<double>(bytes,
                           std::span<const double>(energies).subspan(mine.begin, mine.size()));
      append_bytes<double>(bytes, std::span<const double>(gaps).subspan(
                                      geometric ? mine.begin : 0, geometric ? mine.size() : 0));
      const std::vector<std::string> all = ranks.all_gather(bytes);
      for (int q = 0; q < ranks.size(); ++q) {
        if (q == ranks.rank()) continue;
        const ChunkBlock theirs = chunks_of_rank(chunks, q, ranks.size());
        const ChunkRange items = items_of_block(theirs, n, chunk);
        ByteReader in(all[static_cast<std::size_t>(q)]);
        for (std::size_t c = theirs.first; c < theirs.last; ++c)
          if (!restore_batch_state(batches[c], in.blob()))
            fail_argument("logz::population_annealing", "ranks", "replicas of one shape");
        in.read<double>(std::span<double>(energies).subspan(items.begin, items.size()));
        in.read<double>(std::span<double>(gaps).subspan(geometric ? items.begin : 0,
                                                        geometric ? items.size() : 0));
      }
    }
  };
  auto count_invalid = [&](std::span<const double> values) {
    for (double v : values) s.invalid += std::isnan(v) || (std::isinf(v) && v < 0.0);
  };

  SmcJournal* const journal = options.journal;
  const SmcShape shape{n, 0, chunk};
  const SmcRecord* saved = journal ? journal->begin_smc(shape) : nullptr;
  auto hand_over = [&](bool always) {
    if constexpr (checkpointable) {
      if (!journal || !decided_by_rank0(ranks, always || journal->wants_record())) return;
      std::vector<std::string> states;
      for (const Batch& b : batches) states.push_back(batch_state_bytes(b));
      journal->record({.shape = shape,
                       .temperatures = s.stages.size(),
                       .temperature = s.t,
                       .state = detail::population_state_bytes(s, states)});
    }
  };
  if (saved) {
    bool fits = false;
    if constexpr (checkpointable) {
      std::vector<std::string> states;
      fits = detail::restore_population_state(saved->state, n, chunks, geometric, s, states);
      for (std::size_t c = 0; fits && c < chunks; ++c)
        fits = restore_batch_state(batches[c], states[c]);
    }
    if (!true_on_every_rank(ranks, fits))  // every rank throws: one error line
      throw InputError(
          "--resume: the checkpoint's population annealing replicas do not fit the run its "
          "config gives");
  } else {
    // 1. Exact base draws, their trace energies and gaps.
    run_mine([&](const ChunkRange& c) {
      path.sample_base(batches[c.index], BatchRandom{seed, Purpose::base_sample, 0, c.begin});
      measure(c);
    });
    share();
    log_w.assign(n, -std::log(static_cast<double>(n)));
    families.resize(n);
    std::iota(families.begin(), families.end(), std::size_t{0});
    if constexpr (geometric) count_invalid(gaps);
    hand_over(true);  // a stop before the first temperature leaves a run that resumes
  }

  double &t = s.t, &log_z = s.log_z;
  // inc[i] = U_{t_to}(x_i) - U_t(x_i) (a path that is not geometric; on every rank alike).
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
    const std::size_t k = s.stages.size() + 1;  // the temperature being reached
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
    if (k >= options.max_temperatures && t_next < 1.0) s.capped = true, t_next = 1.0;
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
      s.stages.push_back(stage);
      if (options.progress) options.progress(stage);
      hand_over(true);
      break;
    }

    // 4. Resampling: every chunk gathers its new replicas from the old chunks (on every rank).
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
      ++s.num_resamplings;
    }

    // The kernel's step at t, each rank on its block.
    const auto target = path.at(t);
    const std::vector<KernelInfo> infos = gather_in_rank_order(
        ranks, run_mine([&](const ChunkRange& c) {
          const KernelInfo info = kernel.step(
              target, batches[c.index],
              BatchRandom{seed, Purpose::forward_kernel, static_cast<std::uint32_t>(k), c.begin},
              options.stop);
          measure(c);
          return info;
        }));
    share();
    KernelInfo info;
    for (const KernelInfo& i : infos) info += i;
    s.updates += info.attempted;
    if constexpr (geometric) count_invalid(gaps);
    stage.acceptance = info.attempted == 0 ? kNaN
                                           : static_cast<double>(info.accepted) /
                                                 static_cast<double>(info.attempted);
    stage.num_families = detail::count_families(log_w, families);
    stage.mean_energy = detail::weighted_mean(log_w, energies);
    s.stages.push_back(stage);
    if (options.progress) options.progress(stage);
    hand_over(false);
  }

  r.stages = std::move(s.stages);
  r.num_resamplings = s.num_resamplings;
  r.updates = s.updates;
  r.log_weights = std::move(log_w);
  r.families = std::move(families);
  r.energies = std::move(energies);
  detail::finish_population_annealing(r, log_z, s.capped, s.invalid, options);
  return r;
}

}  // namespace detail

template <AnnealingPath Path, KernelFor<Path> Kernel>
requires ResamplableBatch<typename Path::Batch> PopulationAnnealingResult population_annealing(
    const Path& path, const Kernel& kernel, const PopulationAnnealingOptions& options) {
  return detail::population_annealing(path, detail::AppliedKernel<Path>(kernel), options);
}

}  // namespace logz
