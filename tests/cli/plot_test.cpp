// `logz run --plots` and `logz plot` as a user runs them: real PNG and SVG
// files with the axis labels and legends we put in, the budget plot over
// several results, and one-line errors (exit 2) for every bad input,
// including a missing gnuplot.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli.hpp"

namespace {

namespace fs = std::filesystem;

using logz::test_support::CliResult;
using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

#define REQUIRE_GNUPLOT() \
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)"

const char* kSmallConfig = R"([model]
type = "ising"
size = 4
beta = 0.5
[schedule]
type = "linear"
num_steps = 40
[kernel]
type = "metropolis"
steps_per_temperature = 16
[run]
num_paths = 40
equilibration_sweeps = 20
seed = 11
)";

// A fresh folder per test, so no file is left over from an earlier run.
std::string fresh_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  fs::remove_all(dir);
  return dir;
}

// A PNG with its signature and more than a few KB (axes, text and bars drawn).
void expect_png(const std::string& path) {
  SCOPED_TRACE(path);
  ASSERT_TRUE(fs::exists(path));
  const std::string png = read_file(path);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 8000u);
}

// An SVG containing every text in `texts` (labels and legend entries).
void expect_svg(const std::string& path, const std::vector<std::string>& texts) {
  SCOPED_TRACE(path);
  ASSERT_TRUE(fs::exists(path));
  const std::string svg = read_file(path);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_GT(svg.size(), 5000u);
  for (const auto& t : texts) EXPECT_NE(svg.find(t), std::string::npos) << "missing text: " << t;
}

// The small config run with --output, once per test that needs a result.
std::string small_result(const std::string& name, const std::string& sets = "") {
  const std::string cfg = temp_path(name + ".toml"), out = temp_path(name + ".json");
  write_file(cfg, kSmallConfig);
  const auto r = run_cli("run " + cfg + " -q -o " + out + sets);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

TEST(Plot, RunWritesHistogramHysteresisAndAcceptancePlots) {
  REQUIRE_GNUPLOT();
  const std::string cfg = temp_path("run.toml"), out = temp_path("run.json"),
                    dir = fresh_dir("run_plots");
  write_file(cfg, kSmallConfig);
  const auto r = run_cli("run " + cfg + " -q -o " + out + " --plots " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  for (const char* name : {"work_histograms", "hysteresis", "acceptance"}) {
    expect_png(dir + "/" + name + ".png");
    // The script and its data stay beside the images, for users to restyle.
    EXPECT_TRUE(fs::exists(dir + "/" + name + ".gp")) << name;
    EXPECT_TRUE(fs::exists(dir + "/" + name + ".dat")) << name;
  }
  expect_svg(dir + "/work_histograms.svg",
             {"probability density", "work W", "forward W", "reverse -W", "(40 paths)", "exact",
              "AIS", "RAISE", "BAR", "lower bound", "upper bound", "ising 4x4"});
  expect_svg(dir + "/hysteresis.svg", {"mean energy at", "schedule", "forward (base",
                                       "reverse (target", "equilibrium (exact)"});
  expect_svg(dir + "/acceptance.svg", {"acceptance rate", "forward", "reverse"});
  // The gnuplot script redraws the plot by itself, from its folder.
  fs::remove(dir + "/hysteresis.png");
  ASSERT_EQ(std::system(("cd " + dir + " && gnuplot hysteresis.gp").c_str()), 0);
  expect_png(dir + "/hysteresis.png");
}

TEST(Plot, PlotCommandOnOneResultWithChosenFormats) {
  REQUIRE_GNUPLOT();
  const std::string result =
      small_result("one", " --set run.directions=forward --set estimators.methods=ais");
  const std::string dir = fresh_dir("one_plots");
  const auto r = run_cli("plot " + result + " --output-dir " + dir + " --formats svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("work_histograms.svg"), std::string::npos) << r.out;
  for (const char* name : {"work_histograms", "hysteresis", "acceptance"}) {
    EXPECT_TRUE(fs::exists(dir + "/" + name + ".svg")) << name;
    EXPECT_FALSE(fs::exists(dir + "/" + name + ".png")) << name;
  }
  // Forward only: no reverse histogram, no reverse trace.
  const std::string svg = read_file(dir + "/work_histograms.svg");
  EXPECT_NE(svg.find("forward W"), std::string::npos);
  EXPECT_EQ(svg.find("reverse -W"), std::string::npos);
  expect_svg(dir + "/hysteresis.svg", {"forward (base", "equilibrium (exact)"});
}

// A parallel tempering result has no works or traces: its plots are the local barrier and the
// index process (32 scans of the last round, 8 or more replicas).
TEST(Plot, ParallelTemperingResultPlotsItsBarrierAndIndexProcess) {
  REQUIRE_GNUPLOT();
  const std::string config = temp_path("pt_plot.toml"), result = temp_path("pt_plot.json");
  write_file(config,
             "[model]\ntype = \"ising\"\nsize = 6\n[run]\nmethod = "
             "\"parallel_tempering\"\n[pt]\nrounds = 5\n");
  ASSERT_EQ(run_cli("run " + config + " -q -o " + result).exit_code, 0);
  const std::string dir = fresh_dir("pt_plots");
  const auto r = run_cli("plot " + result + " --output-dir " + dir + " --formats svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_svg(dir + "/barrier.svg", {"local barrier", "midpoints of adjacent replicas"});
  expect_svg(dir + "/index_process.svg", {"scan of the last round", "replica (0 = base"});
  const std::string data = read_file(dir + "/index_process.dat");
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 2 + 32) << data;
  EXPECT_FALSE(fs::exists(dir + "/work_histograms.svg"));
}

// Images go through logz's one writer: drawn in a private folder, then written into place; a
// link where an image goes is never written through, and nothing is left beside the plots.
TEST(Plot, ImagesAreWrittenWholeAndNeverThroughALink) {
  REQUIRE_GNUPLOT();
  const std::string result = small_result("linked", "");
  const std::string dir = fresh_dir("linked_plots"), victim = temp_path("victim.txt");
  fs::create_directories(dir);
  write_file(victim, "precious\n");
  fs::create_symlink(victim, dir + "/work_histograms.svg");
  expect_one_line_error(run_cli("plot " + result + " -d " + dir + " --formats svg"),
                        "not a symbolic link");
  EXPECT_EQ(read_file(victim), "precious\n");
  fs::remove(dir + "/work_histograms.svg");
  ASSERT_EQ(run_cli("plot " + result + " -d " + dir + " --formats svg").exit_code, 0);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_FALSE(e.path().filename().string().starts_with(".logz-plot"))
        << e.path() << " was left behind";
  expect_svg(dir + "/work_histograms.svg", {"forward W"});
}

TEST(Plot, BudgetPlotOverSeveralResults) {
  REQUIRE_GNUPLOT();
  std::string results;
  for (int steps : {2, 8, 32}) {
    const std::string name = "budget" + std::to_string(steps);
    results +=
        " " + small_result(name, " --set kernel.steps_per_temperature=" + std::to_string(steps));
  }
  const std::string dir = fresh_dir("budget_plots");
  const auto r = run_cli("plot" + results + " --budget-key kernel.steps_per_temperature -d " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_png(dir + "/budget.png");
  expect_svg(dir + "/budget.svg",
             {"kernel steps per temperature", "evidence log Z/Z", "AIS", "RAISE", "BAR", "exact"});
  // One row of data per result, sorted by the budget.
  const std::string data = read_file(dir + "/budget.dat");
  EXPECT_NE(data.find("\n2 "), std::string::npos) << data;
  EXPECT_LT(data.find("\n8 "), data.find("\n32 ")) << data;
  // Without --budget-key, each result gets its own plots, named after its file.
  const std::string each = fresh_dir("each_plots");
  ASSERT_EQ(run_cli("plot" + results + " --formats png -d " + each).exit_code, 0);
  // Plots are prefixed with each result's file name.
  const auto prefix = [](const std::string& name) {
    return fs::path(temp_path(name)).filename().string();
  };
  EXPECT_TRUE(fs::exists(each + "/" + prefix("budget8") + "_work_histograms.png"));
  EXPECT_TRUE(fs::exists(each + "/" + prefix("budget32") + "_hysteresis.png"));
}

// Results of [run] repetitions: the budget plot draws each method's mean over
// repetitions with the sd over repetitions, the numbers of details.repetitions.
TEST(Plot, BudgetPlotOfRepeatedRunsShowsMeanAndSpread) {
  REQUIRE_GNUPLOT();
  std::string results;
  for (int k : {2, 10}) {
    const std::string out = temp_path("toy" + std::to_string(k) + ".json");
    const auto r =
        run_cli("run " + std::string(LOGZ_SOURCE_DIR) +
                "/examples/gaussian-toy.toml -q --set run.num_paths=50 --set run.repetitions=4 "
                "--set schedule.num_steps=" +
                std::to_string(k) + " -o " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("over 4 repetitions"), std::string::npos) << r.out;
    results += " " + out;
  }
  const std::string dir = fresh_dir("repeated_budget");
  const auto r = run_cli("plot" + results + " --budget-key schedule.num_steps -d " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_svg(dir + "/budget.svg", {"mean over repetitions", "BAR", "exact"});
  const std::string data = read_file(dir + "/budget.dat");
  EXPECT_NE(data.find("bar mean sd"), std::string::npos) << data;
  // The row for K = 10 carries BAR's mean over the repetitions, as the result says.
  const auto json = nlohmann::json::parse(read_file(temp_path("toy10.json")));
  double bar_mean = NAN;
  for (const auto& m : json["details"]["repetitions"]["methods"])
    if (m["method"] == "bar") bar_mean = m["mean"].get<double>();
  ASSERT_TRUE(std::isfinite(bar_mean));
  std::istringstream rows(data.substr(data.find("\n10 ") + 1));
  double k = 0, ais = 0, ais_sd = 0, raise = 0, raise_sd = 0, bar = 0;
  rows >> k >> ais >> ais_sd >> raise >> raise_sd >> bar;
  EXPECT_EQ(k, 10);
  EXPECT_NEAR(bar, bar_mean, 1e-9 * std::abs(bar_mean) + 1e-12);
}

TEST(Plot, BadInputsGiveOneLineErrors) {
  const std::string result = small_result("bad");
  const std::string other = small_result("other", " --set model.beta=0.3");
  const std::string dir = fresh_dir("bad_plots");
  expect_one_line_error(run_cli("plot /nonexistent/result.json -d " + dir),
                        "/nonexistent/result.json");
  const std::string not_json = temp_path("not.json"), not_result = temp_path("not_result.json"),
                    no_works = temp_path("no_works.json"), bad_works = temp_path("bad_works.json");
  write_file(not_json, "{\"estimates\": ");
  write_file(not_result, "{\"hello\": 1}\n");
  write_file(no_works, "{\"logz_version\": \"0\", \"estimates\": {}}\n");
  write_file(
      bad_works,
      "{\"logz_version\": \"0\", \"estimates\": {}, \"forward\": {\"works\": [1, \"x\"]}}\n");
  expect_one_line_error(run_cli("plot " + not_json + " -d " + dir), "not.json");
  expect_one_line_error(run_cli("plot " + not_result + " -d " + dir),
                        "expected a logz result JSON");
  expect_one_line_error(run_cli("plot " + result + " -d " + dir + " --formats gif"), "formats");
  if (have_gnuplot()) {
    expect_one_line_error(run_cli("plot " + no_works + " -d " + dir), "no_works.json: forward");
    expect_one_line_error(run_cli("plot " + bad_works + " -d " + dir),
                          "bad_works.json: forward.works");
    expect_one_line_error(run_cli("plot " + result + " --budget-key kernel.nope -d " + dir),
                          "config.kernel.nope: expected the budget key");
    expect_one_line_error(run_cli("plot " + result + " --budget-key kernel.type -d " + dir),
                          "config.kernel.type: expected a number");
    expect_one_line_error(
        run_cli("plot " + result + " " + other + " --budget-key run.num_paths -d " + dir),
        "model: expected the same model");
  }
  // No gnuplot on PATH: one line saying how to install it, and `run --plots`
  // says so before it runs rather than after.
  expect_one_line_error(run_cli("plot " + result + " -d " + dir, "PATH=/nonexistent"), "gnuplot");
  const std::string cfg = temp_path("nognuplot.toml"), out = temp_path("nognuplot.json");
  write_file(cfg, kSmallConfig);
  fs::remove(out);
  expect_one_line_error(
      run_cli("run " + cfg + " -q -o " + out + " --plots " + dir, "PATH=/nonexistent"),
      "gnuplot-nox");
  EXPECT_FALSE(fs::exists(out));
}

// `s` as one word for /bin/sh, whatever it holds (line breaks, quotes, $ and backquotes).
std::string shell_word(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// gnuplot runs in the plot folder: a command injected into a script would create its marker
// there (or in the test's folder).
void expect_no_marker(const std::string& dir, const std::vector<std::string>& markers) {
  for (const auto& m : markers) {
    EXPECT_FALSE(fs::exists(fs::path(dir) / m)) << "an injected command ran: " << m;
    EXPECT_FALSE(fs::exists(m)) << "an injected command ran: " << m;
  }
}

// The files listed on stdout, one per line, every one of them there.
std::vector<std::string> listed_files(const std::string& out) {
  std::vector<std::string> files;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(fs::exists(line)) << line;
    files.push_back(line);
  }
  return files;
}

// Strings read from a result file that a gnuplot script would run as commands if they went in
// as text: estimate names, model fields, a config key and file names that break out of a
// string (line break, quote), substitute a command (`...`) or name a pipe (< and |). Each
// would create a marker; the plots are drawn instead, with the strings shown literally.
TEST(Plot, HostileStringsFromResultFilesRunNoCommand) {
  REQUIRE_GNUPLOT();
  const std::vector<std::string> markers = {"e1", "e2", "e3", "m1", "m2",
                                            "k1", "f1", "f2", "f3", "f4"};
  for (const auto& m : markers) fs::remove(m);
  auto json = nlohmann::json::parse(read_file(small_result("hostile")));
  auto& estimates = json["estimates"];
  estimates["x\nsystem 'touch e1'\n#"] = estimates["ais"];
  estimates["`touch e2`"] = estimates["bar"];
  estimates["q' . system('touch e3') . '\x01\x7f"] = estimates["raise"];
  json["model"]["type"] = "ising\nsystem 'touch m1'\n#";
  json["model"]["note"] = "`touch m2` x^2{y}@z&w~v_a";
  json["config"]["x\nsystem 'touch k1'\n#"] = 7;
  const std::string text = json.dump();
  const std::string folder = fresh_dir("hostile_files");
  fs::create_directories(folder);
  std::vector<std::string> paths;
  std::string files;
  for (const std::string name :
       {"h\n`touch f1`'$(touch f2)\".json", "<touch f3;#.json", "|touch f4;#.json"}) {
    paths.push_back(folder + "/" + name);
    write_file(paths.back(), text);
    files += " " + shell_word(paths.back());
  }
  // One result: its file name goes into the data files' comments.
  const std::string one = fresh_dir("hostile_one");
  const auto r1 = run_cli("plot " + shell_word(paths[0]) + " -d " + one);
  expect_no_marker(one, markers);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(listed_files(r1.out).size(), 6u) << r1.out;
  expect_svg(one + "/work_histograms.svg",
             {"`touch e2`", "system 'touch e1'", "`touch m2` x^2{y}@z&amp;w~v_a"});
  // Several: the plots are named after the files.
  const std::string each = fresh_dir("hostile_each");
  const auto r2 = run_cli("plot" + files + " -d " + each);
  expect_no_marker(each, markers);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(listed_files(r2.out).size(), 18u) << r2.out;
  // The budget plot, against the hostile config key.
  const std::string budget = fresh_dir("hostile_budget");
  const auto r3 = run_cli("plot" + files + " --budget-key " +
                          shell_word("x\nsystem 'touch k1'\n#") + " -d " + budget);
  expect_no_marker(budget, markers);
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  expect_png(budget + "/budget.png");
  expect_svg(budget + "/budget.svg", {"`touch e2`", "system 'touch k1'"});
}

// Numbers that are not numbers, and acceptance rates outside [0, 1], refuse the file with
// one line naming it and the key (the key shown on one line whatever it holds), before any
// plot is drawn.
TEST(Plot, ResultWithBadNumbersIsRefused) {
  const auto json = nlohmann::json::parse(read_file(small_result("numbers")));
  const std::string dir = fresh_dir("numbers_plots");
  const auto refused = [&](const std::string& name, const nlohmann::json& j,
                           const std::string& needle) {
    const std::string path = temp_path(name + ".json");
    write_file(path, j.dump());
    expect_one_line_error(run_cli("plot " + path + " -d " + dir), name + ".json: " + needle);
  };
  for (const double rate : {1.5, -0.25}) {
    auto j = json;
    j["forward"]["acceptance"][3] = rate;
    refused("rate", j, "forward.acceptance: expected acceptance rates within [0, 1]");
  }
  auto text_rate = json;
  text_rate["reverse"]["acceptance"][2] = "0.5";
  refused("text_rate", text_rate, "reverse.acceptance: expected a finite number or null");
  auto text_evidence = json;
  text_evidence["estimates"]["bar"]["evidence"] = "6.05";
  refused("text_evidence", text_evidence,
          "estimates.bar.evidence: expected a finite number or null");
  auto not_estimate = json;
  not_estimate["estimates"]["x\ny"] = 3;
  refused("not_estimate", not_estimate, "estimates.x\\ny: expected an object");
  auto text_energy = json;
  text_energy["equilibrium_energy"][1] = true;
  refused("text_energy", text_energy, "equilibrium_energy: expected a finite number or null");
  EXPECT_FALSE(fs::exists(dir + "/work_histograms.png"));
}

// Strings that begin with a quote or hold '' (gnuplot 5.4 misread '' after a quote in a
// single-quoted string: "gnuplot failed"), and result files whose names begin with $ (read
// as a datablock when several results name their plots after them), are drawn as written.
TEST(Plot, QuotesAndDollarsInStringsAndFileNamesAreDrawnAsWritten) {
  REQUIRE_GNUPLOT();
  auto json = nlohmann::json::parse(read_file(small_result("quotes")));
  auto& estimates = json["estimates"];
  estimates["'x"] = estimates["ais"];
  estimates["a''b"] = estimates["bar"];
  estimates["''"] = estimates["raise"];
  json["model"]["type"] = "'ising' ''4x4'' #c @m $d \\ {e} ;f";
  const std::string folder = fresh_dir("quote_files");
  fs::create_directories(folder);
  std::string files;
  for (const std::string name : {"$a.json", "$b.json", "'c''.json"}) {
    write_file(folder + "/" + name, json.dump());
    files += " " + shell_word(folder + "/" + name);
  }
  const std::string one = fresh_dir("quotes_one");
  const auto r1 = run_cli("plot " + shell_word(folder + "/'c''.json") + " -d " + one);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  expect_svg(one + "/work_histograms.svg",
             {"'x  ", "a''b  ", "'ising' ''4x4'' #c @m $d \\ {e} ;f"});
  const std::string each = fresh_dir("quotes_each");
  const auto r2 = run_cli("plot" + files + " -d " + each);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(listed_files(r2.out).size(), 18u) << r2.out;
  EXPECT_TRUE(fs::exists(each + "/$a_work_histograms.png"));
  EXPECT_TRUE(fs::exists(each + "/$b_hysteresis.svg"));
  const std::string budget = fresh_dir("quotes_budget");
  const auto r3 = run_cli("plot" + files + " --budget-key run.num_paths -d " + budget);
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  expect_png(budget + "/budget.png");
}

// Works out to 1e308 ended in "internal error: cannot create std::vector larger than
// max_size()" (a NaN bin count) or "gnuplot failed" (an axis past the largest double): works
// beyond what an axis can span are refused in one line naming the key; an exact value or an
// estimate beyond it is listed in the legend as off scale.
TEST(Plot, WorksNearTheLargestDoubleAreRefusedInOneLine) {
  REQUIRE_GNUPLOT();  // logz plot looks for gnuplot before it reads the works
  const auto json = nlohmann::json::parse(read_file(small_result("huge")));
  const std::string dir = fresh_dir("huge_plots");
  const std::size_t n = json["forward"]["works"].size();
  for (const double sign : {1.0, -1.0}) {
    auto j = json;
    for (std::size_t i = 0; i < n; ++i) j["forward"]["works"][i] = i % 2 ? 1e308 : sign * 1e308;
    const std::string path = temp_path(sign > 0 ? "huge_equal.json" : "huge_alternating.json");
    write_file(path, j.dump());
    expect_one_line_error(
        run_cli("plot " + path + " -d " + dir),
        "forward.works: expected works within +-1e+300, which a plot's axis can span, got ");
  }
  auto reverse = json;
  reverse["reverse"]["works"][2] = -1e301;
  const std::string reverse_path = temp_path("huge_reverse.json");
  write_file(reverse_path, reverse.dump());
  expect_one_line_error(run_cli("plot " + reverse_path + " -d " + dir),
                        "reverse.works: expected works within");
  auto marks = json;
  marks["reference"]["evidence"] = -1e308;
  marks["estimates"]["ais"]["evidence"] = 1e308;
  const std::string marks_path = temp_path("huge_marks.json");
  write_file(marks_path, marks.dump());
  const auto r = run_cli("plot " + marks_path + " -d " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_svg(dir + "/work_histograms.svg",
             {"exact  -log Z/Z_0 = 1e+308  (off scale)", "AIS  -1e+308"});
}

}  // namespace
