// `logz run --checkpoint` and `--resume` (docs/checkpoint.md): a run killed with SIGKILL at any
// moment, or stopped by Ctrl-C, and resumed on another number of threads reports bit for bit
// what an uninterrupted run reports; a checkpoint that is not one gives one error line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "logz/io/npy.hpp"
#include "logz/persistence/checkpoint.hpp"
#include "logz/random/philox.hpp"
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
using Clock = std::chrono::steady_clock;

// Two repetitions, each annealing forward and in reverse: four phases, a few seconds in all.
std::string config_text(const std::string& reverse_start) {
  return R"([model]
type = "ising"
size = 12
beta = 0.4
[schedule]
num_steps = 1500
[kernel]
steps_per_temperature = 1000
[run]
num_paths = 40
reverse_start = ")" +
         reverse_start + R"("
repetitions = 2
[estimators]
methods = ["ais", "raise", "bar"]
)";
}

struct Outcome {
  bool killed = false;  // by our signal, before it finished
  int exit_code = -1;
  std::string err;
  double seconds_after_signal = 0;  // from the signal to the exit
};

// How far a checkpoint's run got; -1 before the checkpoint exists. Annealing: chunks merged over
// all phases. Tempering: initial iterations, Wang-Landau sweeps and final-run sweeps done.
// Parallel tempering: scans done. SMC and population annealing: temperatures reached over their
// runs. Training: epochs done. Read from the JSON's counts alone (no CRC or hex decoding): the
// polls must keep up with a run whose checkpoint grows to megabytes on a loaded machine.
long progress_saved(const std::string& checkpoint) {
  if (!fs::exists(checkpoint)) return -1;
  const std::string text = read_file(checkpoint);
  const auto body = text.find('\n');
  if (body == std::string::npos) return -1;
  const nlohmann::json j = nlohmann::json::parse(text.substr(body + 1));
  auto count = [](const nlohmann::json& o, const char* key) { return o.at(key).get<long>(); };
  long n = 0;
  for (const auto& p : j.at("phases")) n += count(p, "chunks_done");
  for (const auto& t : j.at("tempering_runs"))
    n += count(t.at("initial"), "iterations") + count(t.at("wang_landau"), "sweeps") +
         count(t.at("final_run"), "sweeps_done");
  for (const auto& t : j.at("pt_runs")) {
    n += count(t, "scans_done");
    for (const auto& r : t.at("rounds_done")) n += count(r, "scans");
  }
  for (const auto& t : j.at("smc_runs")) n += count(t, "temperatures");
  if (!j.at("training").is_null()) n += count(j.at("training"), "epochs_done");
  return n;
}

// Runs `logz ARGS`. With a signal: sends it once `checkpoint` shows at least `after` progress
// (so the moment depends on the run's progress, not on the machine's speed), after `delay`
// seconds more.
Outcome run(const std::vector<std::string>& args, const std::string& checkpoint = "",
            long after = 0, int signal = 0, double delay = 0) {
  const std::string err = temp_path("stderr.txt");
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(99);
    std::vector<char*> argv{const_cast<char*>("logz")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(LOGZ_CLI_PATH, argv.data());
    _exit(98);
  }
  if (signal != 0) {
    const auto limit = Clock::now() + std::chrono::seconds(120);
    while (progress_saved(checkpoint) < after && Clock::now() < limit &&
           waitpid(pid, nullptr, WNOHANG) == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    kill(pid, signal);
  }
  const auto signalled = Clock::now();
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.seconds_after_signal = std::chrono::duration<double>(Clock::now() - signalled).count();
  o.killed = WIFSIGNALED(status) && WTERMSIG(status) == signal;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.err = read_file(err);
  return o;
}

// The run of `args` (a config and its options) with a checkpoint, killed (SIGKILL) once it has
// saved `at` progress and `delay` seconds more; resumed on 1 thread and killed again `further`
// progress on (unless it ends first); then resumed to the end on 3 threads, writing `out`.
// Returns the progress saved at the first kill.
long killed_twice_and_resumed(std::vector<std::string> args, const std::string& checkpoint,
                              const std::string& out, long at, double delay, long further) {
  fs::remove(checkpoint);
  fs::remove(out);
  args.insert(args.end(), {"-q", "--threads", "2", "-o", out, "--checkpoint", checkpoint,
                           "--checkpoint-every", "0"});
  const Outcome first = run(args, checkpoint, at, SIGKILL, delay);
  EXPECT_TRUE(first.killed) << "the run ended before the kill: " << first.err;
  EXPECT_FALSE(fs::exists(out));
  const long saved = progress_saved(checkpoint);
  EXPECT_GE(saved, at);
  const Outcome second = run(
      {"run", "--resume", checkpoint, "-q", "--threads", "1", "-o", out, "--checkpoint-every", "0"},
      checkpoint, saved + further, SIGKILL);
  if (!second.killed) {
    EXPECT_EQ(second.exit_code, 0) << second.err;
  }
  const Outcome last = run({"run", "--resume", checkpoint, "-q", "--threads", "3", "-o", out});
  EXPECT_EQ(last.exit_code, 0) << last.err;
  // A kill while saving leaves CHECKPOINT.tmp-XXXXXX (io/output_file.hpp); the next run that
  // holds the checkpoint's lock removes it.
  for (const auto& e : fs::directory_iterator(fs::path(checkpoint).parent_path()))
    EXPECT_FALSE(
        e.path().filename().string().starts_with(fs::path(checkpoint).filename().string() + ".tmp"))
        << "a temporary checkpoint was left behind: " << e.path();
  return saved;
}

// `config` (written with `text`) run whole, then with a checkpoint and Ctrl-C 0.3 s after its
// first save: it stops within a second with one line saying where it stood (`where`), and the
// resumed run reports the whole run's bits.
void ctrl_c_stops_within_a_second_and_resumes(const std::string& config, const std::string& text,
                                              const std::string& where) {
  write_file(config, text);
  const std::string whole = config + ".whole.json", out = config + ".out.json",
                    checkpoint = config + ".ckpt";
  fs::remove(checkpoint);
  fs::remove(out);
  ASSERT_EQ(run({"run", config, "-q", "-o", whole}).exit_code, 0);
  const Outcome stopped =
      run({"run", config, "-q", "-o", out, "--checkpoint", checkpoint}, checkpoint, 0, SIGINT, 0.3);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_LT(stopped.seconds_after_signal, 1.0);
  EXPECT_NE(stopped.err.find(where), std::string::npos) << stopped.err;
  EXPECT_EQ(std::count(stopped.err.begin(), stopped.err.end(), '\n'), 1) << stopped.err;
  EXPECT_FALSE(fs::exists(out));
  ASSERT_EQ(run({"run", "--resume", checkpoint, "-q", "-o", out}).exit_code, 0);
  EXPECT_EQ(comparable_result(out), comparable_result(whole));
}

void killed_and_resumed_runs_match(const std::string& reverse_start) {
  const std::string config = temp_path(reverse_start + ".toml");
  write_file(config, config_text(reverse_start));
  const std::string whole = temp_path(reverse_start + "_whole.json");
  ASSERT_EQ(run({"run", config, "-q", "--threads", "2", "-o", whole}).exit_code, 0);
  const nlohmann::json expected = comparable_result(whole);
  ASSERT_TRUE(expected.contains("details")) << "the repetitions are reported";

  // 4 phases of 5 chunks. Kills early, in the middle and late, each some way into a chunk; each
  // run resumed is killed once more two chunks on (a resampled reverse start runs its forward
  // phase again first) before it is resumed to the end, on 1 and then 3 threads.
  for (const long at : {1, 8, 14}) {
    SCOPED_TRACE("killed after " + std::to_string(at) + " chunks, reverse start " + reverse_start);
    const std::string checkpoint = temp_path(reverse_start + "_run.ckpt"),
                      out = temp_path(reverse_start + "_out.json");
    const long saved = killed_twice_and_resumed({"run", config}, checkpoint, out, at,
                                                0.01 * static_cast<double>(at), 2);
    EXPECT_LT(saved, 20);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(comparable_result(out), expected);
  }
}

TEST(Checkpoint, ARunKilledAtAnyMomentAndResumedMatchesAnUninterruptedOne) {
  killed_and_resumed_runs_match("ground_state");
}

TEST(Checkpoint, ResampledReverseStartsRunTheirForwardPhaseAgain) {
  killed_and_resumed_runs_match("resampled");
}

TEST(Checkpoint, CtrlCSavesTheCheckpointAndSaysHowToResume) {
  const std::string config = temp_path("ctrl_c.toml"), checkpoint = temp_path("ctrl_c.ckpt");
  write_file(config, config_text("ground_state"));
  fs::remove(checkpoint);
  const std::string whole = temp_path("ctrl_c_whole.json"), out = temp_path("ctrl_c_out.json");
  fs::remove(out);
  ASSERT_EQ(run({"run", config, "-q", "-o", whole}).exit_code, 0);
  const Outcome stopped =
      run({"run", config, "-q", "-o", out, "--checkpoint", checkpoint}, checkpoint, 0, SIGINT, 0.5);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_NE(stopped.err.find("continue with logz run --resume " + checkpoint), std::string::npos)
      << stopped.err;
  EXPECT_EQ(std::count(stopped.err.begin(), stopped.err.end(), '\n'), 1) << stopped.err;
  EXPECT_FALSE(fs::exists(out));
  ASSERT_EQ(run({"run", "--resume", checkpoint, "-q", "-o", out}).exit_code, 0);
  EXPECT_EQ(comparable_result(out), comparable_result(whole));
}

TEST(Checkpoint, BadCheckpointsAndArgumentsGiveOneErrorLine) {
  const std::string config = temp_path("bad.toml"), checkpoint = temp_path("bad.ckpt");
  write_file(config, config_text("ground_state"));
  ASSERT_EQ(run_cli("run " + config + " -q --set schedule.num_steps=20 --checkpoint " + checkpoint)
                .exit_code,
            0);
  const std::string good = read_file(checkpoint);
  expect_one_line_error(run_cli("run --resume " + checkpoint + " --seed 4"),
                        "only --threads may change");
  expect_one_line_error(run_cli("run --resume " + checkpoint + " --set run.num_paths=8"),
                        "only --threads may change");
  expect_one_line_error(run_cli("run " + config + " --resume " + checkpoint),
                        "expected no config file");
  expect_one_line_error(run_cli("run " + config + " --checkpoint-every 5"), "--checkpoint-every");
  expect_one_line_error(
      run_cli("run " + config + " --set run.method=ground_state_integration --checkpoint " +
              checkpoint),
      "[run] method: expected \"annealing\", \"tempering\", \"smc\", \"population_annealing\" "
      "or \"parallel_tempering\" with --checkpoint (\"ground_state_integration\" cannot");
  expect_one_line_error(run_cli("run " + config + " --checkpoint /nonexistent/folder/x.ckpt"),
                        "/nonexistent/folder/x.ckpt");
  expect_one_line_error(run_cli("run --resume /nonexistent.ckpt"),
                        "/nonexistent.ckpt: expected a readable checkpoint");
  expect_one_line_error(run_cli("run --resume " + config), "expected a logz checkpoint");
  write_file(checkpoint, good.substr(0, good.size() - 10));
  expect_one_line_error(run_cli("run --resume " + checkpoint), "truncated");
  std::string flipped = good;
  flipped[good.size() / 2] ^= 1;
  write_file(checkpoint, flipped);
  expect_one_line_error(run_cli("run --resume " + checkpoint), "corrupted");
  expect_one_line_error(run_cli("run"), "expected a config file");
}

// Simulated tempering on an 8 x 8 Ising torus, two repetitions, each with initial iterations (or
// Wang-Landau) and a final run recording samples for MBAR: a few seconds in all.
std::string tempering_config_text(const std::string& initialization) {
  return R"([model]
type = "ising"
size = 8
beta = 0.6
[kernel]
steps_per_temperature = 64
[run]
method = "tempering"
seed = 11
repetitions = 2
[tempering]
num_temperatures = 30
num_chains = 40
initialization = ")" +
         initialization + R"("
sweeps_per_iteration = 40
tolerance = 0.001
max_initial_iterations = 12
num_sweeps = 3000
[estimators]
methods = ["rts", "ts", "ti_rb", "mbar"]
)";
}

void killed_and_resumed_tempering_matches(const std::string& initialization) {
  const std::string config = temp_path("tempering_" + initialization + ".toml");
  write_file(config, tempering_config_text(initialization));
  const std::string whole = temp_path("tempering_" + initialization + "_whole.json");
  ASSERT_EQ(run({"run", config, "-q", "--threads", "2", "-o", whole}).exit_code, 0);
  const nlohmann::json expected = comparable_result(whole);
  // Kills in the first run's initialization, early in its final run, and in the second run;
  // each resumed run is killed once more further on, then resumed to the end on 3 threads.
  for (const long at : {2L, 200L, 4000L}) {
    SCOPED_TRACE("killed at progress " + std::to_string(at) + ", initialization " + initialization);
    const std::string checkpoint = temp_path("tempering_" + initialization + "_run.ckpt"),
                      out = temp_path("tempering_" + initialization + "_out.json");
    killed_twice_and_resumed({"run", config}, checkpoint, out, at, 0.0, 500);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(comparable_result(out), expected);
  }
}

TEST(Checkpoint, TemperingKilledAtAnyStageAndResumedMatchesAnUninterruptedRun) {
  killed_and_resumed_tempering_matches("iterations");
}

TEST(Checkpoint, WangLandauTemperingKilledAndResumedMatchesAnUninterruptedRun) {
  killed_and_resumed_tempering_matches("wang_landau");
}

TEST(Checkpoint, CtrlCStopsTemperingWithinASecondAndSavesWhereItStood) {
  const std::string config = temp_path("tempering_ctrl_c.toml");
  // One repetition with a long final run, so that the signal comes while it runs.
  std::string text = tempering_config_text("iterations");
  text.replace(text.find("repetitions = 2"), 15, "repetitions = 1");
  text.replace(text.find("num_sweeps = 3000"), 17, "num_sweeps = 40000");
  text.replace(text.find(", \"mbar\""), 8, "");  // MBAR's jackknife on 1.6e6 samples: seconds
  ctrl_c_stops_within_a_second_and_resumes(config, text, "tempering run 1: ");
}

// Parallel tempering on a 12 x 12 Ising torus through its transition, two repetitions of 10
// rounds (2046 scans each), stepping stone and MBAR: a few seconds in all.
std::string pt_config_text() {
  return R"([model]
type = "ising"
size = 12
beta = 0.44
[kernel]
type = "heat_bath"
[run]
method = "parallel_tempering"
seed = 11
repetitions = 2
[pt]
rounds = 10
num_chains = 8
chunk_size = 3
[estimators]
methods = ["stepping_stone", "mbar"]
)";
}

TEST(Checkpoint, ParallelTemperingKilledInAnyRoundAndResumedMatchesAnUninterruptedRun) {
  const std::string config = temp_path("pt.toml");
  write_file(config, pt_config_text());
  const std::string whole = temp_path("pt_whole.json");
  ASSERT_EQ(run({"run", config, "-q", "--threads", "2", "-o", whole}).exit_code, 0);
  const nlohmann::json expected = comparable_result(whole);
  // Kills in an early round, in the first run's last round and in the second run; each resumed
  // run is killed once more further on, then resumed to the end on 3 threads.
  for (const long at : {10L, 1500L, 2500L}) {
    SCOPED_TRACE("killed at " + std::to_string(at) + " scans");
    const std::string checkpoint = temp_path("pt_run.ckpt"), out = temp_path("pt_out.json");
    killed_twice_and_resumed({"run", config}, checkpoint, out, at, 0.0, 200);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(comparable_result(out), expected);
  }
}

TEST(Checkpoint, CtrlCStopsParallelTemperingWithinASecondAndSavesWhereItStood) {
  const std::string config = temp_path("pt_ctrl_c.toml");
  std::string text = pt_config_text();
  // One repetition with longer rounds, so that the signal comes while it runs.
  text.replace(text.find("repetitions = 2"), 15, "repetitions = 1");
  text.replace(text.find("rounds = 10"), 11, "rounds = 11");
  text.replace(text.find(", \"mbar\""), 8, "");
  ctrl_c_stops_within_a_second_and_resumes(config, text, "parallel tempering run 1: round ");
}

// Adaptive tempered SMC on a complete product of six Laplace experts from a Gaussian fitted to a
// pilot run from a wide base: two SMC runs, the pilot's of 15 temperatures, the run's of 4 (about
// 1.3 of the run's 2 s).
std::string smc_config_text() {
  return R"([model]
type = "poe"
expert = "laplace"
dim = 6
parameter_seed = 3
[base]
sigma = 8.0
[run]
method = "smc"
seed = 11
[smc]
num_particles = 50000
pilot_base = true
pilot_particles = 10000
)";
}

TEST(Checkpoint, SmcKilledAtAnyTemperatureAndResumedMatchesAnUninterruptedRun) {
  const std::string config = temp_path("smc.toml");
  write_file(config, smc_config_text());
  const std::string whole = temp_path("smc_whole.json");
  ASSERT_EQ(run({"run", config, "-q", "--threads", "2", "-o", whole}).exit_code, 0);
  const nlohmann::json expected = comparable_result(whole);
  const auto pilot_temperatures =
      nlohmann::json::parse(read_file(whole))["kernel"]["pilot_base"]["num_temperatures"]
          .get<long>();
  ASSERT_GE(pilot_temperatures, 5);
  // Kills after the base draws, in the pilot and after the base draws of the run from the fitted
  // base; each resumed run is killed once more a temperature on, then resumed to the end on 3
  // threads.
  for (const long at : {0L, 3L, pilot_temperatures}) {
    SCOPED_TRACE("killed at " + std::to_string(at) + " temperatures");
    const std::string checkpoint = temp_path("smc_run.ckpt"), out = temp_path("smc_out.json");
    killed_twice_and_resumed({"run", config}, checkpoint, out, at, 0.05, 1);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(comparable_result(out), expected);
  }
}

TEST(Checkpoint, CtrlCStopsSmcWithinASecondAndSavesWhereItStood) {
  ctrl_c_stops_within_a_second_and_resumes(temp_path("smc_ctrl_c.toml"), smc_config_text(),
                                           "SMC run 1: ");
}

// Population annealing of the 16 x 16 Ising torus to its critical point, two repetitions of
// 8192 replicas: about 40 temperatures each, a few seconds in all.
std::string population_config_text() {
  return R"([model]
type = "ising"
size = 16
beta = 0.44
[kernel]
type = "heat_bath"
site_order = "checkerboard"
steps_per_temperature = 2
[run]
method = "population_annealing"
seed = 9
repetitions = 2
[population_annealing]
num_replicas = 8192
)";
}

TEST(Checkpoint, PopulationAnnealingKilledAtAnyTemperatureAndResumedMatchesAnUninterruptedRun) {
  const std::string config = temp_path("pa.toml");
  write_file(config, population_config_text());
  const std::string whole = temp_path("pa_whole.json");
  ASSERT_EQ(run({"run", config, "-q", "--threads", "2", "-o", whole}).exit_code, 0);
  const nlohmann::json expected = comparable_result(whole);
  // Kills after the base draws, in the first repetition and in the second; each resumed run is
  // killed once more two temperatures on, then resumed to the end on 3 threads.
  for (const long at : {0L, 10L, 50L}) {
    SCOPED_TRACE("killed at " + std::to_string(at) + " temperatures");
    const std::string checkpoint = temp_path("pa_run.ckpt"), out = temp_path("pa_out.json");
    killed_twice_and_resumed({"run", config}, checkpoint, out, at, 0.02, 2);
    if (::testing::Test::HasFailure()) return;
    EXPECT_EQ(comparable_result(out), expected);
  }
}

TEST(Checkpoint, CtrlCStopsPopulationAnnealingWithinASecondAndSavesWhereItStood) {
  std::string text = population_config_text();
  text.replace(text.find("repetitions = 2"), 15, "repetitions = 1");
  ctrl_c_stops_within_a_second_and_resumes(temp_path("pa_ctrl_c.toml"), text,
                                           "population annealing run 1: ");
}

// `logz train rbm` with log Z tracking on 200 noisy copies of two 6-pixel prototypes: 80 epochs
// of PCD, a few seconds.
std::string training_config(const std::string& name) {
  const std::string data = temp_path(name + ".npy");
  logz::io::Array a;
  a.shape = {200, 6};
  for (std::uint64_t n = 0; n < 200; ++n) {
    logz::RandomStream s(17, n, logz::Purpose::test, 0);
    for (int i = 0; i < 6; ++i)
      a.doubles().push_back(s.bernoulli(0.1) != ((i < 3) == (n % 2 == 0)) ? 1.0 : 0.0);
  }
  logz::io::write_npy(data, a);
  const std::string config = temp_path(name + ".toml");
  write_file(
      config,
      "[data]\nsource = \"npy\"\npath = \"" + data +
          "\"\nnum_validation = 20\n[model]\nnum_hidden = 3\n"
          "[training]\nmethod = \"pcd\"\nk = 2\nbatch_size = 10\nlearning_rate = 0.01\nepochs = "
          "80\n"
          "[tracking]\nmethod = \"rts\"\nnum_temperatures = 20\nsweeps = 5\nevery = 1\ncsv = \"" +
          temp_path(name + ".tracking.csv") + "\"\n[output]\nweights = \"" +
          temp_path(name + ".npz") + "\"\nhistory = \"" + temp_path(name + ".history.csv") +
          "\"\n");
  return config;
}

// A CSV without its columns of seconds (wall times differ between runs): the first `keep` cells
// of every line.
std::string without_seconds(const std::string& csv, std::size_t keep) {
  std::istringstream lines(csv);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    std::stringstream cells(line);
    std::size_t i = 0;
    for (std::string c; i < keep && std::getline(cells, c, ','); ++i) out += c + ",";
    out += "\n";
  }
  return out;
}

TEST(Checkpoint, TrainingKilledAndResumedWritesTheBitsOfAnUninterruptedRun) {
  const std::string name = "train", config = training_config(name),
                    checkpoint = temp_path("train.ckpt");
  const std::string weights = temp_path(name + ".npz"),
                    tracking = temp_path(name + ".tracking.csv"),
                    history = temp_path(name + ".history.csv");
  ASSERT_EQ(run({"train", "rbm", config, "-q"}).exit_code, 0);
  const std::string expected_weights = read_file(weights);
  const std::string expected_tracking = without_seconds(read_file(tracking), 11);
  const std::string expected_history = without_seconds(read_file(history), 4);
  for (const long at : {0L, 3L, 60L}) {
    SCOPED_TRACE("killed after " + std::to_string(at) + " epochs");
    fs::remove(checkpoint);
    fs::remove(weights);
    const Outcome first =
        run({"train", "rbm", config, "-q", "--checkpoint", checkpoint, "--checkpoint-every", "0"},
            checkpoint, at, SIGKILL);
    ASSERT_TRUE(first.killed) << "the run ended before the kill: " << first.err;
    EXPECT_FALSE(fs::exists(weights));
    const long saved = progress_saved(checkpoint);
    const Outcome second =
        run({"train", "rbm", "--resume", checkpoint, "-q", "--checkpoint-every", "0"}, checkpoint,
            saved + 20, SIGKILL);
    if (!second.killed) {
      ASSERT_EQ(second.exit_code, 0) << second.err;
    }
    const Outcome last = run({"train", "rbm", "--resume", checkpoint, "-q"});
    ASSERT_EQ(last.exit_code, 0) << last.err;
    EXPECT_EQ(read_file(weights), expected_weights) << "the weights differ";
    EXPECT_EQ(without_seconds(read_file(tracking), 11), expected_tracking);
    EXPECT_EQ(without_seconds(read_file(history), 4), expected_history);
  }
}

TEST(Checkpoint, CtrlCStopsTrainingAndACheckpointResumesOnlyItsOwnCommand) {
  const std::string config = training_config("train_ctrl_c"),
                    checkpoint = temp_path("train_ctrl_c.ckpt");
  fs::remove(checkpoint);
  const Outcome stopped =
      run({"train", "rbm", config, "-q", "--checkpoint", checkpoint}, checkpoint, 0, SIGINT, 0.5);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.err;
  EXPECT_LT(stopped.seconds_after_signal, 1.0);
  EXPECT_NE(stopped.err.find("continue with logz train rbm --resume " + checkpoint),
            std::string::npos)
      << stopped.err;
  EXPECT_EQ(std::count(stopped.err.begin(), stopped.err.end(), '\n'), 1) << stopped.err;
  expect_one_line_error(run_cli("run --resume " + checkpoint),
                        "a checkpoint of logz train rbm: expected one of logz run");
  expect_one_line_error(run_cli("train rbm --resume " + checkpoint + " --seed 3"),
                        "expected no config file");
  ASSERT_EQ(run({"train", "rbm", "--resume", checkpoint, "-q"}).exit_code, 0);
}

}  // namespace
