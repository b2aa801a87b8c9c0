// Ctrl-C and SIGTERM during `logz run` (and `logz sample`): the run stops within a second, exits
// 130 with one line on stderr, and writes no output file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "support/cli.hpp"

namespace {

using logz::test_support::read_file;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// Minutes of work on one thread: the signal always comes while it runs.
const char* kLongConfig = R"([model]
type = "ising"
size = 32
beta = 0.4
[schedule]
num_steps = 10000
[kernel]
steps_per_temperature = 10000
[run]
num_paths = 64
threads = 2
)";

struct Stopped {
  int exit_code = -1;
  double seconds_after_signal = 0;
  std::string err;
};

// One step of 10^8 checkerboard sweeps (the most a step may have) of 4096 sites per
// temperature, hours of site updates: the kernel itself must see the request.
const char* kOneHugeStepConfig = R"([model]
type = "ising"
size = 64
[schedule]
num_steps = 10
[kernel]
steps_per_temperature = 100000000
site_order = "checkerboard"
[run]
num_paths = 2
)";

// Minutes of HMC draws (a thousand leapfrog steps per draw) for `logz sample`.
const char* kLongSampleConfig = R"([model]
type = "gaussian_mixture"
[sampler]
num_draws = 1000000
leapfrog_steps = 1000
)";

// Parallel tempering of a 32 x 32 torus for 2^16 scans in the last round: the stop request is
// seen between scans, inside a chunk's round.
const char* kLongParallelTemperingConfig = R"([model]
type = "ising"
size = 32
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 1
[run]
method = "parallel_tempering"
[pt]
rounds = 16
num_chains = 2
)";

Stopped run_and_signal(int signal, const char* config_text = kLongConfig,
                       const char* command = "run") {
  const std::string config = temp_path("long.toml"), output = temp_path("out.json"),
                    err = temp_path("err.txt");
  write_file(config, config_text);
  std::filesystem::remove(output);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(99);
    if (std::string(command) == "run")
      execl(LOGZ_CLI_PATH, "logz", "run", config.c_str(), "--quiet", "-o", output.c_str(),
            static_cast<char*>(nullptr));
    else
      execl(LOGZ_CLI_PATH, "logz", command, config.c_str(), "-o", output.c_str(),
            static_cast<char*>(nullptr));
    _exit(98);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // well inside the run
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  Stopped s;
  s.seconds_after_signal =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  s.err = read_file(err);
  EXPECT_FALSE(std::filesystem::exists(output)) << "a stopped run wrote its output";
  return s;
}

TEST(Interrupt, CtrlCStopsTheRunWithinASecondAndExits130) {
  const Stopped s = run_and_signal(SIGINT);
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_LT(s.seconds_after_signal, 1.0);
  EXPECT_NE(s.err.find("stopped by a signal"), std::string::npos) << s.err;
  EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << s.err;
}

TEST(Interrupt, SigtermStopsTheRunToo) {
  const Stopped s = run_and_signal(SIGTERM);
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_LT(s.seconds_after_signal, 1.0);
}

TEST(Interrupt, ALatticeKernelStopsInsideOneLongStep) {
  const Stopped s = run_and_signal(SIGINT, kOneHugeStepConfig);
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_LT(s.seconds_after_signal, 1.0);
}

TEST(Interrupt, CtrlCStopsParallelTemperingInsideARound) {
  const Stopped s = run_and_signal(SIGINT, kLongParallelTemperingConfig);
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_LT(s.seconds_after_signal, 1.0);
}

// The sampler is given the front end's stop request too (RunContext::stop).
TEST(Interrupt, CtrlCStopsLogzSample) {
  const Stopped s = run_and_signal(SIGINT, kLongSampleConfig, "sample");
  EXPECT_EQ(s.exit_code, 130) << s.err;
  EXPECT_LT(s.seconds_after_signal, 1.0);
}

}  // namespace
