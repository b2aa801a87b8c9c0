// Checkpoint files (persistence/checkpoint.hpp): what is written is read back bit for bit, and a
// truncated, corrupted, edited or foreign checkpoint is refused with one error naming the file.
#include "logz/persistence/checkpoint.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "logz/core/error.hpp"
#include "support/cli.hpp"

namespace {

using logz::AnnealPhaseRecord;
using logz::CheckpointedConfig;

CheckpointedConfig config() {
  return {
      "[model]\ntype = \"ising\"\nsize = 4\n", "/tmp/x/ising.toml", {"run.num_paths=10"}, 7u, 2};
}

AnnealPhaseRecord phase(std::size_t chunks_done) {
  AnnealPhaseRecord p;
  p.shape = {.num_paths = 10, .chunk_size = 4, .num_chunks = 3, .num_temperatures = 3};
  p.chunks_done = chunks_done;
  for (std::size_t i = 0; i < std::min<std::size_t>(chunks_done * 4, 10); ++i)
    p.works.push_back(0.1 * double(i) - 1e-300);
  p.energy_sum = {-1.5, std::numeric_limits<double>::quiet_NaN(),
                  std::numeric_limits<double>::infinity()};
  p.attempted = {0, 40, 18446744073709551615ull};
  p.accepted = {0, 13, 5};
  return p;
}

// A tempering run in its final run, 2 of 5 sweeps done, over 3 levels with 5 chains in chunks of 2.
logz::TemperingRecord tempering() {
  logz::TemperingRecord t;
  t.shape = {.num_chains = 5,
             .chunk_size = 2,
             .num_levels = 3,
             .num_sweeps = 5,
             .initialization = "iterations"};
  t.stage = logz::TemperingStage::final_run;
  t.initial = {.log_z_hat = {0.0, -1.5, 1e-300},
               .iterations = 4,
               .converged = true,
               .deviations = {0.5, 0.01}};
  t.wang_landau = logz::WangLandauState({0.0, 0.0, 0.0}, {});
  t.chains = {.next_step = 9,
              .level = {0, 2, 1, 1, 0},
              .chunk_states = {std::string("\x01\xff\0a", 4), "bc", "d"}};
  t.final_run.sweeps = 5;
  t.final_run.sweeps_done = 2;
  t.final_run.first_step = 7;
  t.final_run.stats.num_levels = 3;
  t.final_run.stats.chains.assign(5, logz::ChainTemperingStats(3));
  t.final_run.stats.chains[1].add(0.25, std::vector<double>{-0.1, -2.0, -3.0}, 0);
  t.final_run.chunks.resize(3);
  t.final_run.chunks[1] = {.delta = {0.25, -1.0},
                           .energies = {},
                           .level = {0, 2},
                           .chain = {2, 3},
                           .moves = {3, 8, true, {1, 0, 2}, {4, 0, 4}}};
  return t;
}

// The bits of doubles (NaN == NaN when the bits agree).
std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(std::bit_cast<std::uint64_t>(x));
  return out;
}

// The checkpoint with its JSON changed by `edit` and framed again with a correct CRC.
std::string edited(const std::string& text, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json body = nlohmann::json::parse(text.substr(text.find('\n') + 1));
  edit(body);
  const std::string dumped = body.dump();
  const auto crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(dumped.data()),
                         static_cast<uInt>(dumped.size()));
  char head[64];
  std::snprintf(head, sizeof head, "logz-checkpoint 1 %08lx %zu\n", static_cast<unsigned long>(crc),
                dumped.size());
  return head + dumped;
}

void expect_refused(const std::string& text, const std::string& needle) {
  try {
    logz::parse_checkpoint(text, "run.ckpt");
    ADD_FAILURE() << "accepted; expected an error containing " << needle;
  } catch (const logz::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("run.ckpt: ", 0), 0u) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(Checkpoint, WhatIsWrittenIsReadBackBitForBit) {
  const std::vector<AnnealPhaseRecord> phases = {phase(3), phase(1), phase(0)};
  const auto back =
      logz::parse_checkpoint(logz::checkpoint_text({config(), phases, {}}), "run.ckpt");
  EXPECT_EQ(back.config.text, config().text);
  EXPECT_EQ(back.config.source, config().source);
  EXPECT_EQ(back.config.sets, config().sets);
  EXPECT_EQ(back.config.seed, 7u);
  EXPECT_EQ(back.config.threads, 2);
  ASSERT_EQ(back.phases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = phases[i];
    const auto& b = back.phases[i];
    EXPECT_TRUE(a.shape == b.shape);
    EXPECT_EQ(a.chunks_done, b.chunks_done);
    EXPECT_EQ(bits(a.works), bits(b.works));
    EXPECT_EQ(bits(a.energy_sum), bits(b.energy_sum));
    EXPECT_EQ(a.attempted, b.attempted);
    EXPECT_EQ(a.accepted, b.accepted);
  }
  EXPECT_TRUE(back.phases[0].complete());
  EXPECT_FALSE(back.phases[1].complete());
}

TEST(Checkpoint, TruncatedExtendedOrFlippedFilesAreRefused) {
  const std::string text = logz::checkpoint_text({config(), {phase(2)}, {}});
  expect_refused("", "expected a logz checkpoint");
  expect_refused("logz-checkpoint 1", "expected a logz checkpoint");
  expect_refused(text.substr(0, text.size() / 2), "truncated");
  expect_refused(text + " ", "truncated or extended");
  for (std::size_t at : {text.find('\n') + 5, text.size() / 2, text.size() - 3}) {
    std::string flipped = text;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x04);
    expect_refused(flipped, "CRC-32");
  }
  expect_refused("logz-checkpoint 2" + text.substr(17), "format 2: expected format 1");
}

TEST(Checkpoint, EditedOrForeignContentsAreRefusedNamingTheField) {
  const std::string text = logz::checkpoint_text({config(), {phase(2)}, {}});
  using J = nlohmann::json;
  expect_refused(edited(text, [](J& j) { j["logz_version"] = "0.0.1"; }), "written by logz 0.0.1");
  expect_refused(edited(text, [](J& j) { j["config"]["text"] = "[model]\ntype = \"potts\"\n"; }),
                 "config was edited");
  expect_refused(edited(text, [](J& j) { j["config"]["seed"] = 8; }), "config was edited");
  expect_refused(edited(text, [](J& j) { j["config"]["threads"] = -1; }), "config.threads");
  expect_refused(edited(text, [](J& j) { j.erase("phases"); }), "phases: expected a value");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["chunks_done"] = 4; }),
                 "chunks_done: expected at most num_chunks");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["num_chunks"] = 1000000000000; }),
                 "num_chunks");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["chunk_size"] = 0; }), "num_chunks");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["works"] = "00"; }),
                 "works: expected 16 hex digits");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["works"] = std::string(16 * 9, '0'); }),
                 "expected 8 works");
  expect_refused(edited(text, [](J& j) { j["phases"][0]["works"] = std::string(16 * 8, 'G'); }),
                 "hex digits");
  expect_refused(edited(text,
                        [](J& j) {
                          j["phases"][0]["attempted"] = J::array({1, 2});
                        }),
                 "one sum per temperature");
  expect_refused(edited(text,
                        [](J& j) {
                          j["phases"][0]["accepted"] = J::array({1, -2, 3});
                        }),
                 "accepted");
  expect_refused(edited(text, [](J& j) { j["phases"] = J::array({1}); }),
                 "phases[0]: expected an object");
}

// A forged checkpoint with a recomputed CRC: what it holds must still be possible.
TEST(Checkpoint, ForgedContentsThatBreakTheRunsInvariantsAreRefused) {
  using J = nlohmann::json;
  const std::string text = logz::checkpoint_text({config(), {phase(2), phase(3)}, {tempering()}});
  expect_refused(edited(text, [](J& j) { j["phases"][0]["accepted"][1] = 41; }),
                 "phases[0].accepted[1]: expected at most the 40 moves attempted");
  expect_refused(edited(text, [](J& j) { j["phases"][1] = j["phases"][0]; }),
                 "not a copy of phases[0]'s");
  expect_refused(
      edited(text, [](J& j) { j["tempering_runs"][0]["final_run"]["chunks"][1]["accepted"] = 9; }),
      "accepted: expected at most the 8 moves attempted");
  expect_refused(
      edited(text,
             [](J& j) {
               j["files_read"] = J::array({{{"path", "a"}, {"size", 1}, {"sha256", "x"}}});
             }),
      "files_read[0].sha256: expected 64 lower-case hex digits");
}

TEST(Checkpoint, TheFilesARunReadAreFingerprintedAndAChangeIsNamed) {
  const std::string data = logz::test_support::temp_path("weights.bin");
  logz::test_support::write_file(data, "0123456789");
  logz::FilesRead files;
  files.add(data);
  files.add(data);                                          // once
  files.add(logz::test_support::temp_path("missing.bin"));  // its reader names it
  ASSERT_EQ(files.files().size(), 1u);
  EXPECT_EQ(files.files()[0].size, 10u);
  EXPECT_EQ(files.files()[0].sha256,
            "84d89877f0d4041efb6bf91a16f0248f2fd573e6af05c19f96bedb9f882f7882");
  auto contents = logz::CheckpointContents{config(), {}, {}};
  contents.files = files.files();
  const auto back = logz::parse_checkpoint(logz::checkpoint_text(contents), "run.ckpt");
  EXPECT_EQ(back.files, files.files());
  EXPECT_NO_THROW(logz::FilesRead(back.files).check_unchanged("run.ckpt"));
  logz::test_support::write_file(data, "0123456780");  // the same size
  try {
    logz::FilesRead(back.files).check_unchanged("run.ckpt");
    ADD_FAILURE() << "a changed file was accepted";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(data + ": changed since the run saved in run.ckpt"),
              std::string::npos)
        << e.what();
  }
}

TEST(Checkpoint, ASaveThatFailsOnTheWayIsSaidOnceAndKeepsTheRecords) {
  const std::string folder = logz::test_support::temp_path("gone");
  std::filesystem::create_directories(folder);
  logz::RunCheckpoint c(folder + "/run.ckpt", config(), 0.0);
  std::vector<std::string> said;
  c.set_warnings([&](const std::string& line) { said.push_back(line); });
  auto p = phase(1);
  ASSERT_EQ(c.begin_phase(p.shape, true), nullptr);
  std::filesystem::remove_all(folder);  // the folder is gone: saves fail
  c.merged({p.shape, 1, p.works, p.energy_sum, p.attempted, p.accepted});
  c.merged({p.shape, 1, p.works, p.energy_sum, p.attempted, p.accepted});
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("checkpoint not saved"), std::string::npos) << said[0];
  std::filesystem::create_directories(folder);  // back: the next save writes what was merged
  EXPECT_TRUE(c.save_or_warn());
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[1].find("saved again after 2 failed saves"), std::string::npos) << said[1];
  auto read = logz::RunCheckpoint::read(folder + "/run.ckpt", 60.0);
  const AnnealPhaseRecord* saved = read.begin_phase(p.shape, true);
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->chunks_done, 1u);
}

// A stop after the sampling (while the estimators run) must say how to resume within the second
// mpirun gives the ranks, not write a large checkpoint again: a save with nothing recorded since
// the last one writes nothing.
TEST(Checkpoint, ASaveWithNothingNewWritesNothing) {
  const std::string path = logz::test_support::temp_path("unchanged.ckpt");
  logz::RunCheckpoint c(path, config(), 0.0);
  auto p = phase(1);
  ASSERT_EQ(c.begin_phase(p.shape, true), nullptr);
  c.merged({p.shape, 1, p.works, p.energy_sum, p.attempted, p.accepted});
  ASSERT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove(path);  // seen by the next write, were there one
  EXPECT_TRUE(c.save_or_warn());
  EXPECT_FALSE(std::filesystem::exists(path));
  c.end_phase({p.shape, 1, p.works, p.energy_sum, p.attempted, p.accepted});
  EXPECT_TRUE(c.save_or_warn());
  EXPECT_TRUE(std::filesystem::exists(path));
  c.save();  // an explicit save writes whatever it holds
  std::filesystem::remove(path);
  c.save();
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(Checkpoint, OneRunAtATimeHoldsACheckpoint) {
  const std::string path = logz::test_support::temp_path("locked.ckpt");
  logz::RunCheckpoint first(path, config(), 60.0), second(path, config(), 60.0);
  first.lock();
  try {
    second.lock();
    ADD_FAILURE() << "two runs locked one checkpoint";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another logz run (process "), std::string::npos)
        << e.what();
  }
}

TEST(Checkpoint, AResumedRunMustMatchTheShapeOfItsPhases) {
  const std::string path = logz::test_support::temp_path("shape.ckpt");
  logz::RunCheckpoint written(path, config(), 60.0);
  auto p = phase(1);
  ASSERT_EQ(written.begin_phase(p.shape, true), nullptr)
      << "a new checkpoint has nothing to resume";
  written.end_phase({p.shape, 1, p.works, p.energy_sum, p.attempted, p.accepted});
  written.save();
  auto read = logz::RunCheckpoint::read(path, 60.0);
  EXPECT_EQ(read.num_phases(), 1u);
  EXPECT_EQ(read.num_complete_phases(), 0u);
  auto other = p.shape;
  other.num_temperatures = 4;
  EXPECT_THROW(read.begin_phase(other, true), logz::InputError);
  auto again = logz::RunCheckpoint::read(path, 60.0);
  const AnnealPhaseRecord* saved = again.begin_phase(p.shape, true);
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->chunks_done, 1u);
  EXPECT_EQ(saved->works, p.works);
  auto rerun = logz::RunCheckpoint::read(path, 60.0);
  EXPECT_EQ(rerun.begin_phase(p.shape, false), nullptr)
      << "a phase whose end states are needed runs again";
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(
        "logz_Checkpoint_AResumedRunMustMatchTheShapeOfItsPhases_shape.ckpt.tmp"))
        << e.path();
}

TEST(Checkpoint, UnreadableOrUnwritablePathsAreInputErrors) {
  EXPECT_THROW(logz::RunCheckpoint::read("/nonexistent/run.ckpt", 60.0), logz::InputError);
  EXPECT_THROW(logz::RunCheckpoint::read(::testing::TempDir(), 60.0), logz::InputError);
  logz::RunCheckpoint c("/nonexistent/folder/run.ckpt", config(), 60.0);
  EXPECT_THROW(c.save(), logz::InputError);
}

}  // namespace

namespace {

TEST(Checkpoint, TemperingRecordsAreReadBackBitForBit) {
  const logz::TemperingRecord t = tempering();
  const std::string text = logz::checkpoint_text({config(), {}, {t, t}});
  const auto back = logz::parse_checkpoint(text, "run.ckpt");
  ASSERT_EQ(back.temperings.size(), 2u);
  const auto& b = back.temperings[1];
  EXPECT_TRUE(b.shape == t.shape);
  EXPECT_EQ(b.stage, t.stage);
  EXPECT_EQ(bits(b.initial.log_z_hat), bits(t.initial.log_z_hat));
  EXPECT_EQ(b.initial.iterations, 4);
  EXPECT_EQ(b.chains.level, t.chains.level);
  EXPECT_EQ(b.chains.chunk_states, t.chains.chunk_states);
  EXPECT_EQ(b.final_run.sweeps_done, 2u);
  EXPECT_EQ(bits(b.final_run.stats.chains[1].q_shift), bits(t.final_run.stats.chains[1].q_shift));
  EXPECT_EQ(bits(b.final_run.stats.chains[1].rb_delta_sum),
            bits(t.final_run.stats.chains[1].rb_delta_sum));
  EXPECT_EQ(b.final_run.chunks[1].level, t.final_run.chunks[1].level);
  EXPECT_EQ(b.final_run.chunks[1].moves.attempted, 8u);
  EXPECT_TRUE(b.final_run.chunks[1].moves.by_level);
  EXPECT_EQ(b.final_run.chunks[1].moves.level_accepted, (std::vector<std::uint64_t>{1, 0, 2}));
  EXPECT_EQ(b.final_run.chunks[1].moves.level_attempted, (std::vector<std::uint64_t>{4, 0, 4}));
  EXPECT_EQ(logz::checkpoint_text(back), text);
}

TEST(Checkpoint, EditedTemperingRecordsAreRefusedNamingTheField) {
  const std::string text = logz::checkpoint_text({config(), {}, {tempering()}});
  using J = nlohmann::json;
  auto run = [](J& j) -> J& { return j["tempering_runs"][0]; };
  expect_refused(edited(text, [&](J& j) { run(j)["stage"] = "halfway"; }),
                 "tempering_runs[0].stage");
  expect_refused(edited(text, [&](J& j) { run(j)["num_levels"] = 1; }), "over 2 or more levels");
  expect_refused(edited(text, [&](J& j) { run(j)["chains"]["level"][2] = 3; }),
                 "chains.level: expected whole numbers below 3");
  expect_refused(edited(text, [&](J& j) { run(j)["chains"]["level"].erase(0); }),
                 "one level per chain (5)");
  expect_refused(edited(text, [&](J& j) { run(j)["chains"]["chunk_states"][0] = "abc"; }),
                 "hex digit pairs");
  expect_refused(edited(text, [&](J& j) { run(j)["initial"]["log_z_hat"] = "00"; }),
                 "initial.log_z_hat");
  expect_refused(edited(text, [&](J& j) { run(j)["final_run"]["sweeps_done"] = 6; }),
                 "final_run.sweeps");
  expect_refused(
      edited(text, [&](J& j) { run(j)["final_run"]["chains"][0]["counts"] = J::array({1}); }),
      "final_run.chains[0].counts");
  expect_refused(edited(text,
                        [&](J& j) {
                          run(j)["final_run"]["chunks"][1]["level"] = J::array({0, 7});
                        }),
                 "chunks[1].level");
  expect_refused(
      edited(text, [&](J& j) { run(j)["final_run"]["chunks"][1]["level"] = J::array({0}); }),
      "one delta, level and chain per sample");
  expect_refused(
      edited(text, [&](J& j) { run(j)["final_run"]["chunks"][1]["level_accepted"][2] = 5; }),
      "chunks[1].level_accepted: expected at most 3 counts, as many as level_attempted, none "
      "above");
  expect_refused(
      edited(text,
             [&](J& j) {
               run(j)["final_run"]["chunks"][1]["level_attempted"] = J::array({1, 1, 1, 1});
             }),
      "chunks[1].level_accepted");
  expect_refused(edited(text, [&](J& j) { j.erase("tempering_runs"); }),
                 "tempering_runs: expected a value");
}

TEST(Checkpoint, AResumedTemperingMustMatchItsShape) {
  const std::string path = logz::test_support::temp_path("tempering_shape.ckpt");
  logz::RunCheckpoint written(path, config(), 60.0);
  const logz::TemperingRecord t = tempering();
  ASSERT_EQ(written.begin_tempering(t.shape), nullptr) << "a new checkpoint has nothing to resume";
  written.record(t);
  written.save();
  auto read = logz::RunCheckpoint::read(path, 60.0);
  auto other = t.shape;
  other.num_sweeps = 6;
  EXPECT_THROW(read.begin_tempering(other), logz::InputError);
  auto again = logz::RunCheckpoint::read(path, 60.0);
  const logz::TemperingRecord* saved = again.begin_tempering(t.shape);
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->final_run.sweeps_done, 2u);
  EXPECT_NE(again.progress().find("final run, 2 of 5 sweeps"), std::string::npos)
      << again.progress();
}

}  // namespace

namespace {

// A parallel tempering record 3 scans into round 2 of 4: 3 chains in chunks of 2.
logz::PtRecord pt_record() {
  logz::PtRecord t;
  t.shape = {3, 2, 4};
  t.round = 2;
  t.scans_done = 3;
  t.schedule = {0.0, 0.3, 0.7, 1.0};
  t.rounds.push_back({2, {0.0, 0.5, 1.0}, {0.25, 0.125}, 0.375, 1});
  t.updates = 96;
  t.non_finite = 1;
  t.capped_by_memory = true;
  t.chunks = {std::string("\x01\x02\x00\xff", 4), "chunk two"};
  return t;
}

TEST(Checkpoint, ParallelTemperingRecordsAreReadBackBitForBit) {
  logz::CheckpointContents contents{config(), {}, {}};
  contents.pt_runs = {pt_record(), pt_record()};
  const std::string text = logz::checkpoint_text(contents);
  const auto back = logz::parse_checkpoint(text, "run.ckpt");
  ASSERT_EQ(back.pt_runs.size(), 2u);
  const logz::PtRecord& b = back.pt_runs[1];
  const logz::PtRecord t = pt_record();
  EXPECT_TRUE(b.shape == t.shape);
  EXPECT_EQ(b.round, 2u);
  EXPECT_EQ(b.scans_done, 3u);
  EXPECT_EQ(b.total_scans(), 5u);
  EXPECT_EQ(bits(b.schedule), bits(t.schedule));
  ASSERT_EQ(b.rounds.size(), 1u);
  EXPECT_EQ(bits(b.rounds[0].rejection), bits(t.rounds[0].rejection));
  EXPECT_EQ(b.rounds[0].global_barrier, 0.375);
  EXPECT_EQ(b.rounds[0].round_trips, 1u);
  EXPECT_EQ(b.updates, 96u);
  EXPECT_EQ(b.non_finite, 1u);
  EXPECT_TRUE(b.capped_by_memory);
  EXPECT_EQ(b.chunks, t.chunks);
  EXPECT_EQ(logz::checkpoint_text(back), text);
}

TEST(Checkpoint, EditedParallelTemperingRecordsAreRefusedNamingTheField) {
  logz::CheckpointContents contents{config(), {}, {}};
  contents.pt_runs = {pt_record()};
  const std::string text = logz::checkpoint_text(contents);
  using J = nlohmann::json;
  auto run = [](J& j) -> J& { return j["pt_runs"][0]; };
  expect_refused(edited(text, [&](J& j) { run(j)["round"] = 5; }), "pt_runs[0].round");
  expect_refused(edited(text, [&](J& j) { run(j)["scans_done"] = 5; }), "pt_runs[0].round");
  expect_refused(edited(text, [&](J& j) { run(j)["rounds"] = 25; }), "1 to 24 rounds");
  expect_refused(edited(text, [&](J& j) { run(j)["schedule"] = "3ff0000000000000"; }),
                 "pt_runs[0].schedule");
  expect_refused(edited(text, [&](J& j) { run(j)["rounds_done"] = J::array(); }),
                 "pt_runs[0].rounds_done");
  expect_refused(edited(text, [&](J& j) { run(j)["rounds_done"][0]["scans"] = 4; }),
                 "pt_runs[0].rounds_done[0].scans");
  expect_refused(edited(text, [&](J& j) { run(j)["rounds_done"][0]["rejection"] = ""; }),
                 "one rejection per pair");
  expect_refused(edited(text, [&](J& j) { run(j)["chunks"].erase(1); }), "pt_runs[0].chunks");
  expect_refused(edited(text, [&](J& j) { run(j)["chunks"][0] = "0g"; }), "pt_runs[0].chunks[0]");
}

TEST(Checkpoint, AResumedParallelTemperingMustMatchItsShape) {
  logz::CheckpointContents contents{config(), {}, {}};
  contents.pt_runs = {pt_record()};
  const std::string path = ::testing::TempDir() + "logz_pt_shape.ckpt";
  std::ofstream(path) << logz::checkpoint_text(contents);
  logz::RunCheckpoint read = logz::RunCheckpoint::read(path, 60.0);
  EXPECT_NE(read.progress().find("parallel tempering run 1: round 2 of 4, 3 of its 4 scans"),
            std::string::npos)
      << read.progress();
  try {
    read.begin_pt({3, 2, 5});
    ADD_FAILURE() << "a run of 5 rounds resumed a record of 4";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("parallel tempering run 1: expected 3 chains in chunks "
                                         "of 2 over 5 rounds"),
              std::string::npos)
        << e.what();
  }
  logz::RunCheckpoint again = logz::RunCheckpoint::read(path, 60.0);
  const logz::PtRecord* saved = again.begin_pt({3, 2, 4});
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->chunks, pt_record().chunks);
  EXPECT_EQ(again.begin_pt({3, 2, 4}), nullptr) << "a second run begins afresh";
  std::filesystem::remove(path);
}

// SMC records (smc/smc_journal.hpp): read back as written, edited ones refused naming the field,
// a resumed run of another shape refused, and a record begun but never filled started afresh.
TEST(Checkpoint, SmcRecordsReadBackAndMustMatchTheirRun) {
  logz::CheckpointContents contents{config(), {}, {}};
  contents.smc_runs = {{.shape = {100, 3, 16},
                        .temperatures = 7,
                        .temperature = 0.25,
                        .state = std::string("\x01\x00\xff state", 9)},
                       {.shape = {50, 0, 64}}};
  const std::string text = logz::checkpoint_text(contents);
  const logz::CheckpointContents back = logz::parse_checkpoint(text, "run.ckpt");
  ASSERT_EQ(back.smc_runs.size(), 2u);
  EXPECT_EQ(back.smc_runs[0].shape, (logz::SmcShape{100, 3, 16}));
  EXPECT_EQ(back.smc_runs[1].shape, (logz::SmcShape{50, 0, 64}));
  EXPECT_EQ(back.smc_runs[0].temperatures, 7u);
  EXPECT_EQ(back.smc_runs[0].temperature, 0.25);
  EXPECT_EQ(back.smc_runs[0].state, contents.smc_runs[0].state);
  EXPECT_EQ(logz::checkpoint_text(back), text);
  using J = nlohmann::json;
  auto run = [](J& j) -> J& { return j["smc_runs"][0]; };
  expect_refused(edited(text, [&](J& j) { run(j)["num_particles"] = 1; }),
                 "smc_runs[0].num_particles");
  expect_refused(edited(text, [&](J& j) { run(j)["temperature"] = "4000000000000000"; }),
                 "smc_runs[0].temperature");
  expect_refused(edited(text, [&](J& j) { run(j)["state"] = "0g"; }), "smc_runs[0].state");
  expect_refused(edited(text, [&](J& j) { run(j).erase("dim"); }), "smc_runs[0].dim");
  expect_refused(edited(text, [&](J& j) { run(j)["chunk_size"] = 0; }),
                 "smc_runs[0].num_particles");

  const std::string path = ::testing::TempDir() + "logz_smc_shape.ckpt";
  std::ofstream(path) << text;
  logz::RunCheckpoint read = logz::RunCheckpoint::read(path, 60.0);
  EXPECT_NE(read.progress().find("SMC run 1: 7 temperatures, t = 0.25"), std::string::npos)
      << read.progress();
  try {
    read.begin_smc({100, 4, 16});
    ADD_FAILURE() << "a run in 4 dimensions resumed a record of 3";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "SMC run 1: expected 100 particles in 4 dimensions in chunks of 16"),
              std::string::npos)
        << e.what();
  }
  logz::RunCheckpoint annealing = logz::RunCheckpoint::read(path, 60.0);
  annealing.begin_smc({100, 3, 16});
  try {
    annealing.begin_smc({60, 0, 64});  // population annealing's replicas have no dimension
    ADD_FAILURE() << "a population annealing run of 60 replicas resumed a record of 50";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("population annealing run 2: expected 60 replicas in "
                                         "chunks of 64, as the checkpoint's config gives, found "
                                         "50 replicas in chunks of 64"),
              std::string::npos)
        << e.what();
  }
  logz::RunCheckpoint again = logz::RunCheckpoint::read(path, 60.0);
  const logz::SmcRecord* saved = again.begin_smc({100, 3, 16});
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->state, contents.smc_runs[0].state);
  EXPECT_EQ(again.begin_smc({50, 0, 64}), nullptr) << "begun, never recorded: afresh";
  EXPECT_EQ(again.begin_smc({50, 0, 64}), nullptr) << "a third run begins afresh";
  std::filesystem::remove(path);
}

}  // namespace

namespace {

// A record that takes long to make (parallel tempering's, with every sample of its last round)
// is asked for no more often than ten times what it took: from the journal's yes to the record.
// Records that take no time are asked for every second.
TEST(Checkpoint, ACostlyRecordIsAskedForAtMostATenthOfTheTime) {
  using namespace std::chrono_literals;
  const std::string path = logz::test_support::temp_path("costly.ckpt");
  logz::RunCheckpoint c(path, config(), 3600.0);
  ASSERT_EQ(c.begin_pt({3, 2, 4}), nullptr);
  EXPECT_FALSE(c.wants_record()) << "just begun";
  std::this_thread::sleep_for(1100ms);
  ASSERT_TRUE(c.wants_record()) << "a second on";
  c.record(pt_record());  // quick
  std::this_thread::sleep_for(1100ms);
  ASSERT_TRUE(c.wants_record());
  std::this_thread::sleep_for(200ms);  // a record that took 0.2 s to make
  c.record(pt_record());
  std::this_thread::sleep_for(1100ms);
  EXPECT_FALSE(c.wants_record()) << "the next is due 2 s after it, not 1 s";
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(c.wants_record());
}

}  // namespace
