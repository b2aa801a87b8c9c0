// The tool built with LOGZ_MPI: the ranks of MPI_COMM_WORLD. Only the thread that drives the run
// calls MPI (MPI_THREAD_FUNNELED); chunk threads never do (parallel/ranks.hpp).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "ranks/start_ranks.hpp"

namespace logz::cli {

namespace {

class MpiRanks final : public Ranks {
 public:
  MpiRanks(int& argc, char**& argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiRanks() override { MPI_Finalize(); }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  RankStatus agree(int code) override {
    std::vector<int> codes(static_cast<std::size_t>(size_));
    MPI_Allgather(&code, 1, MPI_INT, codes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size_; ++r)
      if (codes[static_cast<std::size_t>(r)] != 0) return {r, codes[static_cast<std::size_t>(r)]};
    return {};
  }

  std::vector<std::string> all_gather(std::string_view mine) override {
    if (const RankStatus s = agree(0); s.failed()) throw RankFailed(s.rank, s.code);
    const std::uint64_t my_size = mine.size();
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
    MPI_Allgather(&my_size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::vector<std::string> all(static_cast<std::size_t>(size_));
    // One broadcast per rank, in pieces MPI's int counts can hold: no limit on a rank's bytes.
    constexpr std::uint64_t kPiece = 1u << 30;
    for (int r = 0; r < size_; ++r) {
      std::string& buffer = all[static_cast<std::size_t>(r)];
      if (r == rank_)
        buffer.assign(mine);
      else
        buffer.resize(sizes[static_cast<std::size_t>(r)]);
      for (std::uint64_t at = 0; at < buffer.size(); at += kPiece) {
        const int n = static_cast<int>(std::min<std::uint64_t>(kPiece, buffer.size() - at));
        MPI_Bcast(buffer.data() + at, n, MPI_BYTE, r, MPI_COMM_WORLD);
      }
    }
    return all;
  }

 private:
  int rank_ = 0, size_ = 1;
};

// Started by mpirun/mpiexec (Open MPI, PMIx) or srun: a plain start is one process, without
// MPI's singleton start-up.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

}  // namespace

std::unique_ptr<Ranks> start_ranks(int& argc, char**& argv) {
  if (!launched_by_mpi()) return nullptr;
  return std::make_unique<MpiRanks>(argc, argv);
}

}  // namespace logz::cli
