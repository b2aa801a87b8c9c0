#include "logz/smc/population_state.hpp"

#include <array>
#include <span>

#include "logz/core/error.hpp"
#include "logz/parallel/bytes.hpp"

namespace logz::detail {

namespace {

constexpr std::uint64_t kPopulationStateVersion = 1;

// A stage's fields, in order, as doubles.
constexpr std::size_t kPopulationStageFields = 7;
std::array<double, kPopulationStageFields> population_stage_fields(
    const PopulationAnnealingStage& s) {
  return {s.temperature,
          s.log_z_increment,
          s.ess,
          s.resampled ? 1.0 : 0.0,
          static_cast<double>(s.num_families),
          s.acceptance,
          s.mean_energy};
}
PopulationAnnealingStage population_stage_of(std::span<const double> f) {
  PopulationAnnealingStage s;
  s.temperature = f[0], s.log_z_increment = f[1], s.ess = f[2], s.resampled = f[3] != 0.0;
  s.num_families = static_cast<std::size_t>(f[4]), s.acceptance = f[5], s.mean_energy = f[6];
  return s;
}

}  // namespace

std::string population_state_bytes(const PopulationRunState& s,
                                   const std::vector<std::string>& chunk_states) {
  std::string out;
  const std::array<std::uint64_t, 5> counts{kPopulationStateVersion, s.num_resamplings, s.updates,
                                            s.invalid, s.capped ? 1u : 0u};
  append_bytes<std::uint64_t>(out, counts);
  const std::array<double, 2> numbers{s.t, s.log_z};
  append_bytes<double>(out, numbers);
  for (const auto* v : {&s.gaps, &s.energies, &s.log_w}) append_counted<double>(out, *v);
  const std::vector<std::uint64_t> families(s.families.begin(), s.families.end());
  append_counted<std::uint64_t>(out, families);
  std::vector<double> stages;
  for (const PopulationAnnealingStage& st : s.stages)
    for (double f : population_stage_fields(st)) stages.push_back(f);
  append_counted<double>(out, stages);
  const std::uint64_t chunks = chunk_states.size();
  append_bytes<std::uint64_t>(out, std::span<const std::uint64_t>(&chunks, 1));
  for (const std::string& c : chunk_states) append_blob(out, c);
  return out;
}

bool restore_population_state(std::string_view bytes, std::size_t n, std::size_t chunks,
                              bool geometric, PopulationRunState& s,
                              std::vector<std::string>& chunk_states) {
  try {
    ByteReader in(bytes);
    std::array<std::uint64_t, 5> counts{};
    in.read<std::uint64_t>(counts);
    if (counts[0] != kPopulationStateVersion) return false;
    s.num_resamplings = counts[1], s.updates = counts[2], s.invalid = counts[3];
    s.capped = counts[4] != 0;
    std::array<double, 2> numbers{};
    in.read<double>(numbers);
    s.t = numbers[0], s.log_z = numbers[1];
    for (auto* v : {&s.gaps, &s.energies, &s.log_w}) in.read_counted(*v);
    std::vector<std::uint64_t> families;
    in.read_counted(families);
    std::vector<double> stages;
    in.read_counted(stages);
    std::uint64_t saved_chunks = 0;
    in.read<std::uint64_t>(std::span<std::uint64_t>(&saved_chunks, 1));
    if (saved_chunks != chunks) return false;
    chunk_states.clear();
    for (std::size_t c = 0; c < chunks; ++c) chunk_states.emplace_back(in.blob());
    bool fits = in.done() && s.gaps.size() == (geometric ? n : 0) && s.energies.size() == n &&
                s.log_w.size() == n && families.size() == n &&
                stages.size() % kPopulationStageFields == 0 && s.t >= 0.0 && s.t <= 1.0;
    for (std::uint64_t f : families) fits = fits && f < n;
    if (!fits) return false;
    s.families.assign(families.begin(), families.end());
    s.stages.clear();
    for (std::size_t k = 0; k < stages.size(); k += kPopulationStageFields)
      s.stages.push_back(
          population_stage_of(std::span<const double>(stages).subspan(k, kPopulationStageFields)));
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace logz::detail
