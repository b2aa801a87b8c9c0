// The one writer (io/output_file.hpp): a file complete or absent, never written through a link,
// a checkpoint never written to a device, every failure an InputError naming the file.
#include "logz/io/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"
#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;
using logz::io::OutputKind;
using logz::io::write_text_file;
using logz::test_support::read_file;
using logz::test_support::temp_path;
using logz::test_support::write_file;

void expect_write_refused(const std::string& path, OutputKind kind, const std::string& needle) {
  try {
    write_text_file(path, "new\n", kind);
    ADD_FAILURE() << path << ": written; expected an error containing " << needle;
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
}

bool temporary_file_beside(const std::string& path) {
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    if (e.path().filename().string().starts_with(fs::path(path).filename().string() + ".tmp"))
      return true;
  return false;
}

TEST(OutputFile, ReplacesARegularFileWholeAndLeavesNoTemporaryFile) {
  const std::string path = temp_path("result.json");
  write_file(path, "a much longer old content\n");
  write_text_file(path, "new\n");
  EXPECT_EQ(read_file(path), "new\n");
  write_text_file(path, "checkpoint\n", OutputKind::checkpoint);
  EXPECT_EQ(read_file(path), "checkpoint\n");
  EXPECT_FALSE(temporary_file_beside(path));
}

TEST(OutputFile, NeverWritesThroughALinkToAFile) {
  const std::string victim = temp_path("victim.txt"), link = temp_path("link.json");
  write_file(victim, "precious\n");
  fs::remove(link);
  fs::create_symlink(victim, link);
  expect_write_refused(link, OutputKind::result, "not a symbolic link");
  expect_write_refused(link, OutputKind::checkpoint, "not a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(OutputFile, ACheckpointIsNeverWrittenToADeviceOrPipe) {
  const std::string fifo = temp_path("fifo");
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_write_refused(fifo, OutputKind::checkpoint, "expected a regular file");
  expect_write_refused("/dev/null", OutputKind::checkpoint, "expected a regular file");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_THROW(logz::io::check_output_file("/dev/null", OutputKind::checkpoint), logz::InputError);
}

TEST(OutputFile, AResultGoesToADeviceWithEveryWriteChecked) {
  EXPECT_NO_THROW(write_text_file("/dev/null", "result\n"));
  expect_write_refused("/dev/full", OutputKind::result, "No space left on device");
  expect_write_refused(::testing::TempDir(), OutputKind::result, "not a folder");
  expect_write_refused(temp_path("no/such/folder/x.json"), OutputKind::result,
                       "No such file or directory");
}

TEST(OutputFile, ArraysAndArchivesGoThroughTheSameWriter) {
  const std::string victim = temp_path("victim.txt"), npy = temp_path("a.npy"),
                    npz = temp_path("a.npz");
  write_file(victim, "precious\n");
  const logz::io::Array a{{2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6}};
  for (const std::string& link : {npy, npz}) {
    fs::remove(link);
    fs::create_symlink(victim, link);
  }
  EXPECT_THROW(logz::io::write_npy(npy, a), logz::InputError);
  EXPECT_THROW(logz::io::write_npz(npz, {{"w", a}}), logz::InputError);
  EXPECT_EQ(read_file(victim), "precious\n");
  fs::remove(npy);
  fs::remove(npz);
  logz::io::write_npz(npz, {{"w", a}});
  EXPECT_EQ(logz::io::read_npz(npz).at("w").shape, a.shape);
  EXPECT_FALSE(temporary_file_beside(npz));
}

}  // namespace
