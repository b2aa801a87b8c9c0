// Running the `logz` tool from tests as a user would: capture its exit code,
// stdout and stderr, and check that bad input gives exactly one error line.
// Temporary files are named after the running test suite and test, because
// ctest runs tests in parallel.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace logz::test_support {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// A path in the test temp folder, unique to the running test (ctest runs tests side by side).
inline std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = std::string(info->test_suite_name()) + "_" + info->name();
  std::replace(test.begin(), test.end(), '/', '_');  // parameterized tests: Suite/Name/0
  return ::testing::TempDir() + "logz_" + test + "_" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs `logz ARGS`; `env` goes before the command (e.g. "PATH=/nonexistent").
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string out = temp_path(test + "_stdout.txt"), err = temp_path(test + "_stderr.txt");
  const std::string cmd = env + (env.empty() ? "" : " ") + std::string(LOGZ_CLI_PATH) + " " + args +
                          " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// A bad input: exit code 2 and exactly one line on stderr that contains `needle`.
inline void expect_one_line_error(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace logz::test_support
