// A seed derived from a run's seed for a sub-run (a pilot, one data point's run): a Philox
// block of (index, tag) under the seed, so that the sub-run's streams are not the run's and
// the same seed always derives the same one.
#pragma once

#include <cstdint>

#include "logz/random/philox.hpp"

namespace logz {

// `tag`: which kind of sub-run (four ASCII letters by convention), `index`: which one.
inline std::uint64_t derived_seed(std::uint64_t seed, std::uint32_t tag, std::uint64_t index) {
  const PhiloxCounter c = {static_cast<std::uint32_t>(index),
                           static_cast<std::uint32_t>(index >> 32), 0u, tag};
  const auto r =
      philox4x32_10(c, {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  return (static_cast<std::uint64_t>(r[1]) << 32) | r[0];
}

}  // namespace logz
