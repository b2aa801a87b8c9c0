// Progress on stderr for runs longer than a second: one updating line on a terminal, a line
// every few seconds otherwise. Called from worker threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include "logz/services/registry.hpp"

namespace logz::cli {

class Progress {
 public:
  // `unit`: what is counted ("chunks", "" for none); `quiet` makes as_function() return nothing.
  explicit Progress(std::string unit = "chunks") : unit_(std::move(unit)) {}
  void operator()(const std::string& stage, std::size_t done, std::size_t total);
  ProgressFn as_function(bool quiet);

 private:
  std::string unit_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace logz::cli
