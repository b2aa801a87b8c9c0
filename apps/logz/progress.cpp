#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "logz/parallel/ranks.hpp"

namespace logz::cli {

void Progress::operator()(const std::string& stage, std::size_t done, std::size_t total) {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  const bool tty = isatty(fileno(stderr));
  if (!tty && now - last_ < std::chrono::seconds(5) && done != total) return;
  last_ = now;
  const std::string unit = unit_.empty() ? "" : " " + unit_;
  std::fprintf(stderr, tty ? "\r%s: %zu/%zu%s" : "%s: %zu/%zu%s\n", stage.c_str(), done, total, unit.c_str());
  if (tty && done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

ProgressFn Progress::as_function(bool quiet) {
  // Rank 0's progress stands for all: ranks run blocks of the same size.
  if (quiet || current_ranks().rank() != 0) return {};
  return [this](const std::string& s, std::size_t d, std::size_t t) { (*this)(s, d, t); };
}

}  // namespace logz::cli
