// [model] type = "pairwise_mrf" (src/services/models/pairwise_mrf.cpp), as a user runs it: the
// reported exact log Z against a closed form, the heat-bath kernel's stationary distribution
// and the exact reverse start by chi-square over all states of a 4-unit model, and the
// estimators of annealing and tempering within 5 SE of enumeration.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logz/io/npz.hpp"
#include "support/chi_square.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::chi_square;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

// A model file with couplings W (row-major, n x n) and fields b.
std::string write_model(const std::string& name, const std::vector<double>& w,
                        const std::vector<double>& b) {
  const std::string path = temp_path(name + ".npz");
  const auto n = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(w.size()))));
  logz::io::write_npz(path,
                      {{"W", logz::io::Array{{n, n}, w}}, {"b", logz::io::Array{{b.size()}, b}}});
  return path;
}

// Files named after the test too: ctest runs the tests of this suite in parallel.
nlohmann::json run_json(const std::string& config, const std::string& sets) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string cfg = temp_path(test + ".toml"), out = temp_path(test + ".json");
  write_file(cfg, config);
  const auto r = run_cli("run " + cfg + " -q -o " + out + " " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(out));
}

std::string config_for(const std::string& file) {
  return "[model]\ntype = \"pairwise_mrf\"\nparameters = \"" + file + "\"\nbeta = 0.8\n";
}

// Two units: Z = 1 + e^{beta b1} + e^{beta b2} + e^{beta (b1 + b2 + w)}.
TEST(PairwiseMrf, ExactLogZOfTwoUnitsIsTheClosedForm) {
  const double w = 1.3, b1 = -0.4, b2 = 0.7, beta = 0.8;
  const std::string file = write_model("two", {0.0, w, w, 0.0}, {b1, b2});
  const auto j = run_json(config_for(file), "--set run.num_paths=8 --set schedule.num_steps=5");
  const double z = 1 + std::exp(beta * b1) + std::exp(beta * b2) + std::exp(beta * (b1 + b2 + w));
  EXPECT_NEAR(j["reference"]["log_z"].get<double>(), std::log(z), 1e-12);
  EXPECT_EQ(j["reference"]["source"], "enumeration");
}

// A 4-unit model: the energies of reverse starts (reverse work -beta E at K = 1) follow the
// Boltzmann distribution over the 16 states, from exact draws and from uniform bits equilibrated
// by the heat-bath kernel alike.
TEST(PairwiseMrf, KernelAndExactStartHaveTheBoltzmannDistribution) {
  const std::vector<double> w = {0,    0.9, -0.5, 0.3, 0.9, 0,    0.4, -1.1,
                                 -0.5, 0.4, 0,    0.8, 0.3, -1.1, 0.8, 0};
  const std::vector<double> b = {0.2, -0.6, 0.5, 0.1};
  const double beta = 0.8;
  const std::string file = write_model("four", w, b);
  // Exact probabilities of each distinct energy, from the 16 states.
  std::map<long, double> prob;  // energy * 1e6, rounded -> probability
  double z = 0;
  std::vector<std::pair<long, double>> states;
  for (int s = 0; s < 16; ++s) {
    double e = 0;
    for (int i = 0; i < 4; ++i) {
      if (!((s >> i) & 1)) continue;
      e -= b[static_cast<std::size_t>(i)];
      for (int k = i + 1; k < 4; ++k)
        if ((s >> k) & 1) e -= w[static_cast<std::size_t>(i * 4 + k)];
    }
    states.emplace_back(std::lround(e * 1e6), std::exp(-beta * e));
    z += std::exp(-beta * e);
  }
  for (const auto& [key, weight] : states) prob[key] += weight / z;
  const long n = 20000;
  for (const char* start : {"exact", "equilibrated"}) {
    SCOPED_TRACE(start);
    const auto j = run_json(config_for(file),
                            "--set schedule.num_steps=1 --set run.num_paths=" + std::to_string(n) +
                                " --set run.directions=reverse --set estimators.methods=raise "
                                "--set run.equilibration_sweeps=10 --set run.reverse_start=" +
                                start);
    std::vector<double> p;
    std::vector<long> counts;
    std::map<long, std::size_t> cell;
    for (const auto& [key, pr] : prob) {
      cell[key] = p.size();
      p.push_back(pr);
      counts.push_back(0);
    }
    for (const auto& wr : j["reverse"]["works"]) {
      const long key = std::lround(-wr.get<double>() / beta * 1e6);  // W_r = U_0 - U_1 = -beta E
      ASSERT_TRUE(cell.count(key)) << "an energy no state has: " << key;
      ++counts[cell[key]];
    }
    const auto c = chi_square(counts, p, n);
    EXPECT_LT(c.statistic, c.critical);
  }
}

// Annealing and tempering on a random 10-unit model: BAR, the bounds and the tempered
// estimators against enumeration (|estimate - exact| <= 5 SE; the bounds sandwich it).
TEST(PairwiseMrf, EstimatesMatchEnumeration) {
  const std::string cfg =
      "[model]\ntype = \"pairwise_mrf\"\nunits = 10\nscale = 0.6\nparameter_seed = 3\n";
  const auto a =
      run_json(cfg, "--set run.num_paths=400 --set schedule.num_steps=300 --set run.seed=2");
  const double exact = a["reference"]["log_z"].get<double>();
  for (const char* m : {"bar", "ais", "raise"}) {
    const auto& e = a["estimates"][m];
    EXPECT_LE(std::abs(e["log_z"].get<double>() - exact), 5 * e["std_error"].get<double>()) << m;
  }
  // The bounds hold in expectation: the sample means within 5 of their SEs of the right side.
  const auto& lower = a["estimates"]["lower_bound"];
  const auto& upper = a["estimates"]["upper_bound"];
  EXPECT_LE(lower["log_z"].get<double>(), exact + 5 * lower["std_error"].get<double>());
  EXPECT_GE(upper["log_z"].get<double>(), exact - 5 * upper["std_error"].get<double>());
  const auto t =
      run_json(cfg,
               "--set run.method=tempering --set tempering.num_temperatures=20 "
               "--set tempering.num_chains=50 --set tempering.num_sweeps=2000 --set run.seed=2");
  for (const char* m : {"rts", "ti_rb"}) {
    const auto& e = t["estimates"][m];
    EXPECT_LE(std::abs(e["log_z"].get<double>() - exact), 5 * e["std_error"].get<double>()) << m;
  }
}

TEST(PairwiseMrf, BadParametersGiveOneLineErrors) {
  const std::string asym = write_model("asym", {0, 1, 2, 0}, {0, 0});
  const std::string cfg = temp_path("bad_parameters.toml");
  write_file(cfg, config_for(asym));
  logz::test_support::expect_one_line_error(run_cli("run " + cfg + " -q"),
                                            "W: expected a symmetric matrix");
  const std::string diag = write_model("diag", {1, 0, 0, 0}, {0, 0});
  write_file(cfg, config_for(diag));
  logz::test_support::expect_one_line_error(run_cli("run " + cfg + " -q"),
                                            "W: expected a zero diagonal");
  const std::string shape = write_model("shape", {0, 1, 1, 0}, {0, 0, 0});
  write_file(cfg, config_for(shape));
  logz::test_support::expect_one_line_error(run_cli("run " + cfg + " -q"),
                                            "W: expected a 3 x 3 matrix");
}

}  // namespace
