// What a kernel reports about one call: attempted and accepted updates. Counts
// add across particles and chunks (in chunk order), giving acceptance rates.
#pragma once

#include <cstdint>

namespace logz {

struct KernelInfo {
  std::uint64_t attempted = 0;
  std::uint64_t accepted = 0;

  KernelInfo& operator+=(const KernelInfo& o) {
    attempted += o.attempted;
    accepted += o.accepted;
    return *this;
  }
};

}  // namespace logz
