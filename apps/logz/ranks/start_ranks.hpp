// The ranks this process runs with (logz/parallel/ranks.hpp): MPI's world when the tool is built
// with LOGZ_MPI and started by an MPI launcher (mpi.cpp), else none: one process (single.cpp).
// CMake compiles one of the two, so no other file knows whether MPI is there.
#pragma once

#include <memory>

#include "logz/parallel/ranks.hpp"

namespace logz::cli {

// Called first in main (MPI may take its own arguments out of argv); nullptr: one process. The
// object lives until main returns (MPI is finalized then).
std::unique_ptr<Ranks> start_ranks(int& argc, char**& argv);

}  // namespace logz::cli
