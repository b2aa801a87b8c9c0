// `logz run` says what a run is about to do before it starts ("logz: budget: ...") and, in its
// progress lines, about how long each stage has left; -q says nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"

namespace {

using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// About 4 s of forward paths on one thread (64 chunks of one path, 3.8e8 site updates): long
// enough for progress lines (they start after a second) while chunks are still left.
const char* kFourSecondConfig = R"([model]
type = "ising"
size = 16
beta = 0.4
[schedule]
num_steps = 1000
[kernel]
steps_per_temperature = 6000
[run]
num_paths = 64
chunk_size = 1
threads = 1
directions = ["forward"]
)";

std::vector<std::string> stderr_lines_of_budget_test(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Seconds of a progress line's "3.4 s", "1 min 10 s", "2 h 5 min"; -1 if it is none of those.
double seconds_of_progress_text(const std::string& text) {
  static const std::regex part(R"(([0-9.]+) (s|min|h|d)\b)");
  double s = 0;
  std::size_t parts = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), part), end; it != end; ++it, ++parts) {
    const std::string unit = (*it)[2];
    s += std::stod((*it)[1]) * (unit == "s" ? 1 : unit == "min" ? 60 : unit == "h" ? 3600 : 86400);
  }
  return parts > 0 ? s : -1;
}

TEST(Budget, ALongRunSaysItsBudgetFirstAndHowLongItHasLeft) {
  const std::string config = temp_path("long.toml");
  write_file(config, kFourSecondConfig);
  const auto r = run_cli("run " + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // stderr is a file here, not a terminal: whole lines.
  const auto lines = stderr_lines_of_budget_test(r.err);
  ASSERT_GE(lines.size(), 3u) << r.err;
  EXPECT_EQ(lines[0],
            "logz: budget: 1 direction x 64 paths x 999 temperatures x 6000 kernel steps = "
            "3.84e+08 kernel steps");
  // "forward: 17/64 chunks, 1.1 s elapsed, about 3.0 s left" while chunks are left, and the
  // last line "forward: 64/64 chunks, 4.2 s elapsed".
  const std::regex running(R"(forward: ([0-9]+)/64 chunks, (.+) elapsed, about (.+) left)");
  const std::regex finished(R"(forward: 64/64 chunks, (.+) elapsed)");
  std::smatch eta, last;
  bool has_eta = false;
  for (const auto& line : lines)
    if (!has_eta && std::regex_match(line, eta, running)) has_eta = true;
  ASSERT_TRUE(has_eta) << r.err;
  ASSERT_TRUE(std::regex_match(lines.back(), last, finished)) << r.err;
  // The estimate is about right: the chunks are alike, so the time then plus the time left
  // is about the stage's time (loosely: other tests may share the cores).
  const double elapsed = seconds_of_progress_text(eta[2]), left = seconds_of_progress_text(eta[3]);
  const double total = seconds_of_progress_text(last[1]);
  ASSERT_GT(elapsed, 0) << eta[0];
  ASSERT_GT(left, 0) << eta[0];
  ASSERT_GT(total, 1.0) << lines.back();
  EXPECT_LT(std::stoi(eta[1]), 64);
  EXPECT_GT((elapsed + left) / total, 0.4) << eta[0] << " / " << lines.back();
  EXPECT_LT((elapsed + left) / total, 2.5) << eta[0] << " / " << lines.back();
}

// Parallel tempering counts scans, not chunks: "parallel tempering: 510/2046 scans, ...", a
// line at 2046 of them (about 2 s of one thread), then its estimators.
TEST(Budget, ParallelTemperingCountsItsScans) {
  const std::string config = temp_path("pt-progress.toml");
  write_file(config, R"([model]
type = "ising"
size = 16
beta = 0.4
[kernel]
site_order = "checkerboard"
steps_per_temperature = 10
[run]
method = "parallel_tempering"
threads = 1
[pt]
rounds = 10
num_chains = 4
)");
  const auto r = run_cli("run " + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = stderr_lines_of_budget_test(r.err);
  ASSERT_GE(lines.size(), 2u) << r.err;
  const std::regex scans(R"(parallel tempering: 2046/2046 scans, (.+) elapsed)");
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return std::regex_match(line, scans);
  })) << r.err;
  // Then the estimators, one after another (MBAR over a long run's samples may take minutes).
  EXPECT_TRUE(
      std::regex_match(lines.back(), std::regex(R"(estimates: 2/2 estimators, (.+) elapsed)")))
      << r.err;
}

TEST(Budget, QuietSaysNothing) {
  const std::string config = temp_path("long.toml");
  write_file(config, kFourSecondConfig);
  const auto r = run_cli("run " + config + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Budget, RepetitionsAreCountedOnceAndTemperingCountsChainSweeps) {
  const std::string annealing = temp_path("repeated.toml"), tempering = temp_path("tempering.toml");
  write_file(annealing, R"([model]
type = "ising"
size = 4
[schedule]
num_steps = 50
[kernel]
steps_per_temperature = 16
[run]
num_paths = 40
repetitions = 3
)");
  const auto a = run_cli("run " + annealing);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.err,
            "logz: budget: 3 repetitions x 2 directions x 40 paths x 49 temperatures x 16 kernel "
            "steps = 1.88e+05 kernel steps\n");  // short: no progress lines

  write_file(tempering, R"([model]
type = "ising"
size = 4
beta = 0.5
[kernel]
steps_per_temperature = 4
[run]
method = "tempering"
[tempering]
num_temperatures = 4
num_chains = 8
sweeps_per_iteration = 20
max_initial_iterations = 5
num_sweeps = 100
)");
  const auto t = run_cli("run " + tempering);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.err,
            "logz: budget: 8 chains x 100 sweeps = 800 chain-sweeps, after initial iterations of "
            "up to 5 x 20 "
            "sweeps\n");
}

}  // namespace
