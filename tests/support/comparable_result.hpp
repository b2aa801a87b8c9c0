// A result JSON (logz run -o) without what may differ between runs of the same config and seed:
// the run time and [run] threads. Killed, resumed or rerun on other threads, a run must give
// the rest bit for bit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.hpp"

namespace logz::test_support {

inline nlohmann::json comparable_result(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(read_file(path));
  j.erase("runtime_s");
  j["config"]["run"].erase("threads");
  return j;
}

}  // namespace logz::test_support
