#include "logz/parallel/ranks.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace logz {

namespace {

// One process: gathering is copying, and a failure here is this process's own.
class SingleRank final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> all_gather(std::string_view mine) override {
    return {std::string(mine)};
  }
  RankStatus agree(int code) override { return code == 0 ? RankStatus{} : RankStatus{0, code}; }
};

}  // namespace

Ranks& single_rank() {
  static SingleRank one;
  return one;
}

RankFailed::RankFailed(int failed_rank, int exit_code)
    : Error(fmt::format("rank {} failed (exit code {})", failed_rank, exit_code)),
      rank(failed_rank),
      code(exit_code) {}

bool decided_by_rank0(Ranks& ranks, bool decision) {
  if (ranks.size() == 1) return decision;
  return ranks.all_gather(ranks.rank() == 0 ? (decision ? "1" : "0") : "")[0] == "1";
}

bool true_on_every_rank(Ranks& ranks, bool holds) {
  if (ranks.size() == 1) return holds;
  const std::vector<std::string> all = ranks.all_gather(holds ? "1" : "0");
  return std::all_of(all.begin(), all.end(), [](const std::string& s) { return s == "1"; });
}

ChunkBlock chunks_of_rank(std::size_t num_chunks, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    fail_argument("logz::chunks_of_rank", "rank", "0 <= rank < size, size >= 1");
  const auto r = static_cast<std::size_t>(rank), n = static_cast<std::size_t>(size);
  return {num_chunks * r / n, num_chunks * (r + 1) / n};
}

ChunkRange items_of_block(const ChunkBlock& block, std::size_t num_items, std::size_t chunk_size) {
  return {block.first, std::min(block.first * chunk_size, num_items),
          std::min(block.last * chunk_size, num_items)};
}

}  // namespace logz
