// The tool built without MPI: always one process.
#include "ranks/start_ranks.hpp"

namespace logz::cli {

std::unique_ptr<Ranks> start_ranks(int&, char**&) { return nullptr; }

}  // namespace logz::cli
