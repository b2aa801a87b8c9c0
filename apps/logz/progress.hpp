// Progress on stderr for runs longer than a second: one updating line on a terminal, a line
// every few seconds otherwise, each with the time the stage has taken and, from its rate so
// far, about how long it has left ("forward: 12/250 chunks, 3.4 s elapsed, about 1 min 10 s
// left"). The run's budget is one line before it starts. Called from worker threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include "logz/services/registry.hpp"

namespace logz::cli {

// "0.4 s", "42 s", "3 min 5 s", "2 h 10 min", "3 d 4 h".
std::string duration_text(double seconds);

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  // `unit`: what is counted ("chunks", "" for none); `quiet`, or a rank other than 0 (rank
  // 0's progress stands for all: ranks run blocks of the same size), makes as_function() and
  // budget_listener() return nothing.
  explicit Progress(std::string unit = "chunks") : unit_(std::move(unit)) {}
  void operator()(const std::string& stage, std::size_t done, std::size_t total);
  ProgressFn as_function(bool quiet, const Ranks& ranks);
  // Prints "logz: budget: ..." (RunContext::budget).
  BudgetListener budget_listener(bool quiet, const Ranks& ranks);

 private:
  // "about 1 min 10 s left" from the stage's rate so far, "" before it has one.
  std::string time_left(Clock::time_point now, std::size_t done, std::size_t total) const;

  std::string unit_;
  std::mutex mutex_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};       // the last line printed
  Clock::time_point last_call_{};  // the last call, printed or not
  std::size_t line_length_ =
      0;  // of the last line on a terminal, to blank what a shorter one leaves
  // The stage of the last call: it began when the call before it ended (or at start_); its
  // rate is measured from its first call on (a resumed run starts with chunks already done).
  std::string stage_;
  Clock::time_point stage_start_{}, first_call_{};
  std::size_t first_done_ = 0, last_done_ = 0, last_total_ = 0;
};

}  // namespace logz::cli
