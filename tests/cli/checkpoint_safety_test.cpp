// Nothing lost, nothing overwritten (issue 41): a checkpoint save that fails leaves the run and
// the last checkpoint as they were; two runs cannot share a checkpoint; a resume refuses a file
// the run read that changed since; checkpoints never replace links or devices; and every output
// file is complete or absent, a failed write an error (exit 2), never a silent success.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/cli.hpp"
#include "support/comparable_result.hpp"

namespace {

namespace fs = std::filesystem;
using logz::test_support::comparable_result;
using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// About a second of annealing in 4 phases of 5 chunks (two repetitions, forward and reverse).
constexpr const char* kConfig = R"([model]
type = "ising"
size = 12
beta = 0.4
[schedule]
num_steps = 600
[kernel]
steps_per_temperature = 1000
[run]
num_paths = 40
repetitions = 2
[estimators]
methods = ["ais", "raise", "bar"]
)";

// The environment that makes every `every`-th fsync of a file whose path contains `match` fail.
std::string fsync_failing(const std::string& match, int every) {
  return "LD_PRELOAD=" + std::string(LOGZ_FAIL_FSYNC_LIBRARY) + " LOGZ_FAIL_FSYNC_MATCH=" + match +
         " LOGZ_FAIL_FSYNC_EVERY=" + std::to_string(every);
}

std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

bool temporary_beside(const std::string& path) {
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    if (e.path().filename().string().starts_with(fs::path(path).filename().string() + ".tmp"))
      return true;
  return false;
}

TEST(CheckpointSafety, AFailedSaveLeavesTheRunAndTheLastCheckpointIntactAndSaysSoOnce) {
  const std::string config = temp_path("run.toml"), whole = temp_path("whole.json"),
                    out = temp_path("out.json"), checkpoint = temp_path("run.ckpt");
  write_file(config, kConfig);
  ASSERT_EQ(run_cli("run " + config + " -q -o " + whole).exit_code, 0);
  // Every third save fails: the run goes on, merges each chunk once, and ends as a run without
  // a checkpoint does.
  const auto r = run_cli(
      "run " + config + " -q -o " + out + " --checkpoint " + checkpoint + " --checkpoint-every 0",
      fsync_failing(fs::path(checkpoint).filename().string() + ".tmp", 3));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "checkpoint not saved"), 1u) << r.err;
  EXPECT_EQ(lines_with(r.err, "saved again"), 1u) << r.err;
  EXPECT_EQ(comparable_result(out), comparable_result(whole));
  EXPECT_FALSE(temporary_beside(checkpoint));
  // The checkpoint left is whole and resumable: a resume reports the same at once.
  const auto resumed = run_cli("run --resume " + checkpoint + " -q -o " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(comparable_result(out), comparable_result(whole));
}

TEST(CheckpointSafety, ASecondRunOnTheSameCheckpointIsRefused) {
  const std::string config = temp_path("run.toml"), checkpoint = temp_path("run.ckpt"),
                    out = temp_path("out.json");
  write_file(config, kConfig);
  fs::remove(checkpoint);  // of an earlier run of this test: the wait below needs a new one
  const pid_t first = fork();
  if (first == 0) {
    execl(LOGZ_CLI_PATH, "logz", "run", config.c_str(), "-q", "-o", out.c_str(), "--checkpoint",
          checkpoint.c_str(), "--checkpoint-every", "0", static_cast<char*>(nullptr));
    _exit(98);
  }
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(checkpoint) && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto second =
      run_cli("run " + config + " -q --checkpoint " + checkpoint + " --checkpoint-every 0");
  expect_one_line_error(second,
                        "in use by another logz run (process " + std::to_string(first) + ")");
  const auto resumed = run_cli("run -q --resume " + checkpoint);
  expect_one_line_error(resumed, "in use by another logz run");
  int status = 0;
  waitpid(first, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // The first run's checkpoint is whole, and free once it ended.
  EXPECT_EQ(run_cli("run -q --resume " + checkpoint).exit_code, 0);
}

TEST(CheckpointSafety, AResumeRefusesAFileTheRunReadThatChangedSince) {
  const std::string config = temp_path("run.toml"), schedule = temp_path("schedule.txt"),
                    checkpoint = temp_path("run.ckpt");
  std::string fractions;
  for (int i = 0; i <= 600; ++i) fractions += std::to_string(i / 600.0) + "\n";
  write_file(schedule, fractions);
  std::string text = kConfig;
  text.replace(text.find("num_steps = 600"), 15, "type = \"file\"\nfile = \"" + schedule + "\"");
  write_file(config, text);
  ASSERT_EQ(run_cli("run " + config + " -q --checkpoint " + checkpoint).exit_code, 0);
  // Unchanged: resumed.
  EXPECT_EQ(run_cli("run -q --resume " + checkpoint).exit_code, 0);
  // The same size, other numbers: refused, naming the file.
  fractions.replace(fractions.find("0.5"), 3, "0.6");
  write_file(schedule, fractions);
  expect_one_line_error(run_cli("run -q --resume " + checkpoint),
                        schedule + ": changed since the run saved in");
  fs::remove(schedule);
  expect_one_line_error(run_cli("run -q --resume " + checkpoint),
                        schedule + ": expected the file that the run");
}

TEST(CheckpointSafety, ACheckpointNeverReplacesALinkOrADevice) {
  const std::string config = temp_path("run.toml"), victim = temp_path("victim.txt"),
                    link = temp_path("link.ckpt"), device = temp_path("null_device");
  write_file(config, kConfig);
  write_file(victim, "precious\n");
  fs::remove(link);
  fs::create_symlink(victim, link);
  expect_one_line_error(run_cli("run " + config + " -q --checkpoint " + link),
                        "not a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  // A device node (root makes one; elsewhere a FIFO stands for it).
  fs::remove(device);
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    ASSERT_EQ(mkfifo(device.c_str(), 0666), 0);
  }
  expect_one_line_error(run_cli("run " + config + " -q --checkpoint " + device),
                        "expected a regular file");
  struct stat st {};
  ASSERT_EQ(lstat(device.c_str(), &st), 0);
  EXPECT_FALSE(S_ISREG(st.st_mode)) << "the device was replaced by a file";
  EXPECT_FALSE(fs::exists(device + ".lock"));
  // A link planted where the old writer put its temporary file is not followed.
  const std::string checkpoint = temp_path("run.ckpt");
  fs::remove(checkpoint + ".tmp");
  fs::create_symlink(victim, checkpoint + ".tmp");
  ASSERT_EQ(run_cli("run " + config + " -q --checkpoint " + checkpoint + " --checkpoint-every 0")
                .exit_code,
            0);
  EXPECT_EQ(read_file(victim), "precious\n");
}

TEST(CheckpointSafety, AnOutputThatCannotBeWrittenIsAnErrorAndLeavesNoPartialFile) {
  const std::string config = temp_path("run.toml"), works = temp_path("works.csv"),
                    out = temp_path("out.json");
  // What is written, not how long the run took to get there: 20 temperatures, not 600.
  std::string text = kConfig;
  text.replace(text.find("num_steps = 600"), 15, "num_steps = 20");
  write_file(config, text);
  const std::string forward = temp_path("forward.txt");
  write_file(forward, "1.0\n1.5\n0.5\n2.0\n");
  expect_one_line_error(run_cli("exact ising --size 4 --beta 1 -o /dev/full"), "/dev/full");
  expect_one_line_error(run_cli("estimate --forward " + forward + " -o /dev/full"), "/dev/full");
  // Checked before the run: a run does not end in a write that cannot be made.
  expect_one_line_error(run_cli("run " + config + " -q -o " + ::testing::TempDir()),
                        "not a folder");
  const auto csv = run_cli("run " + config + " -q --works-csv /dev/full");
  expect_one_line_error(csv, "/dev/full");
  // A write that fails on a full disk: exit 2, and neither the file nor a temporary one.
  fs::remove(out);
  const auto failed = run_cli("run " + config + " -q -o " + out,
                              fsync_failing(fs::path(out).filename().string(), 1));
  expect_one_line_error(failed, out + ": expected a writable file (fsync");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(temporary_beside(out));
  // An existing result is replaced whole or kept whole.
  write_file(out, "old\n");
  expect_one_line_error(run_cli("run " + config + " -q -o " + out,
                                fsync_failing(fs::path(out).filename().string(), 1)),
                        "fsync");
  EXPECT_EQ(read_file(out), "old\n");
  // A link to a file is never written through; a pipe (/dev/stdout) is written in place.
  const std::string link = temp_path("link.json");
  fs::remove(link);
  fs::create_symlink(out, link);
  expect_one_line_error(run_cli("exact ising --size 4 --beta 1 -o " + link), "not a symbolic link");
  EXPECT_EQ(read_file(out), "old\n");
  const auto piped = run_cli("exact ising --size 4 --beta 1 -o /dev/stdout | cat");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_NE(piped.out.find("\"log_z\""), std::string::npos) << piped.out;
}

}  // namespace
