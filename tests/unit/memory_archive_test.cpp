// Arrays held in memory under "memory:NAME": the .npz and .npy readers serve them as they
// serve files, with the same one-line errors, for as long as their MemoryArchive lives.
#include "logz/io/memory_archive.hpp"

#include <gtest/gtest.h>

#include "logz/config/config.hpp"
#include "logz/core/error.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"

namespace {

using logz::io::Array;

TEST(MemoryArchive, TheNpzReadersServeItsArrays) {
  const logz::io::MemoryArchive held(
      "weights.npz", {{"W", Array{{2, 2}, {1, 2, 3, 4}}}, {"a", Array{{2}, {5, 6}}}});
  EXPECT_EQ(held.path(), "memory:weights.npz");
  const Array w = logz::io::read_npz_array(held.path(), "W");
  EXPECT_EQ(w.shape, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(w.doubles(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(logz::io::read_npz(held.path()).size(), 2u);
  try {
    logz::io::read_npz_array(held.path(), "b");
    FAIL();
  } catch (const logz::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "memory:weights.npz: b: expected an array named 'b', got only the keys W, a");
  }
}

TEST(MemoryArchive, AnNpyNameIsOneArray) {
  const logz::io::MemoryArchive held("rows.npy", {{"data", Array{{3}, {0, 1, 1}}}});
  EXPECT_EQ(logz::io::read_npy(held.path()).doubles(), (std::vector<double>{0, 1, 1}));
}

TEST(MemoryArchive, NamesAreCheckedAndFreedWithTheArchive) {
  {
    const logz::io::MemoryArchive held("x.npz", {});
    EXPECT_THROW(logz::io::MemoryArchive("x.npz", {}), logz::InvalidArgument);
  }
  EXPECT_THROW(logz::io::read_npz("memory:x.npz"), logz::InputError);  // gone with its archive
  EXPECT_NO_THROW(logz::io::MemoryArchive("x.npz", {}));
  EXPECT_THROW(logz::io::MemoryArchive("x.bin", {}), logz::InvalidArgument);
  EXPECT_THROW(logz::io::MemoryArchive("two.npy", {{"a", Array{{1}, {1}}}, {"b", Array{{1}, {2}}}}),
               logz::InvalidArgument);
}

TEST(MemoryArchive, AConfigKeepsMemoryPathsAsTheyAre) {
  const logz::Config config =
      logz::Config::from_toml("[model]\ntype = \"rbm\"\n", "/some/folder/run.toml");
  EXPECT_EQ(logz::resolve_config_path(config, "memory:w.npz"), "memory:w.npz");
  EXPECT_EQ(logz::resolve_config_path(config, "w.npz"), "/some/folder/w.npz");
}

}  // namespace
