// The one chunk loop: outputs in chunk order for any thread count, progress counted once per
// chunk without overlapping calls, every chunk run and the lowest failing chunk's error rethrown.
#include "logz/parallel/run_chunks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "logz/parallel/chunk_streams.hpp"

namespace {

TEST(RunChunks, OutputsComeInChunkOrderForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    const auto out = logz::run_chunks(23, 4, threads, [](const logz::ChunkRange& c) {
      // Later chunks finish first when threads race.
      std::this_thread::sleep_for(std::chrono::microseconds(50 * (6 - c.index)));
      return std::vector<std::size_t>{c.index, c.begin, c.end};
    });
    ASSERT_EQ(out.size(), 6u) << threads;
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i][0], i);
      EXPECT_EQ(out[i][1], 4 * i);
      EXPECT_EQ(out[i][2], std::min<std::size_t>(23, 4 * i + 4));
    }
  }
}

TEST(RunChunks, ProgressCountsUpOncePerChunkWithoutOverlap) {
  std::vector<std::size_t> seen;
  std::atomic<int> inside{0};
  bool overlapped = false;
  logz::run_chunks(
      40, 3, 4, [](const logz::ChunkRange&) {},
      [&](std::size_t done, std::size_t total) {
        overlapped |= inside.fetch_add(1) != 0;
        EXPECT_EQ(total, 14u);
        seen.push_back(done);
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        inside.fetch_sub(1);
      });
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(seen.size(), 14u);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
}

TEST(RunChunks, EveryChunkRunsAndTheLowestFailureIsRethrown) {
  for (int threads : {1, 3}) {
    std::atomic<int> ran{0};
    try {
      logz::run_chunks(10, 1, threads, [&](const logz::ChunkRange& c) {
        ++ran;
        if (c.index == 7 || c.index == 4)
          throw std::runtime_error("chunk " + std::to_string(c.index));
        return c.index;
      });
      FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "chunk 4") << threads;
    }
    EXPECT_EQ(ran.load(), 10) << threads;
  }
}

TEST(ChunkStreams, SubstreamKIsTheDriversAddress) {
  const logz::ChunkStreams streams(9, logz::Purpose::reverse_start, logz::chunk_range(2, 20, 8));
  EXPECT_EQ(streams.range().begin, 16u);
  EXPECT_EQ(streams.range().size(), 4u);
  for (std::uint32_t k : {0u, 1u, 5u}) {
    logz::RandomStream a = streams.random(k).stream(3);
    logz::RandomStream b(9, 19, logz::Purpose::reverse_start, k);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(a.next_u32(), b.next_u32()) << k;
  }
  logz::RandomStream s0 = streams.random(0).stream(0), s1 = streams.random(1).stream(0);
  EXPECT_NE(s0.next_u32(), s1.next_u32());
}

}  // namespace

namespace {

TEST(RunChunks, OrderedMergeSeesChunksInOrderForAnyThreadCount) {
  for (int threads : {1, 3, 8}) {
    std::vector<std::size_t> merged;
    logz::run_chunks_ordered(
        50, 3, threads,
        [](const logz::ChunkRange& c) {
          std::this_thread::sleep_for(
              std::chrono::microseconds(50 * (c.index % 4)));  // finish out of order
          return c.index;
        },
        [&](std::size_t index) { merged.push_back(index); });
    ASSERT_EQ(merged.size(), 17u) << threads;
    for (std::size_t i = 0; i < merged.size(); ++i) EXPECT_EQ(merged[i], i) << threads;
  }
}

}  // namespace
