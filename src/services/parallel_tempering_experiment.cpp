#include "logz/services/parallel_tempering_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "logz/config/memory_guard.hpp"
#include "logz/estimators/stepping_stone.hpp"
#include "logz/services/annealing_flags.hpp"
#include "logz/services/estimators.hpp"
#include "logz/tempering/ladder.hpp"

namespace logz {

namespace {

// The tempered estimators that read only the recorded samples and the TI sums (RTS, TS and
// TI-RB need simulated tempering's level probabilities, which parallel tempering has not).
const std::vector<std::string> kPtEstimators = {"stepping_stone", "ti_trapezoid", "ti_riemann",
                                                "ti_corrected", "mbar"};

const ParallelTemperingOptions kPtDefaults{};
const Key kPtReplicas =
    Key::integer("num_replicas", static_cast<std::int64_t>(kPtDefaults.num_replicas), 0, 1 << 16,
                 "replicas per chain, both ends included; 0: max(8, ceil(2 Lambda) + 1) after "
                 "every round, from the measured global barrier Lambda");
const Key kPtInitialReplicas =
    Key::integer("initial_replicas", static_cast<std::int64_t>(kPtDefaults.initial_replicas), 2,
                 1 << 16, "num_replicas = 0: the first round's replicas (linear in t)");
const Key kPtMaxReplicas =
    Key::integer("max_replicas", static_cast<std::int64_t>(kPtDefaults.max_replicas), 2, 1 << 16,
                 "num_replicas = 0: the most replicas the choice takes");
const Key kPtRounds = Key::integer(
    "rounds", static_cast<std::int64_t>(kPtDefaults.rounds), 1, 24,
    "R: round r has 2^r scans; the ladder adapts after each; the last round gives the estimates");
const Key kPtChains =
    Key::integer("num_chains", static_cast<std::int64_t>(kPtDefaults.num_chains), 1, 1 << 20,
                 "independent parallel tempering runs (their spread gives the error bars)");
const Key kPtBlocks = Key::integer(
    "blocks_per_chain", static_cast<std::int64_t>(kPtDefaults.blocks_per_chain), 1, 1 << 20,
    "blocks of consecutive scans per chain in the last round: the jackknife's groups");
const Key kPtScheme = Key::enumeration(
    "scheme", kPtDefaults.scheme,
    "nonreversible (deterministic even-odd swaps) or reversible (stochastic even-odd)");
const Key kPtChunk = Key::integer("chunk_size", static_cast<std::int64_t>(kPtDefaults.chunk_size),
                                  1, 1 << 20, "chains moved together (fixes the order of sums)");
// TI on request only: on a ladder placed for swaps its rule's bias is many error bars (flagged).
const Key kPtEstimatorsKey = Key::string_list(
    "estimators", std::vector<std::string>{"stepping_stone", "mbar"}, kPtEstimators,
    "tempered estimators on the last round's samples (the first is the table's first row)");
const Key kPtTargetSamples = Key::integer(
    "target_samples", static_cast<std::int64_t>(kPtDefaults.target_samples), 0, 1 << 20,
    "about this many positions of the target replica from the last round (continuous models), "
    "evenly spaced over scans and chains, into details.pt.target_samples; 0: none");
const KeyGroup kPtKeys{"pt",
                       "parallel tempering",
                       {&kPtReplicas, &kPtInitialReplicas, &kPtMaxReplicas, &kPtRounds, &kPtChains,
                        &kPtBlocks, &kPtScheme, &kPtChunk, &kPtEstimatorsKey, &kPtTargetSamples}};

// The midpoints of the last round's pairs.
std::vector<double> midpoints(std::span<const double> t) {
  std::vector<double> out;
  for (std::size_t k = 0; k + 1 < t.size(); ++k) out.push_back(0.5 * (t[k] + t[k + 1]));
  return out;
}

}  // namespace

const KeyGroup& parallel_tempering_keys() { return kPtKeys; }

ParallelTemperingSettings read_parallel_tempering_settings(Config& config, double bytes_per_replica,
                                                           bool level_energies) {
  const SeedAndThreads run = read_seed_and_threads(config);
  auto s = config.section("pt");
  s.check_known({&kPtKeys});
  ParallelTemperingSettings out;
  ParallelTemperingOptions& o = out.options;
  o.seed = run.seed;
  o.threads = run.threads;
  o.num_replicas = static_cast<std::size_t>(s.get_int(kPtReplicas));
  if (o.num_replicas == 1) s.fail(kPtReplicas, "0 (chosen from the barrier) or at least 2, got 1");
  o.initial_replicas = static_cast<std::size_t>(s.get_int(kPtInitialReplicas));
  o.max_replicas = static_cast<std::size_t>(s.get_int(kPtMaxReplicas));
  o.rounds = static_cast<std::size_t>(s.get_int(kPtRounds));
  o.num_chains = static_cast<std::size_t>(s.get_int(kPtChains));
  o.blocks_per_chain = static_cast<std::size_t>(s.get_int(kPtBlocks));
  if (o.blocks_per_chain > (std::size_t{1} << o.rounds))
    s.fail(kPtBlocks, fmt::format("at most the last round's 2^rounds = {} scans, got {}",
                                  std::size_t{1} << o.rounds, o.blocks_per_chain));
  o.scheme = s.get_enum<SwapScheme>(kPtScheme);
  o.chunk_size = static_cast<std::size_t>(s.get_int(kPtChunk));
  out.estimators = s.get_string_list(kPtEstimatorsKey);
  o.target_samples = static_cast<std::size_t>(s.get_int(kPtTargetSamples));
  if (out.estimators.empty()) s.fail(kPtEstimatorsKey, "at least one estimator");
  // The replicas (and a copy while the ladder changes), the last round's samples (16 bytes each:
  // g, level and chain; on a path with level energies also every level's energy) and the
  // target's positions. With the ladder chosen from Lambda the check counts the fewest replicas
  // it takes, and the run keeps the last ladder's samples within the same budget.
  const std::size_t replicas =
      o.num_replicas ? o.num_replicas : std::min(kMinAutoReplicas, o.max_replicas);
  const std::size_t last_scans = std::size_t{1} << o.rounds;
  o.max_sample_bytes = memory_budget_bytes();
  check_fits_in_memory(
      s, o.num_replicas ? kPtReplicas : kPtMaxReplicas,
      static_cast<double>(o.num_chains) * static_cast<double>(replicas) * 2.0 * bytes_per_replica +
          detail::last_round_sample_bytes(o, replicas, last_scans, level_energies) +
          static_cast<double>(o.target_samples) * bytes_per_replica,
      "the replicas, the last round's samples and the target's positions");
  return out;
}

void record_parallel_tempering_result(const ParallelTemperingResult& r,
                                      const ParallelTemperingSettings& s, const std::string& unit,
                                      bool check_acceptance, const ProgressFn& progress,
                                      RunResult& result) {
  const ParallelTemperingOptions& o = s.options;
  const PtRound& last = r.last();
  const TemperingLadder ladder{Schedule(last.schedule, "parallel tempering's ladder")};
  // MBAR's warm start: stepping stone's point estimate per level (one pass, no error bars).
  const LadderEstimates warm = stepping_stone(r.stats, ladder.fractions(), 1);
  result.tempering = TemperingSummary{};
  TemperingSummary& t = *result.tempering;
  t.initialization = "none";
  t.num_chains = o.num_chains;
  t.num_sweeps = last.scans;
  t.ladder = last.schedule;
  t.counts = r.stats.counts();
  t.level_acceptance = r.stats.kernel_level_acceptance();
  t.kernel_acceptance = r.stats.kernel_acceptance();
  t.mean_energy = r.stats.mean_energy();
  const double rate = r.round_trip_rate(o.num_chains);
  // The replica whose kernel accepted least, when it froze (the annealing rule).
  std::optional<std::size_t> frozen;
  if (check_acceptance)
    for (std::size_t k = 0; k < t.level_acceptance.size(); ++k)
      if (r.stats.level_attempted[k] >= kFrozenMinAttempts &&
          t.level_acceptance[k] < kFrozenAcceptance &&
          (!frozen || t.level_acceptance[k] < t.level_acceptance[*frozen]))
        frozen = k;
  for (std::size_t i = 0; i < s.estimators.size(); ++i) {
    const std::string& m = s.estimators[i];
    report_estimator_progress(progress, s.estimators, i);
    LadderEstimates e =
        run_tempered_estimator(m, r.stats, ladder, warm.log_z, warm, o.threads, o.stop);
    Estimate& est = e.last;
    // Fewer round trips than chains: the chains may not have visited every mode of the target.
    if (last.round_trips < o.num_chains) est.diagnostics.add_flag("few_round_trips");
    if (r.non_finite > 0) est.diagnostics.add_flag("non_finite_energy");
    if (frozen) {
      // The frozen replicas' samples are those of their starts: the estimate's error is not in
      // its error bar.
      est.diagnostics.add_flag("frozen_sampler");
      est.diagnostics.values.emplace_back("frozen_at_t", last.schedule[*frozen]);
      est.diagnostics.values.emplace_back("frozen_acceptance", t.level_acceptance[*frozen]);
    }
    est.diagnostics.values.emplace_back("round_trip_rate", rate);
    result.estimates.push_back(est);
    t.levels.push_back({m, e.log_z, e.std_error, e.bias});
  }
  report_estimator_progress(progress, s.estimators, s.estimators.size());

  std::vector<double> rounds_barrier, rounds_trips, rounds_replicas;
  for (const PtRound& rd : r.rounds) {
    rounds_barrier.push_back(rd.global_barrier);
    rounds_trips.push_back(static_cast<double>(rd.round_trips));
    rounds_replicas.push_back(static_cast<double>(rd.schedule.size()));
  }
  Record pt{
      {"scheme", to_string(o.scheme)},
      {"num_replicas", last.schedule.size()},
      {"num_replicas_choice", o.num_replicas       ? "fixed"
                              : r.capped_by_memory ? "ceil(2 global_barrier) + 1, capped by memory"
                                                   : "ceil(2 global_barrier) + 1"},
      {"num_chains", o.num_chains},
      {"rounds", r.rounds.size()},
      {"scans_last_round", last.scans},
      {"global_barrier", last.global_barrier},
      {"round_trips", last.round_trips},
      {"round_trip_rate", rate},
      {"predicted_round_trip_rate", r.predicted_round_trip_rate(o.scheme)},
      {"limit_round_trip_rate", r.limit_round_trip_rate()},
      {"non_finite_energies", r.non_finite}};
  pt.set("schedule", last.schedule);
  pt.set("rejection", last.rejection);
  pt.set("swap_acceptance", r.swap_acceptance);
  pt.set("barrier_profile_t", midpoints(last.schedule));
  pt.set("barrier_profile", r.barrier_profile());
  pt.set("rounds_global_barrier", rounds_barrier);
  pt.set("rounds_round_trips", rounds_trips);
  pt.set("rounds_num_replicas", rounds_replicas);
  // Chain 0's index process (ParallelTemperingResult::index_process), for logz plot.
  pt.set("index_process_scans", r.index_process.size() / last.schedule.size());
  pt.set("index_process", r.index_process);
  if (r.dim > 0 && !r.target_positions.empty()) {
    // One row per kept position of the target replica.
    std::vector<std::vector<double>> rows;
    for (std::size_t at = 0; at < r.target_positions.size(); at += r.dim)
      rows.emplace_back(r.target_positions.begin() + static_cast<std::ptrdiff_t>(at),
                        r.target_positions.begin() + static_cast<std::ptrdiff_t>(at + r.dim));
    pt.set("target_samples", rows);
  }
  result.details.set("pt", std::move(pt));
  result.budget = Budget{.unit = unit, .parts = {{"replicas", r.updates}}};
}

}  // namespace logz
