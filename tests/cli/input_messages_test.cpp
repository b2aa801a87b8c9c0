// What the tool says about input it cannot take, and input it should: a config that begins
// with a UTF-8 byte order mark (as Windows editors write it) runs, one with a mark elsewhere is
// refused; --seed out of range, and a folder given to `logz plot`, get one line that names the
// argument and what it takes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/cli.hpp"

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

constexpr const char* kByteOrderMark = "\xEF\xBB\xBF";

// The Gaussian toy example, small: a run of a fraction of a second.
std::string small_toy_config(const std::string& name) {
  const std::string path = temp_path(name);
  write_file(path, read_file(std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-toy.toml") +
                       "\n# small for the tests\n");
  return path;
}

const char* kSmallToySets = " -q --set run.num_paths=10 --set schedule.num_steps=5";

TEST(InputMessages, ConfigStartingWithAByteOrderMarkRuns) {
  const std::string plain = small_toy_config("plain.toml");
  const std::string marked = temp_path("marked.toml");
  write_file(marked, kByteOrderMark + read_file(plain));
  const auto with_mark = run_cli("run " + marked + kSmallToySets);
  ASSERT_EQ(with_mark.exit_code, 0) << with_mark.err;
  // The same run as without the mark.
  const auto without = run_cli("run " + plain + kSmallToySets);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  const auto table = [](const std::string& out) { return out.substr(0, out.find("runtime:")); };
  EXPECT_EQ(table(with_mark.out), table(without.out));
  // A mark anywhere but at the very start is text outside strings like any other.
  const std::string text = read_file(plain);
  const std::string second_line = temp_path("mark_on_line_2.toml");
  write_file(second_line, text.substr(0, text.find('\n') + 1) + kByteOrderMark +
                              text.substr(text.find('\n') + 1));
  expect_one_line_error(
      run_cli("run " + second_line + kSmallToySets),
      second_line + ":2: expected valid TOML (non-ASCII text only inside strings and comments)");
  const std::string twice = temp_path("mark_twice.toml");
  write_file(twice, std::string(kByteOrderMark) + kByteOrderMark + text);
  expect_one_line_error(run_cli("run " + twice + kSmallToySets), twice + ":1: expected valid TOML");
}

// [run] seed (and [sampler] seed, [training] seed) take 0 to 2^63 - 1; --seed says so in one
// line about --seed, with the value as typed, not about the config file or a wrapped value.
TEST(InputMessages, SeedOutOfRangeNamesTheOptionAndTheRange) {
  const std::string config = small_toy_config("seed.toml");
  for (const std::string seed : {"-1", "18446744073709551615", "9223372036854775808",
                                 "99999999999999999999999", "1.5", "0x10", "seven"}) {
    SCOPED_TRACE(seed);
    const auto r = run_cli("run " + config + kSmallToySets + " --seed " + seed);
    expect_one_line_error(
        r, "--seed: expected an integer from 0 to 2^63 - 1 = 9223372036854775807, got " + seed);
    EXPECT_EQ(r.err.find("seed.toml"), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
  // Both ends of the range are taken, and reach the result as typed.
  for (const std::string seed : {"0", "9223372036854775807"}) {
    const std::string out = temp_path("seed_" + seed + ".json");
    const auto r = run_cli("run " + config + kSmallToySets + " --seed " + seed + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(read_file(out).find("\"seed\": " + seed), std::string::npos);
  }
  // logz sample and logz train take the same range.
  expect_one_line_error(run_cli("sample " + config + " --seed -1"),
                        "--seed: expected an integer from 0 to 2^63 - 1");
}

TEST(InputMessages, PlotOfAFolderSaysAResultFileIsExpected) {
  const std::string folder = temp_path("a_folder");
  std::filesystem::create_directories(folder);
  const auto r = run_cli("plot " + folder + " -d " + temp_path("plots"));
  expect_one_line_error(
      r, folder + ": expected a result file (the JSON written by logz run -o), got a folder");
  EXPECT_EQ(r.err.find("byte"), std::string::npos) << r.err;
}

}  // namespace
