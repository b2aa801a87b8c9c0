#include "logz/smc/smc_ranks.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "logz/parallel/bytes.hpp"

namespace logz::detail {

void share_particles(Ranks& ranks, const ChunkRange& mine, SmcRunState& s,
                     TargetEvaluationCounts& counts) {
  const std::array<std::uint64_t, 3> spent{counts.energies.exchange(0),
                                           counts.gradients.exchange(0),
                                           counts.gradients_alone.exchange(0)};
  if (ranks.size() == 1) {
    s.energies += spent[0], s.gradients += spent[1], s.gradients_alone += spent[2];
    return;
  }
  const auto d = static_cast<std::size_t>(s.X.rows());
  std::string bytes;
  const std::array<std::uint64_t, 5> header{spent[0], spent[1], spent[2], mine.begin, mine.end};
  append_bytes<std::uint64_t>(bytes, header);
  append_bytes<double>(bytes,
                       std::span<const double>(s.X.data() + d * mine.begin, d * mine.size()));
  append_bytes<double>(bytes, std::span<const double>(s.e0).subspan(mine.begin, mine.size()));
  append_bytes<double>(bytes, std::span<const double>(s.e1).subspan(mine.begin, mine.size()));
  for (const std::string& theirs : ranks.all_gather(bytes)) {
    ByteReader in(theirs);
    std::array<std::uint64_t, 5> h{};
    in.read<std::uint64_t>(h);
    s.energies += h[0], s.gradients += h[1], s.gradients_alone += h[2];
    if (h[3] > h[4] || h[4] > s.e0.size())
      fail_argument("logz::share_particles", "bytes", "a block of the run's particles");
    const std::size_t begin = h[3], size = h[4] - h[3];
    in.read<double>(std::span<double>(s.X.data() + d * begin, d * size));
    in.read<double>(std::span<double>(s.e0).subspan(begin, size));
    in.read<double>(std::span<double>(s.e1).subspan(begin, size));
  }
}

}  // namespace logz::detail
