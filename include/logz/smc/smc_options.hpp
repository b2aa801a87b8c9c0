// The settings of adaptive tempered SMC (smc/adaptive_smc.hpp) and what a run reports. No
// tuning value needs to be given. The defaults were measured on the Bayesian regression of
// tests/unit/adaptive_smc_test.cpp (d = 50, N = 1000): cess_target 0.5 or 0.9 and decorrelation
// 1 to 4 cost about the same evaluations per SE^2; 0.9 resamples half as often, which keeps
// more Eves (the footing of the error bar), and decorrelation 2 (independent draws) gives SE
// about 0.16 in 1.3e6 gradient evaluations. (On the evidence suite's problems decorrelation 1
// costs 1.2-1.8 times fewer evaluations per SE^2 than 2: the default since 2026-12-06.) Multinomial
// resampling: with systematic resampling the genealogy error bar read low (RMS z 1.5 over 60 seeds
// of the d = 10 Gaussian, 0.93 with multinomial).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "logz/core/enum_names.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/random/default_seed.hpp"
#include "logz/smc/smc_resampling.hpp"
#include "logz/smc/whitening.hpp"

namespace logz {

class SmcJournal;  // smc/smc_journal.hpp
class Ranks;       // parallel/ranks.hpp

// The MCMC move between temperatures: HMC with fresh momentum (kernels/hmc.hpp), MALA
// (kernels/mala.hpp) or Gaussian random-walk Metropolis (gradient-free).
LOGZ_NAMED_ENUM(SmcMove, hmc, mala, random_walk);

// One temperature of a run: the reweighting that reached it, then (below t = 1) the resampling
// and the moves there.
struct SmcStage {
  double temperature = 0.0;
  double log_z_increment = 0.0;  // log sum_i W_i w_i
  double ess = 0.0;              // of the weights after reweighting, as a fraction of N
  bool resampled = false;
  int moves = 0;
  double acceptance = kNaN;  // accepted / attempted over the moves
  double step_size = kNaN;   // at the first move
  // The least of the moves' summed mean squared jumps over their spreads: positions (whitened)
  // and energy gap over `decorrelation`'s share, the tempered energy over its own
  // (detail::energy_decorrelation's) scaled to it: >= decorrelation where the moves stopped on it.
  double jump_ratio = kNaN;
  // Pareto k-hat (math/pareto_tail.hpp) of the reweighting's weights W_i w_i: a diagnostic only
  // (it stayed below 0.75 where heavy target tails made log Z read low; docs/smc.md).
  double pareto_k = kNaN;
};

struct SmcOptions {
  std::size_t num_particles = 1000;
  // The next temperature keeps the conditional ESS at this fraction of N (in (0, 1)).
  double cess_target = 0.9;
  // Resample when the ESS of the weights falls below this fraction of N (in (0, 1]).
  double resample_threshold = 0.5;
  SmcResampling resampling = SmcResampling::multinomial;

  SmcMove move = SmcMove::hmc;
  // HMC's leapfrog steps per move: at least leapfrog_steps, and enough for a trajectory of
  // trajectory_length in whitened coordinates (ceil(trajectory_length / step size)), at most
  // max_leapfrog_steps. Where the step size is small beside the particles' spread (a thin shell,
  // a curved ridge, narrow modes) five steps went nowhere: on the 2-d shells 6 of 6 seeds hit
  // max_moves undecorrelated with five, none with a length. 1.6, about a quarter period of a
  // unit Gaussian, renews the energy in one move where the 5 steps of about 0.6 each (half a
  // period) sent z to -z and left |z|: 21% fewer evaluations on the suite, the moves measured
  // by the energy too (docs/smc.md, "Trajectory length"). 0: leapfrog_steps.
  int leapfrog_steps = 2;
  double trajectory_length = 1.6;
  int max_leapfrog_steps = 50;
  // The first step size (in whitened coordinates); default: HMC d^(-1/4), MALA d^(-1/6),
  // random walk 2.38 d^(-1/2).
  std::optional<double> initial_step_size;
  // After every move the step size is multiplied by exp(acceptance - target_acceptance), kept
  // in [min_step_size, max_step_size]. Default targets: HMC 0.65, MALA 0.57, random walk 0.3.
  bool adapt_step_size = true;
  std::optional<double> target_acceptance;
  double min_step_size = 1e-6;
  double max_step_size = 1e3;
  // Moves at x = m + L z, m and L L^T the particles' weighted mean and covariance (dense: its
  // Cholesky factor; diagonal: the standard deviations; automatic: diagonal where the
  // correlations are within their sampling noise, dense otherwise; smc/whitening.hpp).
  SmcPreconditioner preconditioner = SmcPreconditioner::automatic;
  // Moves per temperature: until the weighted mean squared jump summed over the moves reaches
  // `decorrelation` times the particles' total variance (2 is the distance between two
  // independent draws), the same for the energy gap U_1 - U_0 and its variance, and for the
  // tempered energy at least as much and at least 2 (1 - 1 / sqrt(d)) times its variance
  // (detail::energy_decorrelation: in many dimensions an energy left correlated reads log Z
  // low); at least min_moves and at most max_moves (<= 1024). 1 (half way there; 2 until
  // 2026-12-06): 35-45% fewer evaluations on the suite's problems for 1-17% more SE, coverage
  // 0.95-0.97 on 600 seeded runs of four of them (docs/smc.md, "How many moves").
  double decorrelation = 1.0;
  int min_moves = 1;
  int max_moves = 50;

  // Flag heavy_tailed_target when, among the particles at t = 1, the target's energy grows by
  // less than this per unit of the base's between the middle fifth and the top tenth of U_0
  // (SmcResult::tail_energy_slope). Measured from N(0, I) at d = 36: Student-t products 0.01-0.03
  // (df 1.5, log Z 0.2 nats low), 0.08-0.18 (df 3), 0.28-0.46 (df 5); the Gaussian and regression
  // targets of adaptive_smc_test.cpp 0.23-0.33 and 1.0-2.2 (docs/smc.md). Only where the
  // particles' top tenth of U_0 lies further out than the base draws' own: a target of bounded
  // reach (a ring, two modes) under a Gaussian fitted to it is flat there with no tail to miss.
  // 0 turns the flag off.
  double heavy_tail_slope = 0.2;

  // Waste-free SMC (Dau & Chopin 2022) when > 0: at every temperature below 1, M = N /
  // waste_free_chain_length particles are resampled and each starts a chain of this many states
  // (itself and waste_free_chain_length - 1 moves), all of them kept as the N particles; the
  // moves per temperature are fixed (the decorrelation criterion and min/max_moves are not
  // used) and log Z and its error bar come from islands of chains (smc/waste_free_islands.hpp). N
  // must be a multiple of it, with M >= 2; at most 1024. 0: resample when the ESS is low and move
  // every particle (the default).
  std::size_t waste_free_chain_length = 0;

  // Temperatures in all (<= 2^20); the last one allowed jumps to t = 1 and is flagged.
  std::size_t max_temperatures = 1000;
  // A temperature whose moves accept less than this is flagged as a frozen sampler.
  double frozen_acceptance = 0.05;

  std::uint64_t seed = kDefaultSeed;
  int threads = 0;  // 0: all hardware threads
  // The first moves alternate `threads` and one thread, timed, and the run keeps the faster
  // (parallel/thread_trial.hpp): for energies that hold a lock when called (Python's GIL).
  bool choose_threads = false;
  std::size_t chunk_size = 16;  // particles per chunk of the moves (fixes the reduction order)
  // Called after every temperature with its record (t = 1 last).
  std::function<void(const SmcStage&)> progress;
  StopToken stop;  // the run stops (logz::Stopped) between chunks once it is requested
  // Where a checkpointed run records its state and finds it on resume (smc/smc_journal.hpp);
  // nullptr: not checkpointed.
  SmcJournal* journal = nullptr;
  // The ranks the run is split over (parallel/ranks.hpp); nullptr: one.
  Ranks* ranks = nullptr;
};

// InvalidArgument naming the first field out of range.
void validate(const SmcOptions& options);

struct SmcResult {
  // log(Z_target / Z_base), method "smc", se_method "genealogy" (Lee & Whiteley 2018), or
  // "waste_free_islands" for waste-free runs (smc/waste_free_islands.hpp), which are always
  // flagged error_bar_uncalibrated (docs/smc.md); flags:
  // genealogy_collapsed, variance_estimate_not_positive (SE NaN), frozen_sampler,
  // moves_not_decorrelated, too_many_temperatures, non_finite_energy, heavy_tailed_target
  // (the target's tails are heavier than the path's Gaussian ones: log Z likely reads low).
  Estimate log_z;
  double base_log_z = kNaN;
  double relative_variance = kNaN;  // of Z_hat (smc/genealogy_variance.hpp)
  std::size_t num_eves = 0;         // distinct Eve indices of weight at the end
  std::vector<SmcStage> stages;     // t_1 .. t_K = 1 (t_0 = 0 is the base)
  std::size_t num_resamplings = 0;
  // d mean U_1 / d mean U_0 from the middle fifth to the top tenth of the particles at t = 1 by
  // U_0 (detail::tail_energy_slope): near 0 for polynomial target tails.
  double tail_energy_slope = kNaN;
  // Per particle evaluations of the target: energies alone, energies with gradients and
  // gradients alone (the leapfrog's inner steps, where the target has them).
  std::uint64_t energy_evaluations = 0, gradient_evaluations = 0, gradient_only_evaluations = 0;
  Eigen::MatrixXd particles;        // d x N at t = 1
  std::vector<double> log_weights;  // normalised, one per particle
  std::vector<std::size_t> eves;

  double absolute_log_z() const { return base_log_z + log_z.log_z; }
  std::uint64_t num_evaluations() const {
    return energy_evaluations + gradient_evaluations + gradient_only_evaluations;
  }
  std::vector<double> temperatures() const;  // 0, t_1, ..., 1
};

}  // namespace logz
