#include "logz/paths/schedule.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

namespace {

std::string number_text(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace

std::optional<ScheduleFault> schedule_fault(std::span<const double> t) {
  if (t.size() < 2)
    return ScheduleFault{"fractions",
                         "at least 2 path fractions (0 and 1), got " + std::to_string(t.size())};
  for (std::size_t k = 0; k < t.size(); ++k) {
    const std::string entry = "fractions[" + std::to_string(k) + "]";
    if (!std::isfinite(t[k])) return ScheduleFault{entry, "a finite number"};
    if (k > 0 && !(t[k] > t[k - 1]))
      return ScheduleFault{entry, "strictly increasing values, got " + number_text(t[k]) +
                                      " after " + number_text(t[k - 1])};
  }
  if (t.front() != 0.0) return ScheduleFault{"fractions[0]", "0, got " + number_text(t.front())};
  if (t.back() != 1.0)
    return ScheduleFault{"fractions[" + std::to_string(t.size() - 1) + "]",
                         "1, got " + number_text(t.back())};
  return std::nullopt;
}

Schedule::Schedule(std::vector<double> fractions, const std::string& source)
    : fractions_(std::move(fractions)) {
  if (const auto fault = schedule_fault(fractions_))
    fail_input(source, fault->entry, fault->expectation);
}

Schedule Schedule::adaptive(const AdaptivePlan& plan) {
  Schedule s = linear_schedule(plan.pilot_steps);
  s.adaptive_ = plan;
  return s;
}

Schedule linear_schedule(std::size_t num_steps) {
  if (num_steps < 1) fail_argument("logz::linear_schedule", "num_steps", "at least 1");
  std::vector<double> b(num_steps + 1);
  for (std::size_t k = 0; k <= num_steps; ++k)
    b[k] = static_cast<double>(k) / static_cast<double>(num_steps);
  b.back() = 1.0;
  return Schedule(std::move(b), "linear schedule");
}

Schedule geometric_schedule(std::size_t num_steps, double t_min) {
  if (num_steps < 1) fail_argument("logz::geometric_schedule", "num_steps", "at least 1");
  if (!(t_min > 0.0 && t_min < 1.0))
    fail_argument("logz::geometric_schedule", "t_min", "a number in (0, 1)");
  std::vector<double> b(num_steps + 1, 0.0);
  if (num_steps == 1) {
    b[1] = 1.0;
  } else {
    const double log_min = std::log(t_min);
    for (std::size_t k = 1; k <= num_steps; ++k)
      b[k] = std::exp(log_min * static_cast<double>(num_steps - k) /
                      static_cast<double>(num_steps - 1));
    b.back() = 1.0;
  }
  return Schedule(std::move(b), "geometric schedule");
}

Schedule sigmoid_schedule(std::size_t num_steps, double steepness) {
  if (num_steps < 1) fail_argument("logz::sigmoid_schedule", "num_steps", "at least 1");
  if (!(steepness > 0.0) || !std::isfinite(steepness))
    fail_argument("logz::sigmoid_schedule", "steepness", "a positive finite number");
  auto sigma = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  const double lo = sigma(-steepness), hi = sigma(steepness);
  std::vector<double> b(num_steps + 1);
  for (std::size_t k = 0; k <= num_steps; ++k) {
    const double t = 2.0 * static_cast<double>(k) / static_cast<double>(num_steps) - 1.0;
    b[k] = (sigma(steepness * t) - lo) / (hi - lo);
  }
  b.front() = 0.0;
  b.back() = 1.0;
  return Schedule(std::move(b), "sigmoid schedule");
}

Schedule salakhutdinov_schedule() {
  std::vector<double> b;
  for (int i = 0; i < 500; ++i) b.push_back(i * 1e-3);           // 0 .. 0.499
  for (int i = 0; i < 4000; ++i) b.push_back(0.5 + i * 1e-4);    // 0.5 .. 0.8999
  for (int i = 0; i <= 10000; ++i) b.push_back(0.9 + i * 1e-5);  // 0.9 .. 1
  b.back() = 1.0;
  return Schedule(std::move(b), "salakhutdinov schedule");
}

Schedule schedule_from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in || std::filesystem::is_directory(path))
    fail_input(path, "", "a readable schedule file (one path fraction per line)");
  std::vector<double> b;
  std::string line;
  std::size_t line_no = 0;
  double previous = -1.0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 && line.starts_with("\xEF\xBB\xBF"))
      line.erase(0, 3);  // a UTF-8 byte order mark
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t");
    const std::string text = line.substr(first, last - first + 1);
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    const std::string where = path + ":" + std::to_string(line_no);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
      fail_input(where, "", "a number, got '" + text + "'");
    if (!std::isfinite(v)) fail_input(where, "", "a finite number, got '" + text + "'");
    if (b.empty() && v != 0.0)
      fail_input(where, "", "the first path fraction to be 0, got " + text);
    if (!b.empty() && !(v > previous))
      fail_input(
          where, "",
          "strictly increasing path fractions, got " + text + " after " + number_text(previous));
    if (v > 1.0) fail_input(where, "", "path fractions in [0, 1], got " + text);
    b.push_back(v);
    previous = v;
  }
  if (b.empty()) fail_input(path, "", "at least 2 path fractions, found none");
  if (b.back() != 1.0)
    fail_input(path, "", "the last path fraction to be 1, got " + number_text(b.back()));
  return Schedule(std::move(b), path);
}

}  // namespace logz
