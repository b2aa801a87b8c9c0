// The seed a run uses when none is given: [run] seed's default (services/annealing_experiment.cpp)
// and the library's option structs take it from here, so that a run from a config, from Python
// and from the library gives the same numbers by default.
#pragma once

#include <cstdint>

namespace logz {

inline constexpr std::uint64_t kDefaultSeed = 1;

}  // namespace logz
