#include "logz/tempering/parallel_tempering.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/paths/schedule.hpp"

namespace logz {

void validate(const ParallelTemperingOptions& o) {
  auto fail = [](const char* field, const char* expected) {
    fail_argument("logz::parallel_tempering", field, expected);
  };
  if (o.num_replicas == 1 || o.num_replicas > (1u << 16))
    fail("num_replicas", "0 (chosen from the barrier) or 2 .. 65536");
  if (o.initial_replicas < 2 || o.initial_replicas > (1u << 16))
    fail("initial_replicas", "2 .. 65536");
  if (o.max_replicas < 2 || o.max_replicas > (1u << 16)) fail("max_replicas", "2 .. 65536");
  if (o.rounds < 1 || o.rounds > 24) fail("rounds", "1 .. 24 (round r has 2^r scans)");
  if (o.num_chains < 1 || o.num_chains > (1u << 20)) fail("num_chains", "1 .. 2^20");
  if (o.blocks_per_chain < 1 || o.blocks_per_chain > (std::size_t{1} << o.rounds))
    fail("blocks_per_chain", "1 .. the last round's scans, 2^rounds");
  if (o.chunk_size < 1) fail("chunk_size", "at least 1");
}

double ParallelTemperingResult::round_trip_rate(std::size_t num_chains) const {
  const PtRound& l = last();
  return static_cast<double>(l.round_trips) /
         (static_cast<double>(l.scans) * static_cast<double>(num_chains));
}

double ParallelTemperingResult::predicted_round_trip_rate(SwapScheme scheme) const {
  const PtRound& l = last();
  double e = 0.0;
  for (double r : l.rejection)
    e += r < 1.0 ? r / (1.0 - r) : std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(l.rejection.size());
  return 1.0 / ((scheme == SwapScheme::nonreversible ? 2.0 : 2.0 * n) + 2.0 * e);
}

double ParallelTemperingResult::limit_round_trip_rate() const {
  return 1.0 / (2.0 + 2.0 * last().global_barrier);
}

std::vector<double> ParallelTemperingResult::barrier_profile() const {
  const PtRound& l = last();
  std::vector<double> out;
  for (std::size_t k = 0; k < l.rejection.size(); ++k)
    out.push_back(l.rejection[k] / (l.schedule[k + 1] - l.schedule[k]));
  return out;
}

namespace detail {

std::vector<double> initial_schedule(const ParallelTemperingOptions& o) {
  const Schedule s = linear_schedule((o.num_replicas ? o.num_replicas : o.initial_replicas) - 1);
  const auto f = s.fractions();  // a view into s, which must outlive it
  return {f.begin(), f.end()};
}

std::vector<double> equal_barrier_schedule(std::span<const double> schedule,
                                           std::span<const double> rejection,
                                           std::size_t num_levels) {
  // The cumulative barrier at the old fractions; a pair without rejections still advances a
  // little, so that the inverse is a function (and an all-zero profile spaces evenly in k).
  std::vector<double> cum(schedule.size(), 0.0);
  double total = 0.0;
  for (double r : rejection) total += std::max(r, 0.0);
  const double floor = total > 0.0 ? 1e-9 * total : 1.0;
  for (std::size_t k = 0; k < rejection.size(); ++k)
    cum[k + 1] = cum[k] + std::max(std::max(rejection[k], 0.0), floor);
  std::vector<double> out(num_levels);
  out.front() = 0.0;
  out.back() = 1.0;
  std::size_t k = 0;
  for (std::size_t j = 1; j + 1 < num_levels; ++j) {
    const double target = cum.back() * static_cast<double>(j) / static_cast<double>(num_levels - 1);
    while (k + 2 < cum.size() && cum[k + 1] < target) ++k;
    const double w = (target - cum[k]) / (cum[k + 1] - cum[k]);
    out[j] = schedule[k] + std::clamp(w, 0.0, 1.0) * (schedule[k + 1] - schedule[k]);
  }
  // Strictly increasing, as a schedule must be (rounding can tie two fractions).
  for (std::size_t j = 1; j < num_levels; ++j)
    if (!(out[j] > out[j - 1])) out[j] = std::nextafter(out[j - 1], 2.0);
  if (!(out.back() == 1.0) || out[num_levels - 2] >= 1.0) {
    const Schedule lin = linear_schedule(num_levels - 1);
    out.assign(lin.fractions().begin(), lin.fractions().end());
  }
  return out;
}

double last_round_sample_bytes(const ParallelTemperingOptions& o, std::size_t replicas,
                               std::size_t scans, bool level_energies) {
  const double n = static_cast<double>(replicas);
  return static_cast<double>(o.num_chains) * n * static_cast<double>(scans) *
         (16.0 + (level_energies ? 8.0 * n : 0.0));
}

std::size_t next_num_replicas(const ParallelTemperingOptions& o, double global_barrier) {
  if (o.num_replicas) return o.num_replicas;
  const double wanted = std::ceil(2.0 * global_barrier) + 1.0;
  const double capped = std::min(wanted, static_cast<double>(o.max_replicas));
  return std::max(std::min(kMinAutoReplicas, o.max_replicas), static_cast<std::size_t>(capped));
}

std::vector<std::size_t> nearest_levels(std::span<const double> from, std::span<const double> to) {
  std::vector<std::size_t> out(to.size());
  std::size_t k = 0;
  for (std::size_t j = 0; j < to.size(); ++j) {
    while (k + 1 < from.size() && std::abs(from[k + 1] - to[j]) <= std::abs(from[k] - to[j])) ++k;
    out[j] = k;
  }
  return out;
}

PtRoundSums::PtRoundSums(std::size_t levels)
    : rejection_sum(levels > 0 ? levels - 1 : 0, 0.0),
      swaps_attempted(levels > 0 ? levels - 1 : 0, 0),
      swaps_accepted(levels > 0 ? levels - 1 : 0, 0),
      level_attempted(levels, 0),
      level_accepted(levels, 0) {}

void PtRoundSums::merge(PtRoundSums&& o) {
  for (std::size_t k = 0; k < rejection_sum.size(); ++k) {
    rejection_sum[k] += o.rejection_sum[k];
    swaps_attempted[k] += o.swaps_attempted[k];
    swaps_accepted[k] += o.swaps_accepted[k];
  }
  for (std::size_t k = 0; k < level_attempted.size(); ++k) {
    level_attempted[k] += o.level_attempted[k];
    level_accepted[k] += o.level_accepted[k];
  }
  round_trips += o.round_trips;
  non_finite += o.non_finite;
  std::move(o.chains.begin(), o.chains.end(), std::back_inserter(chains));
  sample_delta.insert(sample_delta.end(), o.sample_delta.begin(), o.sample_delta.end());
  sample_energies.insert(sample_energies.end(), o.sample_energies.begin(), o.sample_energies.end());
  sample_level.insert(sample_level.end(), o.sample_level.begin(), o.sample_level.end());
  sample_chain.insert(sample_chain.end(), o.sample_chain.begin(), o.sample_chain.end());
  index_process.insert(index_process.end(), o.index_process.begin(), o.index_process.end());
  target_positions.insert(target_positions.end(), o.target_positions.begin(),
                          o.target_positions.end());
}

void PtRoundSums::append_to(std::string& out) const {
  append_bytes<double>(out, rejection_sum);
  for (const auto* v : {&swaps_attempted, &swaps_accepted, &level_attempted, &level_accepted})
    append_bytes<std::uint64_t>(out, *v);
  const std::uint64_t sizes[] = {round_trips,
                                 non_finite,
                                 chains.size(),
                                 sample_delta.size(),
                                 sample_energies.size(),
                                 index_process.size(),
                                 target_positions.size()};
  append_bytes<std::uint64_t>(out, sizes);
  for (const ChainTemperingStats& c : chains) append_chain_stats(out, c);
  append_bytes<double>(out, sample_delta);
  append_bytes<std::uint32_t>(out, sample_level);
  append_bytes<std::uint32_t>(out, sample_chain);
  append_bytes<double>(out, sample_energies);
  append_bytes<std::uint32_t>(out, index_process);
  append_bytes<double>(out, target_positions);
}

PtRoundSums PtRoundSums::read(ByteReader& in, std::size_t levels) {
  PtRoundSums s(levels);
  in.read<double>(s.rejection_sum);
  for (auto* v : {&s.swaps_attempted, &s.swaps_accepted, &s.level_attempted, &s.level_accepted})
    in.read<std::uint64_t>(*v);
  std::uint64_t sizes[7];
  in.read<std::uint64_t>(sizes);
  s.round_trips = sizes[0];
  s.non_finite = sizes[1];
  // Counts checked against the bytes left before they size anything (the bytes may come from a
  // checkpoint file).
  s.chains.assign(in.count(sizes[2], 8 * levels), ChainTemperingStats(levels));
  for (ChainTemperingStats& c : s.chains) read_chain_stats(in, c);
  s.sample_delta.resize(in.count(sizes[3], 16));
  s.sample_level.resize(sizes[3]);
  s.sample_chain.resize(sizes[3]);
  s.sample_energies.resize(in.count(sizes[4], 8));
  s.index_process.resize(in.count(sizes[5], 4));
  s.target_positions.resize(in.count(sizes[6], 8));
  in.read<double>(s.sample_delta);
  in.read<std::uint32_t>(s.sample_level);
  in.read<std::uint32_t>(s.sample_chain);
  in.read<double>(s.sample_energies);
  in.read<std::uint32_t>(s.index_process);
  in.read<double>(s.target_positions);
  return s;
}

PtRoundSums gather_round_sums(Ranks& ranks, const std::string& mine, std::size_t levels) {
  PtRoundSums out(levels);
  for (const std::string& bytes : ranks.all_gather(mine)) {
    ByteReader in(bytes);
    while (!in.done()) out.merge(PtRoundSums::read(in, levels));
  }
  return out;
}

}  // namespace detail

}  // namespace logz
