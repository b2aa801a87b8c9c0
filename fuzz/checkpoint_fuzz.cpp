// Checkpoints (logz run --resume): logz::parse_checkpoint on the input as it is, and on the
// input framed as a checkpoint's contents (the first line written with its length and correct
// CRC-32), so that the fuzzer reaches the JSON reader behind the checksum. What is accepted must
// be written back to a checkpoint that reads back the same.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "logz/persistence/checkpoint.hpp"

namespace {

// Bit for bit (NaN equals NaN when the bits agree).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](double x, double y) {
           return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
         });
}

bool same(const logz::CheckpointContents& a, const logz::CheckpointContents& b) {
  if (a.config.text != b.config.text || a.config.source != b.config.source ||
      a.config.sets != b.config.sets || a.config.seed != b.config.seed ||
      a.config.threads != b.config.threads || a.phases.size() != b.phases.size() ||
      a.pt_runs.size() != b.pt_runs.size() || a.smc_runs.size() != b.smc_runs.size())
    return false;
  for (std::size_t i = 0; i < a.smc_runs.size(); ++i) {
    const auto& p = a.smc_runs[i];
    const auto& q = b.smc_runs[i];
    if (!(p.shape == q.shape) || p.temperatures != q.temperatures ||
        !same_bits({p.temperature}, {q.temperature}) || p.state != q.state)
      return false;
  }
  for (std::size_t i = 0; i < a.pt_runs.size(); ++i) {
    const auto& p = a.pt_runs[i];
    const auto& q = b.pt_runs[i];
    if (!(p.shape == q.shape) || p.round != q.round || p.scans_done != q.scans_done ||
        !same_bits(p.schedule, q.schedule) || p.rounds.size() != q.rounds.size() ||
        p.chunks != q.chunks)
      return false;
  }
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    const auto& p = a.phases[i];
    const auto& q = b.phases[i];
    if (!(p.shape == q.shape) || p.chunks_done != q.chunks_done || p.attempted != q.attempted ||
        p.accepted != q.accepted || !same_bits(p.works, q.works) ||
        !same_bits(p.energy_sum, q.energy_sum))
      return false;
  }
  return true;
}

void parse(const std::string& text) {
  logz::CheckpointContents c;
  if (!logz::fuzz::accepts([&] { c = logz::parse_checkpoint(text, "fuzz.ckpt"); })) return;
  const std::string again = logz::checkpoint_text(c);
  logz::CheckpointContents back;
  logz::fuzz::check(
      logz::fuzz::accepts([&] { back = logz::parse_checkpoint(again, "again.ckpt"); }),
      "a checkpoint written back is read back");
  logz::fuzz::check(same(c, back), "a checkpoint written back reads back the same");
  // Tempering records compared through their text: what reads back writes the same bytes.
  logz::fuzz::check(logz::checkpoint_text(back) == again,
                    "a checkpoint written back writes back the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  parse(input);
  const auto crc = crc32(crc32(0L, Z_NULL, 0), data, static_cast<uInt>(size));
  parse(fmt::format("logz-checkpoint 1 {:08x} {}\n", crc, size) + input);
  return 0;
}
