// Adaptive tempered SMC along the geometric path pi_t ~ exp(-(1 - t) U_0 - t U_1) from a base
// with an exact sampler and known log Z_0 to a continuous target (paths/geometric_path.hpp):
//   1. N particles drawn exactly from the base, weights 1/N, each its own Eve;
//   2. the next temperature by bisection on the conditional ESS (smc/conditional_ess.hpp);
//   3. reweighting by w_i = exp(-(t' - t)(U_1 - U_0)(x_i)): log Z += log sum_i W_i w_i;
//   4. below t = 1: resampling (smc/smc_resampling.hpp) when the ESS falls below a fraction
//      of N, Eve indices following their particles; then MCMC moves at t' (HMC, MALA or random
//      walk), in coordinates whitened by the weighted mean and covariance of the particles
//      outside the chunk moved (smc/whitened_target.hpp), the step size adapted after every move
//      towards a target acceptance (HMC's jittered), moves repeated until their summed mean
//      squared jumps, of the positions and of the energy gap, reach a multiple of their variance;
//   5. at t = 1: log(Z_1 / Z_0) with the genealogy error bar (smc/genealogy_variance.hpp).
// Waste-free SMC (SmcOptions::waste_free_chain_length = P; Dau & Chopin 2022) replaces 4.: at
// every temperature below 1, M = N / P ancestors are resampled, whitened by the weighted
// particles before it, and each runs a chain of P - 1 moves; the M P states are the new
// particles (state j of chain c at j M + c), equally weighted. The chains form B islands that
// resample among their own particles, and log Z with its error bar comes from the islands'
// estimates (smc/waste_free_islands.hpp).
// Flags mark what makes the answer doubtful (smc/smc_options.hpp, SmcResult).
//
// Reproducible for any thread count: particles move in fixed chunks; particle i draws from its
// own Philox streams (base: (base_sample, step 0); move j at temperature k: (forward_kernel,
// step k 2^10 + j)); resampling at temperature k from (resample, step k) of particle 0; every
// sum over particles is taken in particle or chunk order. Over ranks (SmcOptions::ranks), each
// moves its block of chunks and every rank holds every particle between temperatures
// (smc/smc_ranks.hpp): the same bits for any rank count. A journal (SmcOptions::journal;
// smc/smc_journal.hpp) is handed the run's state after the base draws, after temperatures when
// it asks, and at the end; a run begun from a saved state goes on with the same bits.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/mala.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/math/pareto_tail.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/parallel/chunk_range.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/parallel/thread_trial.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/paths/tilted_path.hpp"
#include "logz/random/philox.hpp"
#include "logz/smc/conditional_ess.hpp"
#include "logz/smc/genealogy_variance.hpp"
#include "logz/smc/smc_journal.hpp"
#include "logz/smc/smc_options.hpp"
#include "logz/smc/smc_ranks.hpp"
#include "logz/smc/smc_resampling.hpp"
#include "logz/smc/smc_state.hpp"
#include "logz/smc/waste_free_islands.hpp"
#include "logz/smc/whitened_target.hpp"
#include "logz/smc/whitening.hpp"

namespace logz {

namespace detail {

// The Estimate, error bar, diagnostics and flags of a finished run (r's particles, weights,
// Eves, stages and counts filled in).
// island_log_z: a waste-free run's (SmcRunState::island_log_z), whose estimate replaces log_z
// and the genealogy's error bar; empty: none.
void finish_smc(SmcResult& r, double log_z, const SmcRunFlags& flags,
                std::span<const double> island_log_z = {});

double default_step_size(SmcMove move, int dim);
double default_target_acceptance(SmcMove move);

// U_1 - U_0 at a particle; +inf (no weight) where U_1 is +inf, and where either energy is NaN
// or -inf or U_0 is +inf, which is counted in `invalid`.
double smc_energy_gap(double u0, double u1, std::uint64_t& invalid);
// The same from U_0 and the tilt G = U_1 - U_0 (paths/tilted_path.hpp).
double smc_tilt_gap(double u0, double tilt, std::uint64_t& invalid);

// Per particle: the lowest index of the particles at exactly its position (itself, if none is
// lower): copies that resampling made and no move has separated yet share it.
std::vector<std::size_t> copy_groups(const Eigen::MatrixXd& X);
// 1 / sum over the groups of copies (copy_groups) of their total weight squared: the effective
// number of independent particles, each group counted once.
double distinct_effective_count(const std::vector<std::size_t>& group,
                                std::span<const double> weights);

// How the target's energy grows with the base's in the base's tail, from the weighted particles
// at t = 1: (mean U_1 - mean U_1') / (mean U_0 - mean U_0') between the particles of the top
// tenth of U_0 (by weight) and those of the middle fifth. NaN where U_0 does not spread.
double tail_energy_slope(const std::vector<double>& e0, const std::vector<double>& e1,
                         const std::vector<double>& log_weights);
// The weighted mean of U_0 over the particles of its top tenth (by weight), the band
// tail_energy_slope reads; NaN where no particle has a finite weight and energy.
double top_tenth_energy(const std::vector<double>& e0, const std::vector<double>& log_weights);

// The spreads the moves are measured by: the particles' total variance in whitened units, the
// energy gap's variance and the tempered energy's.
struct MoveSpreads {
  double total = 0.0, gap = 0.0, energy = 0.0;
};
// The same spreads, each taken about the mean of its own mode, where the whitened particles Z
// hold separated modes (math/separated_clusters.hpp); nullopt where they form one cluster. Moves
// cannot cross between modes far apart, and the spread between them is not theirs to renew:
// three modes of sd 0.1 to 0.2 five apart in the plane were flagged moves_not_decorrelated on
// every temperature near t = 1, right as they were (and the flagged refining run set aside).
std::optional<MoveSpreads> within_mode_spreads(const Eigen::MatrixXd& Z,
                                               std::span<const double> weights,
                                               std::span<const double> gaps,
                                               std::span<const double> energies);
// The weighted variance of the finite values of x (0 where none is finite).
double finite_weighted_variance(std::span<const double> weights, std::span<const double> x);

// What the tempered energy's jumps must reach, as a multiple of its variance, in d dimensions:
// `decorrelation` (SmcOptions), or more in many dimensions, where a correlation of the energy
// left at each temperature biases log Z low: at most 1 / sqrt(d) (0.1 at d = 100; jumps of
// 2 (1 - 1 / sqrt(d)) variances). Measured at d = 100 with moves that keep the energy's
// correlation at rho and draw the direction afresh (numpy, exact Gaussian posteriors of a
// regression, 96 temperatures, 8 seeds): rho 0.1 -0.09, 0.2 -0.04, 0.3 -0.18, 0.5 -0.48,
// 0.7 -2.4 nats; at d = 50, 0.3 -0.04; at d = 10 none to see. logz on N(0, 0.1^2 I) at d = 100
// from N(0, I), 4 seeds: -0.53 nats (no energy test), -0.29 (at most 0.25), 0.00 (0.1).
double energy_decorrelation(double decorrelation, int d);

// Moves at one temperature before the spreads are taken within modes, where the particles
// have not decorrelated by then (a clustering per temperature would cost more than the moves
// on a cheap target; most temperatures decorrelate in fewer).
constexpr int kMovesBeforeModeCheck = 4;

// HMC's leapfrog steps for a move at `step_size` (SmcOptions::trajectory_length).
int hmc_leapfrog_steps(const SmcOptions& options, double step_size);

// The stream step of move j at temperature k (k < 2^20, j < 2^10: below the top bit that
// BatchRandom::for_second_kernel sets).
inline std::uint32_t smc_move_step(std::size_t k, int j) {
  return static_cast<std::uint32_t>((k << 10) | static_cast<std::size_t>(j));
}

// A path whose cached parts are (U_0, G) with U_1 = U_0 + G (paths/tilted_path.hpp); the others'
// are (U_0, U_1).
template <class Path>
concept TiltedPathParts = Path::tilted_path;

// The tempered energy at t from a particle's two cached parts: U_0 + t G (tilted) or
// (1 - t) U_0 + t U_1.
template <class Path>
double smc_tempered_energy(double part0, double part1, double t) {
  if constexpr (TiltedPathParts<Path>)
    return part0 + t * part1;
  else
    return (1.0 - t) * part0 + t * part1;
}

// The energy gap at a particle from its two cached parts (smc_energy_gap's conventions).
template <class Path>
double smc_gap(double part0, double part1, std::uint64_t& invalid) {
  if constexpr (TiltedPathParts<Path>)
    return smc_tilt_gap(part0, part1, invalid);
  else
    return smc_energy_gap(part0, part1, invalid);
}

}  // namespace detail

// Paths SMC runs on: the geometric path (base to target) and the tilted one (base x tilt).
template <class Path>
concept SmcPath = requires(const Path& path, double t) {
  typename Path::TemperedTarget;
  { path.at(t) } -> std::same_as<typename Path::TemperedTarget>;
  { path.base_log_z() } -> std::convertible_to<double>;
};

template <class Path>
requires SmcPath<Path> SmcResult adaptive_smc(const Path& path, const SmcOptions& options) {
  validate(options);
  const int d = path.dim();
  const std::size_t n = options.num_particles, chunk = options.chunk_size;
  const std::uint64_t seed = options.seed;
  SmcResult r;
  r.base_log_z = path.base_log_z();
  TargetEvaluationCounts counts;  // this rank's, since the last share_particles
  detail::SmcRunState s;          // where the run stands
  // This rank's block of chunks and its particles; run_mine runs body(chunk) over them.
  Ranks& ranks = ranks_or_single(options.ranks);
  const std::size_t all_chunks = num_chunks(n, chunk);
  const ChunkBlock block = chunks_of_rank(all_chunks, ranks.rank(), ranks.size());
  const ChunkRange mine = items_of_block(block, n, chunk);
  // The particles the moves start from: all N, or the M chains' ancestors of a waste-free run
  // (the first M columns), and this rank's block of their chunks.
  const std::size_t chain_length = options.waste_free_chain_length;
  const bool waste_free = chain_length > 0;
  const std::size_t movers = waste_free ? n / chain_length : n;
  const ChunkBlock move_block =
      chunks_of_rank(num_chunks(movers, chunk), ranks.rank(), ranks.size());
  const ChunkRange move_mine = items_of_block(move_block, movers, chunk);
  ThreadTrial trial(options.threads, options.choose_threads);
  auto run_over = [&](const ChunkRange& items, auto&& body) {
    return run_chunks(
        items.size(), chunk, trial.threads(),
        [&](const ChunkRange& local) { return body(in_whole_run(local, items)); }, {},
        options.stop);
  };
  auto run_mine = [&](auto&& body) { return run_over(mine, body); };
  SmcJournal* const journal = options.journal;
  const SmcShape shape{n, d, chunk};
  const SmcRecord* saved = journal ? journal->begin_smc(shape) : nullptr;
  auto hand_over = [&](bool always) {
    if (!journal || !decided_by_rank0(ranks, always || journal->wants_record())) return;
    journal->record({.shape = shape,
                     .temperatures = s.stages.size(),
                     .temperature = s.t,
                     .state = detail::smc_state_bytes(s)});
  };
  if (saved) {
    // A waste-free state holds its chains and islands: resumed only by a run of the same chain
    // length, and a default state only by a default run.
    auto fits = [&] {
      if (!detail::restore_smc_state(saved->state, n, d, s)) return false;
      return waste_free ? s.chains == movers && s.island_log_z.size() == waste_free_islands(movers)
                        : s.chains == 0 && s.island_log_z.empty();
    };
    if (!true_on_every_rank(ranks, fits()))
      throw InputError(
          "--resume: the checkpoint's SMC particles do not fit the run its config gives");
  } else {
    // 1. Exact base draws, with both energies.
    s.X.resize(d, static_cast<Eigen::Index>(n));
    s.e0.resize(n), s.e1.resize(n);
    run_mine([&](const ChunkRange& c) {
      ContinuousBatch b = path.make_batch(c.size());
      path.sample_base(b, BatchRandom{seed, Purpose::base_sample, 0, c.begin});
      s.X.middleCols(static_cast<Eigen::Index>(c.begin), b.X.cols()) = b.X;
      for (std::size_t p = 0; p < c.size(); ++p) {
        s.e0[c.begin + p] = b.parts.e(0, static_cast<Eigen::Index>(p));
        s.e1[c.begin + p] = b.parts.e(1, static_cast<Eigen::Index>(p));
      }
    });
    counts.energies += mine.size();
    detail::share_particles(ranks, mine, s, counts);
    s.log_w.assign(n, -std::log(static_cast<double>(n)));
    s.base_top_u0 = detail::top_tenth_energy(s.e0, s.log_w);
    s.eves.resize(n);
    std::iota(s.eves.begin(), s.eves.end(), std::size_t{0});
    s.whitening = Whitening::identity(d);
    s.step_size = options.initial_step_size.value_or(detail::default_step_size(options.move, d));
    if (waste_free) {  // the base draws: independent, in any grouping the chains' will have
      s.chains = movers;
      s.island_log_z.assign(waste_free_islands(movers), 0.0);
    }
    hand_over(true);  // a stop before the first temperature leaves a run that resumes
  }
  Eigen::MatrixXd& X = s.X;
  std::vector<double>&e0 = s.e0, &e1 = s.e1, &log_w = s.log_w;
  std::vector<std::size_t>& eves = s.eves;
  Whitening& whitening = s.whitening;
  detail::SmcRunFlags& flags = s.flags;
  double &step_size = s.step_size, &t = s.t, &log_z = s.log_z;
  std::vector<double> gaps(n), weights(n);

  const char batches_tag = 0;  // the cache tag of the whitened targets
  // This rank's chunks' batches and their moves' starting positions (of chunk c at c -
  // block.first), kept from one temperature to the next: made afresh, their arrays (d x chunk,
  // 80 KB at d = 100) went back to the system and came again as page faults at every temperature.
  std::vector<ContinuousBatch> batches;
  std::vector<Eigen::MatrixXd> move_starts;
  const double target_acceptance =
      options.target_acceptance.value_or(detail::default_target_acceptance(options.move));
  while (t < 1.0) {
    const std::size_t k = s.stages.size() + 1;  // the temperature being reached
    for (std::size_t i = 0; i < n; ++i)
      gaps[i] = detail::smc_gap<Path>(e0[i], e1[i], flags.invalid_energies);

    // 2.-3. The next temperature and the reweighting.
    double t_next = next_temperature(log_w, gaps, t, options.cess_target);
    if (k >= options.max_temperatures && t_next < 1.0) {
      flags.capped = true;
      t_next = 1.0;
    }
    std::vector<double> log_inc(n);
    for (std::size_t i = 0; i < n; ++i) log_inc[i] = log_incremental_weight(t_next - t, gaps[i]);
    // Waste-free: the weights are equal here (after the base draws and after every move).
    if (waste_free) add_island_increments(log_inc, s.chains, s.island_log_z);
    const double increment = reweight(log_w, log_inc, "logz::adaptive_smc", t_next);
    log_z += increment;
    t = t_next;
    SmcStage stage;
    stage.temperature = t;
    stage.log_z_increment = increment;
    stage.ess = ess_fraction(log_w);
    stage.pareto_k = pareto_k_hat(log_w);  // the shape of the new weights' tail
    if (t >= 1.0) {
      s.stages.push_back(stage);
      if (options.progress) options.progress(stage);
      hand_over(true);
      break;
    }

    // Waste-free: whitened by the weighted particles before they are resampled (all N of them).
    if (waste_free) {
      for (std::size_t i = 0; i < n; ++i) weights[i] = std::exp(log_w[i]);
      whitening = Whitening::of_particles(X, weights, options.preconditioner, whitening);
    }
    // The particles' total variance in whitened units, what the moves' jumps are measured by,
    // and the spreads of the energy gap and of the tempered energy, which the moves must also
    // renew: HMC on a near-Gaussian target can jump far while its energy barely changes
    // (trajectories near half a period), and the gap alone can move by its linear part while
    // the energy stays (a 100-d regression under a narrow prior: coordinates decorrelated, the
    // energy's correlation 0.5 per temperature, log Z 0.35-0.95 low). Taken before a
    // waste-free run's resampling; otherwise after any resampling, over the resampled
    // particles (the population the moves start from).
    auto tempered_energies = [&] {
      std::vector<double> energies(n);
      for (std::size_t i = 0; i < n; ++i)
        energies[i] = detail::smc_tempered_energy<Path>(e0[i], e1[i], t);
      return energies;
    };
    auto spreads = [&] {
      return detail::MoveSpreads{whitening.whitened_total_variance(X, weights),
                                 detail::finite_weighted_variance(weights, gaps),
                                 detail::finite_weighted_variance(weights, tempered_energies())};
    };
    detail::MoveSpreads spread;
    if (waste_free) spread = spreads();

    // 4. Resampling: all N when the ESS is low, or a waste-free run's M ancestors always.
    if (waste_free) {
      RandomStream rng(seed, 0, Purpose::resample, static_cast<std::uint32_t>(k));
      const std::vector<std::size_t> idx =
          island_ancestors(options.resampling, log_w, movers, s.island_log_z.size(), rng);
      Eigen::MatrixXd ancestors(X.rows(), static_cast<Eigen::Index>(movers));
      std::vector<double> e0r(movers), e1r(movers);
      std::vector<std::size_t> eves_r(movers);
      for (std::size_t c = 0; c < movers; ++c) {
        ancestors.col(static_cast<Eigen::Index>(c)) = X.col(static_cast<Eigen::Index>(idx[c]));
        e0r[c] = e0[idx[c]], e1r[c] = e1[idx[c]], eves_r[c] = eves[idx[c]];
      }
      X.leftCols(static_cast<Eigen::Index>(movers)) = ancestors;
      for (std::size_t i = 0; i < n; ++i) eves[i] = eves_r[i % movers];
      std::copy(e0r.begin(), e0r.end(), e0.begin()), std::copy(e1r.begin(), e1r.end(), e1.begin());
      std::fill(log_w.begin(), log_w.end(), -std::log(static_cast<double>(n)));
      stage.resampled = true;
      ++s.num_resamplings;
    } else if (stage.ess < options.resample_threshold) {
      RandomStream rng(seed, 0, Purpose::resample, static_cast<std::uint32_t>(k));
      const std::vector<std::size_t> idx = resample_ancestors(options.resampling, log_w, rng);
      Eigen::MatrixXd resampled(X.rows(), X.cols());
      std::vector<double> e0r(n), e1r(n), gaps_r(n);
      std::vector<std::size_t> eves_r(n);
      for (std::size_t i = 0; i < n; ++i) {
        resampled.col(static_cast<Eigen::Index>(i)) = X.col(static_cast<Eigen::Index>(idx[i]));
        e0r[i] = e0[idx[i]], e1r[i] = e1[idx[i]], eves_r[i] = eves[idx[i]];
        gaps_r[i] = gaps[idx[i]];
      }
      X.swap(resampled), e0.swap(e0r), e1.swap(e1r), eves.swap(eves_r), gaps.swap(gaps_r);
      std::fill(log_w.begin(), log_w.end(), -std::log(static_cast<double>(n)));
      stage.resampled = true;
      ++s.num_resamplings;
    }

    // 5. Moves at t, in whitened coordinates: each chunk whitened by the particles outside it
    // and their copies (Whitening::without), with or without constraints (a box prior's faces
    // are made in z per chunk); all alike for waste-free chains (whitened before their
    // ancestors were drawn). A whitening made with the moved particles themselves makes the
    // move depend on them: a box prior shared one until 2026-12-06, and a Gaussian likelihood
    // on U[-6, 6]^100 read 0.5-1.7 nats low (docs/smc.md).
    if (!waste_free) {
      for (std::size_t i = 0; i < n; ++i) weights[i] = std::exp(log_w[i]);
      whitening = Whitening::of_particles(X, weights, options.preconditioner, whitening);
      spread = spreads();
    }
    const std::vector<std::size_t> group =
        waste_free ? std::vector<std::size_t>{} : detail::copy_groups(X);
    if (!waste_free) whitening.effective_count = detail::distinct_effective_count(group, weights);
    // The weight of a moved particle's jump: its own, or 1/M for a chain.
    auto move_weight = [&](std::size_t i) {
      return waste_free ? 1.0 / static_cast<double>(movers) : weights[i];
    };
    using Whitened = WhitenedTarget<typename Path::TemperedTarget>;
    // The whitened targets' cache tag: a batch's parts are set afresh at every temperature
    // (energies only, has_grad false), so the kept batches never read a stale gradient.
    const void* const tag = &batches_tag;
    // This rank's chunks' whitenings (of chunk c at c - block.first).
    std::vector<Whitening> chunk_whitenings(move_block.size());
    // Made once per temperature: a whitened target with constraints holds them in z (A L, and
    // A L (A L)^T for the billiard), O(m d^2) to make.
    std::vector<std::optional<Whitened>> chunk_targets(move_block.size());
    bool batches_fit = batches.size() == move_block.size();
    for (std::size_t c = move_block.first; batches_fit && c < move_block.last; ++c)
      batches_fit =
          batches[c - move_block.first].num_particles() == chunk_range(c, movers, chunk).size();
    if (!batches_fit) {
      batches.clear();
      batches.reserve(move_block.size());
      for (std::size_t c = move_block.first; c < move_block.last; ++c)
        batches.emplace_back(d, chunk_range(c, movers, chunk).size());
      move_starts.assign(move_block.size(), Eigen::MatrixXd());
    }
    auto chunk_target = [&](std::size_t c) -> const Whitened& {
      return *chunk_targets[c - move_block.first];
    };
    // A chunk's moved particles back in original coordinates, at `offset` + their index.
    auto store = [&](std::size_t c, std::size_t offset) {
      ContinuousBatch& b = batches[c - move_block.first];
      const ChunkRange range = chunk_range(c, movers, chunk);
      const Whitened& target = chunk_target(c);
      if (!parts_valid_for(target, b.parts, false)) evaluate_parts(target, b.X, b.parts, false);
      Eigen::MatrixXd x;
      target.to_original(b.X, x);
      X.middleCols(static_cast<Eigen::Index>(offset + range.begin), x.cols()) = x;
      for (std::size_t p = 0; p < range.size(); ++p) {
        e0[offset + range.begin + p] = b.parts.e(0, static_cast<Eigen::Index>(p));
        e1[offset + range.begin + p] = b.parts.e(1, static_cast<Eigen::Index>(p));
      }
    };
    run_over(move_mine, [&](const ChunkRange& range) {
      if (waste_free) {
        chunk_whitenings[range.index - move_block.first] = whitening;
      } else {
        // The chunk's particles and every copy of them sit out of their own whitening (a mark
        // per group: one pass over the particles; a search per particle was 6% of logz's own
        // time on a cheap likelihood, rotated-d10).
        std::vector<char> out(n, 0);
        for (std::size_t i = range.begin; i < range.end; ++i) out[group[i]] = 1;
        std::vector<std::size_t> excluded;
        for (std::size_t i = 0; i < n; ++i)
          if (out[group[i]]) excluded.push_back(i);
        chunk_whitenings[range.index - move_block.first] = whitening.without(X, weights, excluded);
      }
      chunk_targets[range.index - move_block.first].emplace(
          path.at(t), chunk_whitenings[range.index - move_block.first], tag, counts);
      const auto begin = static_cast<Eigen::Index>(range.begin);
      const auto size = static_cast<Eigen::Index>(range.size());
      ContinuousBatch& b = batches[range.index - move_block.first];
      chunk_target(range.index).to_whitened(X.middleCols(begin, size), b.X);
      b.parts.e.resize(2, size);
      for (Eigen::Index p = 0; p < size; ++p) {
        b.parts.e(0, p) = e0[range.begin + static_cast<std::size_t>(p)];
        b.parts.e(1, p) = e1[range.begin + static_cast<std::size_t>(p)];
      }
      b.parts.num_parts = 2, b.parts.has_grad = false, b.parts.has_energy = true, b.parts.tag = tag;
    });
    stage.step_size = step_size;
    double jump = 0.0, gap_jump = 0.0, energy_jump = 0.0;
    const double energy_decorrelation = detail::energy_decorrelation(options.decorrelation, d);
    auto decorrelated = [&] {
      return jump >= options.decorrelation * spread.total &&
             gap_jump >= options.decorrelation * spread.gap &&
             energy_jump >= energy_decorrelation * spread.energy;
    };
    bool modes_checked = false;
    auto measure_within_modes = [&] {
      modes_checked = true;
      Eigen::MatrixXd Z;
      whitening.to_whitened(X, Z);
      if (const auto within = detail::within_mode_spreads(Z, weights, gaps, tempered_energies()))
        spread = *within;
    };
    ContinuousKernelInfo stage_info;
    const int max_moves = waste_free ? static_cast<int>(chain_length) - 1 : options.max_moves;
    for (int j = 0; j < max_moves; ++j) {
      // HMC's step size is jittered by a factor in (0.5, 1.5) from a stream of the move's own,
      // so that no trajectory length stays in step with a period of the target.
      RandomStream jitter(seed, 1, Purpose::resample, detail::smc_move_step(k, j));
      const double eps =
          options.move == SmcMove::hmc ? step_size * (0.5 + jitter.uniform()) : step_size;
      auto step = [&](const Whitened& target, ContinuousBatch& b, const BatchRandom& random) {
        switch (options.move) {
          case SmcMove::mala:
            return Mala(eps).step(target, b, random);
          case SmcMove::random_walk:
            return RandomWalkMetropolis(eps, 1).step(target, b, random);
          case SmcMove::hmc:
            break;
        }
        return Hmc(eps, detail::hmc_leapfrog_steps(options, step_size)).step(target, b, random);
      };
      const auto moved = gather_in_rank_order(ranks, trial.timed([&] {
        return run_over(move_mine, [&](const ChunkRange& c) {
          ContinuousBatch& b = batches[c.index - move_block.first];
          Eigen::MatrixXd& start = move_starts[c.index - move_block.first];
          start = b.X;
          auto gap_at = [&](Eigen::Index p) {
            if constexpr (detail::TiltedPathParts<Path>) return b.parts.e(1, p);
            return b.parts.e(1, p) - b.parts.e(0, p);
          };
          auto energy_at = [&](Eigen::Index p) {
            return detail::smc_tempered_energy<Path>(b.parts.e(0, p), b.parts.e(1, p), t);
          };
          Eigen::VectorXd start_gap(start.cols()), start_energy(start.cols());
          for (Eigen::Index p = 0; p < start.cols(); ++p)
            start_gap(p) = gap_at(p), start_energy(p) = energy_at(p);
          detail::SmcChunkMove out;
          out.info = step(
              chunk_target(c.index), b,
              BatchRandom{seed, Purpose::forward_kernel, detail::smc_move_step(k, j), c.begin});
          for (Eigen::Index p = 0; p < start.cols(); ++p) {
            const double w = move_weight(c.begin + static_cast<std::size_t>(p));
            out.weighted_jump += w * (b.X.col(p) - start.col(p)).squaredNorm();
            const double gap = gap_at(p);
            if (std::isfinite(gap) && std::isfinite(start_gap(p)))
              out.weighted_gap_jump += w * (gap - start_gap(p)) * (gap - start_gap(p));
            const double u = energy_at(p);
            if (std::isfinite(u) && std::isfinite(start_energy(p)))
              out.weighted_energy_jump += w * (u - start_energy(p)) * (u - start_energy(p));
          }
          if (waste_free) store(c.index, static_cast<std::size_t>(j + 1) * movers);
          return out;
        });
      }));
      ContinuousKernelInfo info;
      for (const detail::SmcChunkMove& m : moved)
        info += m.info, jump += m.weighted_jump, gap_jump += m.weighted_gap_jump,
            energy_jump += m.weighted_energy_jump;
      stage_info += info;
      ++stage.moves;
      if (options.adapt_step_size && info.attempted > 0) {
        const double acceptance =
            static_cast<double>(info.accepted) / static_cast<double>(info.attempted);
        step_size = std::clamp(step_size * std::exp(acceptance - target_acceptance),
                               options.min_step_size, options.max_step_size);
      }
      if (!waste_free && !modes_checked && stage.moves >= detail::kMovesBeforeModeCheck &&
          !decorrelated())
        measure_within_modes();
      if (!waste_free && stage.moves >= options.min_moves && decorrelated()) break;
    }
    if (!waste_free && !modes_checked && !decorrelated()) measure_within_modes();
    // The least of the three, each as a multiple of its own threshold's share of decorrelation.
    stage.jump_ratio = jump / spread.total;
    if (spread.gap > 0.0) stage.jump_ratio = std::min(stage.jump_ratio, gap_jump / spread.gap);
    if (spread.energy > 0.0 && energy_decorrelation > 0.0)
      stage.jump_ratio =
          std::min(stage.jump_ratio,
                   energy_jump / spread.energy * options.decorrelation / energy_decorrelation);
    // A waste-free run's chains keep their correlation, which its error bar sees.
    if (!waste_free && !decorrelated()) flags.not_decorrelated = true;
    stage.acceptance = stage_info.attempted == 0 ? kNaN
                                                 : static_cast<double>(stage_info.accepted) /
                                                       static_cast<double>(stage_info.attempted);
    if (!(stage.acceptance >= options.frozen_acceptance)) flags.frozen = true;
    flags.rejected_non_finite += stage_info.non_finite;
    if (waste_free) {
      // Every rank's chains' states, state j of the chains at j M (the ancestors are shared).
      for (std::size_t j = 1; j < chain_length; ++j)
        detail::share_particles(
            ranks, {0, j * movers + move_mine.begin, j * movers + move_mine.end}, s, counts);
    } else {
      for (std::size_t c = block.first; c < block.last; ++c) store(c, 0);
      detail::share_particles(ranks, mine, s, counts);
    }
    s.stages.push_back(stage);
    if (options.progress) options.progress(stage);
    hand_over(false);
  }

  // A target whose energy barely grows where the base's does has heavier tails than any
  // temperature below 1 (Gaussian tails): the particles never reach the mass out there, and the
  // last reweighting has weights of infinite variance; log Z reads low, unseen by the error bar.
  if constexpr (detail::TiltedPathParts<Path>)
    for (std::size_t i = 0; i < n; ++i) e1[i] += e0[i];  // U_1 = U_0 + G
  // Only where the target's particles reach further into the base's tail than the base's own
  // draws do: a target of bounded reach (a ring, two modes) under a Gaussian fitted to it has a
  // flat U_1 across the top of U_0 without any tail to miss (the shells' refining runs were set
  // aside for it on 2 of 12 seeds, right).
  r.tail_energy_slope = detail::tail_energy_slope(e0, e1, log_w);
  flags.heavy_tails = options.heavy_tail_slope > 0.0 &&
                      r.tail_energy_slope < options.heavy_tail_slope &&
                      !(detail::top_tenth_energy(e0, log_w) <= s.base_top_u0);
  r.stages = std::move(s.stages);
  r.num_resamplings = s.num_resamplings;
  r.energy_evaluations = s.energies;
  r.gradient_evaluations = s.gradients;
  r.gradient_only_evaluations = s.gradients_alone;
  r.particles = std::move(X);
  r.log_weights = std::move(log_w);
  r.eves = std::move(eves);
  detail::finish_smc(r, log_z, flags, s.island_log_z);
  return r;
}

}  // namespace logz
