#include "logz/paths/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "logz/core/error.hpp"

namespace {

void expect_valid(const logz::Schedule& s, std::size_t k) {
  ASSERT_EQ(s.num_steps(), k);
  EXPECT_EQ(s[0], 0.0);
  EXPECT_EQ(s[k], 1.0);
  for (std::size_t i = 1; i <= k; ++i) EXPECT_GT(s[i], s[i - 1]);
}

TEST(Schedule, NamedSchedulesAreValid) {
  for (std::size_t k : {1u, 2u, 10u, 1000u}) {
    expect_valid(logz::linear_schedule(k), k);
    expect_valid(logz::geometric_schedule(k), k);
    expect_valid(logz::sigmoid_schedule(k), k);
  }
  EXPECT_DOUBLE_EQ(logz::linear_schedule(4)[1], 0.25);
  EXPECT_NEAR(logz::geometric_schedule(5, 1e-4)[1], 1e-4, 1e-18);
  // The sigmoid schedule is symmetric about its middle.
  const auto s = logz::sigmoid_schedule(10);
  EXPECT_NEAR(s[5], 0.5, 1e-12);
  EXPECT_NEAR(s[2] + s[8], 1.0, 1e-12);
}

TEST(Schedule, SalakhutdinovLadder) {
  const auto s = logz::salakhutdinov_schedule();
  expect_valid(s, 14500);
  EXPECT_NEAR(s[500], 0.5, 1e-15);
  EXPECT_NEAR(s[4500], 0.9, 1e-15);
  EXPECT_NEAR(s[1] - s[0], 1e-3, 1e-15);
  EXPECT_NEAR(s[501] - s[500], 1e-4, 1e-13);
  EXPECT_NEAR(s[14500] - s[14499], 1e-5, 1e-12);
}

TEST(Schedule, RejectsInvalidLadders) {
  EXPECT_THROW(logz::Schedule({0.0}), logz::InputError);
  EXPECT_THROW(logz::Schedule({0.1, 1.0}), logz::InputError);
  EXPECT_THROW(logz::Schedule({0.0, 0.9}), logz::InputError);
  EXPECT_THROW(logz::Schedule({0.0, 0.5, 0.5, 1.0}), logz::InputError);
  EXPECT_THROW(logz::Schedule({0.0, std::nan(""), 1.0}), logz::InputError);
  EXPECT_THROW(logz::linear_schedule(0), logz::InvalidArgument);
  EXPECT_THROW(logz::geometric_schedule(10, 0.0), logz::InvalidArgument);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Schedule, FromFile) {
  const auto good = write_temp("logz_sched_good.txt", "# betas\n0\n0.25\r\n\n0.5\n1\n");
  const auto s = logz::schedule_from_file(good);
  EXPECT_EQ(s.num_steps(), 3u);
  EXPECT_EQ(s[1], 0.25);

  const auto bad = write_temp("logz_sched_bad.txt", "0\n0.5\n0.4\n1\n");
  try {
    logz::schedule_from_file(bad);
    FAIL() << "expected an error";
  } catch (const logz::InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("logz_sched_bad.txt:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("increasing"), std::string::npos) << msg;
  }
  const auto text = write_temp("logz_sched_text.txt", "0\nhalf\n1\n");
  try {
    logz::schedule_from_file(text);
    FAIL() << "expected an error";
  } catch (const logz::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("logz_sched_text.txt:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(logz::schedule_from_file(write_temp("logz_sched_end.txt", "0\n0.5\n")),
               logz::InputError);
  EXPECT_THROW(logz::schedule_from_file("/nonexistent/schedule.txt"), logz::InputError);
}

}  // namespace
