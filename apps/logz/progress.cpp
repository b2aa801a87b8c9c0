#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "logz/parallel/ranks.hpp"

namespace logz::cli {

namespace {

double seconds_between(Progress::Clock::time_point a, Progress::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::string duration_text(double seconds) {
  if (!(seconds >= 0) || seconds >= 1e12) return fmt::format("{:.3g} s", seconds);
  if (seconds < 9.95) return fmt::format("{:.1f} s", seconds);
  if (seconds < 59.5) return fmt::format("{:.0f} s", seconds);
  if (seconds < 3599.5) {
    const auto s = std::llround(seconds);
    return fmt::format("{} min {} s", s / 60, s % 60);
  }
  if (seconds < 86370) {
    const auto min = std::llround(seconds / 60);
    return fmt::format("{} h {} min", min / 60, min % 60);
  }
  const auto h = std::llround(seconds / 3600);
  return fmt::format("{} d {} h", h / 24, h % 24);
}

std::string Progress::time_left(Clock::time_point now, std::size_t done, std::size_t total) const {
  if (done == 0 || done >= total) return "";
  // From the stage's first call on where there have been two; before, since the stage began.
  const bool measured = done > first_done_ && now > first_call_;
  const double rate =
      measured ? static_cast<double>(done - first_done_) / seconds_between(first_call_, now)
               : static_cast<double>(done) / seconds_between(stage_start_, now);
  if (!(rate > 0) || !std::isfinite(rate)) return "";
  return ", about " + duration_text(static_cast<double>(total - done) / rate) + " left";
}

void Progress::operator()(const std::string& stage, std::size_t done, std::size_t total) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  // A new stage: another name, or the count started again (a pilot's reverse half).
  if (stage != stage_ || done < last_done_ || total != last_total_) {
    stage_ = stage;
    stage_start_ = last_call_ == Clock::time_point{} ? start_ : last_call_;
    first_call_ = now;
    first_done_ = done;
  }
  last_call_ = now;
  last_done_ = done;
  last_total_ = total;
  if (now - start_ < std::chrono::seconds(1)) return;
  const bool tty = isatty(fileno(stderr));
  if (!tty && now - last_ < std::chrono::seconds(5) && done != total) return;
  last_ = now;
  // "name [unit]": a stage that counts something other than the default unit.
  std::string name = stage, unit = unit_;
  if (const auto open = stage.rfind(" ["); open != std::string::npos && stage.ends_with(']')) {
    name = stage.substr(0, open);
    unit = stage.substr(open + 2, stage.size() - open - 3);
  }
  std::string line =
      fmt::format("{}: {}/{}{}, {} elapsed{}", name, done, total, unit.empty() ? "" : " " + unit,
                  duration_text(seconds_between(stage_start_, now)), time_left(now, done, total));
  if (tty) {
    const std::size_t length = line.size();
    if (length < line_length_)
      line += std::string(line_length_ - length, ' ');  // blank the longer line's end
    line_length_ = done == total ? 0 : length;
    std::fprintf(stderr, "\r%s%s", line.c_str(), done == total ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

ProgressFn Progress::as_function(bool quiet, const Ranks& ranks) {
  if (quiet || ranks.rank() != 0) return {};
  return [this](const std::string& s, std::size_t d, std::size_t t) { (*this)(s, d, t); };
}

BudgetListener Progress::budget_listener(bool quiet, const Ranks& ranks) {
  if (quiet || ranks.rank() != 0) return {};
  return [this](const PlannedBudget& b) {
    std::lock_guard lock(mutex_);
    if (line_length_ > 0) std::fprintf(stderr, "\n");  // below an updating progress line
    line_length_ = 0;
    std::fprintf(stderr, "logz: budget: %s\n", b.text().c_str());
    std::fflush(stderr);
  };
}

}  // namespace logz::cli
