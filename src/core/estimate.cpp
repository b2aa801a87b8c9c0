#include "logz/core/estimate.hpp"

#include <algorithm>

namespace logz {

bool Diagnostics::has_flag(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

void Diagnostics::add_flag(std::string flag) {
  if (!has_flag(flag)) flags.push_back(std::move(flag));
}

}  // namespace logz
