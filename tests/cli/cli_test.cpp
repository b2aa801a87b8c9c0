// The `logz` tool as a user runs it: exit codes, one-line errors, JSON output,
// and bitwise-identical estimates for any thread count.
#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

using logz::test_support::expect_one_line_error;
using logz::test_support::read_file;
using logz::test_support::run_cli;
using logz::test_support::temp_path;
using logz::test_support::write_file;

const char* kSmallConfig = R"([model]
type = "ising"
size = 4
beta = 0.5
[schedule]
type = "linear"
num_steps = 50
[kernel]
type = "metropolis"
steps_per_temperature = 16
[run]
num_paths = 40
equilibration_sweeps = 20
seed = 5
)";

TEST(Cli, VersionAndHelp) {
  const auto v = run_cli("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("logz "), std::string::npos);
  for (const char* cmd :
       {"--help", "run --help", "exact --help", "exact ising --help", "estimate --help"}) {
    const auto h = run_cli(cmd);
    EXPECT_EQ(h.exit_code, 0) << cmd;
    EXPECT_NE(h.out.find("Usage"), std::string::npos) << cmd << ": " << h.out;
  }
  const auto none = run_cli("");
  EXPECT_EQ(none.exit_code, 2);
}

TEST(Cli, ExactIsingKaufmanAgreesWithEnumeration) {
  const std::string a = temp_path("exact_a.json"), b = temp_path("exact_b.json");
  ASSERT_EQ(run_cli("exact ising --rows 3 --cols 4 --beta 0.7 -o " + a).exit_code, 0);
  ASSERT_EQ(
      run_cli("exact ising --rows 3 --cols 4 --beta 0.7 --method enumeration -o " + b).exit_code,
      0);
  const auto ja = nlohmann::json::parse(read_file(a)), jb = nlohmann::json::parse(read_file(b));
  EXPECT_NEAR(ja["reference"]["log_z"].get<double>(), jb["reference"]["log_z"].get<double>(), 1e-9);
  const auto big = run_cli("exact ising --size 32 --beta 1");
  EXPECT_EQ(big.exit_code, 0);
  EXPECT_NE(big.out.find("1339.267"), std::string::npos) << big.out;
  expect_one_line_error(run_cli("exact ising --size 4 --beta -1"), "beta");
}

TEST(Cli, RunWritesJsonWithEstimatesAndReference) {
  const std::string cfg = temp_path("small.toml"), out = temp_path("small.json"),
                    csv = temp_path("works.csv");
  write_file(cfg, kSmallConfig);
  const auto r = run_cli("run " + cfg + " -q -o " + out + " --works-csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exact"), std::string::npos);
  const auto j = nlohmann::json::parse(read_file(out));
  const double exact = j["reference"]["log_z"].get<double>();
  for (const char* m : {"ais", "raise", "lower_bound", "upper_bound", "bar"}) {
    ASSERT_TRUE(j["estimates"].contains(m)) << m;
    const double est = j["estimates"][m]["log_z"].get<double>();
    const double se = j["estimates"][m]["std_error"].get<double>();
    EXPECT_TRUE(std::isfinite(se) && se > 0) << m;
    EXPECT_NEAR(j["estimates"][m]["evidence"].get<double>() + 16 * std::log(2.0), est, 1e-9);
    if (std::string(m).find("bound") == std::string::npos) {
      EXPECT_NEAR(est, exact, 5 * se + se * se) << m;
    }
  }
  EXPECT_EQ(j["forward"]["works"].size(), 40u);
  EXPECT_EQ(j["reverse"]["works"].size(), 40u);
  EXPECT_EQ(j["betas"].size(), 51u);
  // The work done, in site updates: 40 paths x 49 intermediate temperatures x 16 single-site
  // updates each way, and 20 sweeps of 16 sites for each reverse start.
  EXPECT_EQ(j["budget"]["unit"], "site update");
  EXPECT_EQ(j["budget"]["forward"], 40 * 49 * 16);
  EXPECT_EQ(j["budget"]["reverse"], 40 * 49 * 16);
  EXPECT_EQ(j["budget"]["reverse_start"], 40 * 20 * 16);
  EXPECT_EQ(j["budget"]["total"], 40 * (2 * 49 + 20) * 16);
  EXPECT_EQ(j["config"]["run"]["seed"], 5);
  EXPECT_EQ(j["config"]["kernel"]["site_order"], "random");  // defaults are resolved
  const std::string works = read_file(csv);
  EXPECT_EQ(std::count(works.begin(), works.end(), '\n'), 81);
}

TEST(Cli, SameSeedSameEstimatesForOneTwoThreeThreads) {
  const std::string cfg = temp_path("threads.toml");
  write_file(cfg, kSmallConfig);
  int case_number = 0;
  for (const std::string kernel : {"metropolis", "multispin", "swendsen_wang", "wolff",
                                   "swendsen_wang --set kernel.local_sweeps=1"}) {
    std::string reference;
    ++case_number;
    for (int t : {1, 2, 3}) {
      const std::string out =
          temp_path("threads" + std::to_string(case_number) + "-" + std::to_string(t) + ".json");
      ASSERT_EQ(run_cli("run " + cfg + " -q --set kernel.type=" + kernel + " --threads " +
                        std::to_string(t) + " -o " + out)
                    .exit_code,
                0);
      auto j = nlohmann::json::parse(read_file(out));
      const std::string estimates =
          j["estimates"].dump() + j["forward"].dump() + j["reverse"].dump();
      if (reference.empty())
        reference = estimates;
      else
        EXPECT_EQ(estimates, reference) << kernel << ", " << t << " threads";
    }
  }
}

// The Wolff config runs as shipped (at a small size here) and counts its Wolff clusters by the
// sites they visit and its heat-bath sweeps as one update per site each.
TEST(Cli, IsingWolffExampleRunsAndReportsItsBudget) {
  const std::string best = std::string(LOGZ_SOURCE_DIR) + "/examples/ising-32-wolff.toml";
  const std::string out = temp_path("best.json");
  ASSERT_EQ(
      run_cli("run " + best +
              " -q --set model.size=8 --set run.num_paths=3 --set schedule.num_steps=10 -o " + out)
          .exit_code,
      0);
  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["kernel"]["type"], "wolff");
  EXPECT_EQ(j["details"]["adaptive_schedule"]["pilot_paths"], 32);
  // Per path and intermediate temperature: a heat-bath sweep (64 sites) and two clusters of 1 to
  // 64 sites each.
  const auto within = [](const nlohmann::json& used, long long steps) {
    return used.get<long long>() >= steps * (64 + 2) &&
           used.get<long long>() <= steps * (64 + 2 * 64);
  };
  EXPECT_TRUE(within(j["budget"]["forward"], 3 * 9)) << j["budget"];
  EXPECT_TRUE(within(j["budget"]["pilot"], 32 * 199)) << j["budget"];
  EXPECT_EQ(j["budget"]["reverse_start"], 3 * 20 * 64);  // Swendsen-Wang sweeps
}

// The most accurate Ising and Potts configs run as shipped (on a 12 x 12 and a 4 x 4 torus here,
// where Kaufman's formula and the transfer matrix are exact): the field path's log Z, with its
// base and the log q of the restriction, within 5 SE + SE^2 of the exact value (the bias
// allowance of a log mean; potts_anneal_test.cpp); and its one-line refusals. (On a 4 x 4 Ising
// torus at beta = 1 a flipped spin has weight e^-8: 64 paths see none, in either direction, and
// miss its 0.005 nat; 144 sites see them.)
void expect_field_path_example_exact(const std::string& name, int size,
                                     const std::string& settings = "") {
  const std::string best = std::string(LOGZ_SOURCE_DIR) + "/examples/" + name;
  const std::string out = temp_path(name + ".json");
  ASSERT_EQ(
      run_cli("run " + best + " -q --set model.size=" + std::to_string(size) +
              " --set run.num_paths=64 --set schedule.num_steps=300" + settings + " -o " + out)
          .exit_code,
      0);
  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["model"]["path"], "field");
  const double exact = j["reference"]["log_z"].get<double>();
  for (const char* method : {"ais", "raise", "bar"}) {
    const auto& e = j["estimates"][method];
    const double se = e["std_error"].get<double>();
    EXPECT_LT(se, 0.1) << name << " " << method;
    EXPECT_LE(std::abs(e["log_z"].get<double>() - exact), 5 * se + se * se)
        << name << " " << method << " exact " << exact;
  }
  expect_one_line_error(run_cli("run " + best + " -q --set kernel.type=metropolis"), "heat_bath");
  expect_one_line_error(
      run_cli("run " + best + " -q --set run.method=tempering --set kernel.type=heat_bath"),
      "path");
  expect_one_line_error(run_cli("run " + best + " -q --set model.field=0"), "field");
  expect_one_line_error(run_cli("run " + best + " -q --set model.field=597"),
                        "field");  // 4 x 2 + 597 > 600
}

TEST(Cli, IsingAndPottsBestExamplesRunAroundTheTransition) {
  expect_field_path_example_exact("ising-32-best.toml", 12);
  expect_field_path_example_exact("potts-32-best.toml", 4);
  expect_field_path_example_exact("potts-32-best.toml", 4, " --set kernel.type=heat_bath");
}

// The budget in each model family's unit: Gibbs sweeps for an RBM (and the sweeps of its
// reverse starts from the data), gradient evaluations for HAIS (one per leapfrog step).
TEST(Cli, BudgetsCountEachModelsUnitOfWork) {
  const std::string dir = std::string(LOGZ_SOURCE_DIR) + "/examples/";
  const std::string rbm = temp_path("budget-rbm.json"), poe = temp_path("budget-poe.json");
  ASSERT_EQ(run_cli("run " + dir +
                    "rbm-random-20.toml -q --set run.num_paths=10 --set schedule.num_steps=30 "
                    "--set run.equilibration_sweeps=7 -o " +
                    rbm)
                .exit_code,
            0);
  const auto r = nlohmann::json::parse(read_file(rbm));
  EXPECT_EQ(r["budget"]["unit"], "Gibbs sweep");
  EXPECT_EQ(r["budget"]["forward"], 10 * 29);
  EXPECT_EQ(r["budget"]["reverse_start"], 10 * 7);
  ASSERT_EQ(run_cli("run " + dir +
                    "poe-36-laplace.toml -q --set run.num_paths=20 --set schedule.num_steps=30 "
                    "--set kernel.leapfrog_steps=3 -o " +
                    poe)
                .exit_code,
            0);
  const auto p = nlohmann::json::parse(read_file(poe));
  EXPECT_EQ(p["budget"]["unit"], "gradient evaluation");
  EXPECT_EQ(p["budget"]["forward"], 20 * 29 * 3);
  EXPECT_EQ(p["budget"]["total"], 2 * 20 * 29 * 3);
}

// An adaptive schedule: a pilot on its own random numbers places K steps; the result says so,
// counts the pilot in the budget and still lands within its error of the exact answer.
TEST(Cli, AdaptiveScheduleRunsAPilotAndCountsIt) {
  const std::string cfg = temp_path("adaptive.toml"), out = temp_path("adaptive.json");
  write_file(cfg, kSmallConfig);
  ASSERT_EQ(run_cli("run " + cfg +
                    " -q --set schedule.type=adaptive --set schedule.pilot_paths=8 "
                    "--set schedule.pilot_steps=20 -o " +
                    out)
                .exit_code,
            0);
  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["betas"].size(), 51u);
  EXPECT_EQ(j["equilibrium_energy"].size(), 51u);  // Kaufman's energies on the placed schedule
  EXPECT_EQ(j["details"]["adaptive_schedule"]["pilot_paths"], 8);
  // Forward and reverse pilot paths, the reverse ones from equilibrated ground states.
  EXPECT_EQ(j["details"]["adaptive_schedule"]["pilot_reverse_paths"], 8);
  EXPECT_EQ(j["budget"]["pilot"], 2 * 8 * 19 * 16);
  EXPECT_EQ(j["budget"]["pilot_reverse_start"], 8 * 20 * 16);
  const double exact = j["reference"]["log_z"].get<double>();
  const double bar = j["estimates"]["bar"]["log_z"].get<double>(),
               se = j["estimates"]["bar"]["std_error"].get<double>();
  EXPECT_NEAR(bar, exact, 5 * se + se * se);
}

TEST(Cli, SetAndSeedOverrideTheConfig) {
  const std::string cfg = temp_path("override.toml"), out = temp_path("override.json");
  write_file(cfg, kSmallConfig);
  ASSERT_EQ(
      run_cli("run " + cfg +
              " -q --seed 77 --set run.directions=forward --set schedule.num_steps=20 -o " + out)
          .exit_code,
      0);
  const auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["config"]["run"]["seed"], 77);
  EXPECT_EQ(j["betas"].size(), 21u);
  EXPECT_FALSE(j.contains("reverse"));
  EXPECT_TRUE(j["estimates"].contains("ais"));
  EXPECT_FALSE(j["estimates"].contains("bar"));
}

TEST(Cli, BadConfigsGiveOneLineErrors) {
  struct Bad {
    std::string set, needle;
  };
  const std::vector<Bad> bad = {
      {"model.type=potts4", "[model] type: expected one of"},
      {"model.size=0", "[model] size: expected an integer in [1, 32768], got 0"},
      {"model.beta=-1", "[model] beta"},
      {"schedule.num_steps=0", "[schedule] num_steps"},
      {"schedule.type=cubic", "[schedule] type"},
      {"kernel.type=hmc", "[kernel] type"},
      {"kernel.steps_per_temperature=\"many\"", "steps_per_temperature"},
      {"run.directions=[\"sideways\"]", "[run] directions"},
      {"estimators.methods=[\"magic\"]", "[estimators] methods"},
      {"run.num_pathz=3", "num_pathz: unknown key"},
      {"run.directions=forward --set estimators.methods=bar", "needs forward and reverse"},
      {"run.repetitions=0", "[run] repetitions"},
      {"run.method=ground_state_integration --set integration.intervals=10",
       "[integration] intervals"},
      {"kernel.type=multispin --set kernel.site_order=random",
       "[kernel] site_order: expected \"checkerboard\" with"},
      {"kernel.type=multispin --set run.chunk_size=100",
       "[run] chunk_size: expected a multiple of 64"},
      {"kernel.type=multispin --set run.method=tempering",
       "(\"multispin\" runs annealing and population annealing only)"},
      {"kernel.type=swendsen_wang --set model.coupling=-1", "(\"swendsen_wang\" needs J >= 0)"},
      {"kernel.type=swendsen_wang --set kernel.site_order=random",
       "[kernel] site_order: expected no site_order"},
      {"kernel.type=wolff --set model.coupling=-0.5", "(\"wolff\" needs J >= 0)"},
      {"kernel.local_sweeps=2",
       "[kernel] local_sweeps: expected no local_sweeps with type = \"metropolis\""},
      {"schedule.type=adaptive --set run.method=tempering",
       "[schedule] type: expected a fixed ladder"},
      {"schedule.type=adaptive --set schedule.pilot_paths=1", "[schedule] pilot_paths"},
  };
  // A method a model does not have is an error, not silently annealing.
  const std::string toy = std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-toy.toml";
  expect_one_line_error(run_cli("run " + toy + " -q --set run.method=tempering"),
                        "[run] method: expected \"annealing\" for this model");
  const std::string cfg = temp_path("bad.toml");
  write_file(cfg, kSmallConfig);
  for (const auto& b : bad) {
    SCOPED_TRACE(b.set);
    const auto r = run_cli("run " + cfg + " -q --set " + b.set);
    expect_one_line_error(r, b.needle);
    EXPECT_NE(r.err.find("--set "), std::string::npos)
        << "the error names the --set it comes from: " << r.err;
  }
  const std::string broken = temp_path("broken.toml");
  write_file(broken, "[model\ntype = \"ising\"\n");
  expect_one_line_error(run_cli("run " + broken), "broken.toml:1");
  expect_one_line_error(run_cli("run /nonexistent/config.toml"), "/nonexistent/config.toml");
  const std::string missing = temp_path("missing.toml");
  write_file(missing, "[model]\ntype = \"ising\"\n");
  expect_one_line_error(run_cli("run " + missing),
                        "[model] rows: expected an integer in [1, 32768] (this key is required)");
}

TEST(Cli, EstimateOnUsersWorkFiles) {
  // Gaussian works: forward N(mu, s^2), reverse N(s^2 - mu, s^2), log Z = -(mu - s^2 / 2).
  const double mu = 3.0, s = 1.0;
  std::string f = "# forward works\n", r;
  unsigned long long x = 12345;
  auto uniform = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((x >> 11) + 0.5) * 0x1.0p-53;
  };
  for (int i = 0; i < 2000; ++i) {
    const double z1 = std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
    const double z2 = std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
    f += std::to_string(mu + s * z1) + "\n";
    r += std::to_string(s * s - mu + s * z2) + "\n";
  }
  const std::string ff = temp_path("fw.txt"), rf = temp_path("rw.txt"), out = temp_path("est.json");
  write_file(ff, f);
  write_file(rf, r);
  const auto res = run_cli("estimate --forward " + ff + " --reverse " + rf + " -o " + out);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const auto j = nlohmann::json::parse(read_file(out));
  const double truth = -(mu - s * s / 2);
  for (const char* m : {"ais", "raise", "bar"}) {
    const double est = j["estimates"][m]["log_z"].get<double>(),
                 se = j["estimates"][m]["std_error"].get<double>();
    EXPECT_NEAR(est, truth, 5 * se + se * se) << m;
  }
  const auto only_f = run_cli("estimate --forward " + ff);
  EXPECT_EQ(only_f.exit_code, 0);
  EXPECT_NE(only_f.out.find("ais"), std::string::npos);
  EXPECT_EQ(only_f.out.find("bar"), std::string::npos);

  const std::string nan = temp_path("nan.txt"), text = temp_path("text.txt");
  write_file(nan, "1.0\n2.0\nnan\n");
  write_file(text, "1.0\nabc\n");
  expect_one_line_error(run_cli("estimate --forward " + nan), "nan.txt:3");
  expect_one_line_error(run_cli("estimate --forward " + text), "text.txt:2");
  expect_one_line_error(run_cli("estimate --forward /nonexistent/w.txt"), "/nonexistent/w.txt");
  expect_one_line_error(run_cli("estimate --forward " + ff + " --methods bar"),
                        "needs forward and reverse");
  expect_one_line_error(run_cli("estimate --forward " + ff + " --methods wham"), "--methods");
  expect_one_line_error(run_cli("estimate"), "expected at least one work file");
}

TEST(Cli, EstimateNonequilibriumMethodsAndOptions) {
  // Gaussian works as above: log Z = -(mu - s^2 / 2).
  const double mu = 3.0, s = 1.0;
  std::string f, r;
  unsigned long long x = 777;
  auto uniform = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((x >> 11) + 0.5) * 0x1.0p-53;
  };
  auto normal = [&] {
    return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  };
  for (int i = 0; i < 1000; ++i) {
    f += std::to_string(mu + s * normal()) + "\n";
    r += std::to_string(s * s - mu + s * normal()) + "\n";
  }
  const std::string ff = temp_path("nfw.txt"), rf = temp_path("nrw.txt");
  const std::string out1 = temp_path("neq1.json"), out2 = temp_path("neq2.json");
  write_file(ff, f);
  write_file(rf, r);
  const std::string args = "estimate -f " + ff + " -r " + rf +
                           " --methods cumulant,histogram,histogram_posterior,crossing,bar"
                           " --seed 4 --posterior-draws 400 --posterior-burn-in 50 -o ";
  const auto res = run_cli(args + out1);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  ASSERT_EQ(run_cli(args + out2).exit_code, 0);
  const auto j = nlohmann::json::parse(read_file(out1));
  EXPECT_EQ(j.dump(), nlohmann::json::parse(read_file(out2)).dump());  // same seed, same output
  const double truth = -(mu - s * s / 2);
  for (const char* m : {"cumulant_forward", "cumulant_reverse", "cumulant", "histogram",
                        "histogram_posterior", "crooks_crossing"}) {
    ASSERT_TRUE(j["estimates"].contains(m)) << m;
    const double est = j["estimates"][m]["log_z"].get<double>(),
                 se = j["estimates"][m]["std_error"].get<double>();
    EXPECT_NEAR(est, truth, 5 * se + se * se) << m;
  }
  const auto& post = j["estimates"]["histogram_posterior"];
  EXPECT_EQ(post["se_method"], "posterior_sd");
  EXPECT_EQ(post["diagnostics"]["num_draws"].get<double>(), 400.0);
  EXPECT_LT(post["diagnostics"]["ci95_low"].get<double>(),
            post["diagnostics"]["ci95_high"].get<double>());
  EXPECT_NEAR(j["estimates"]["histogram"]["log_z"].get<double>(),
              j["estimates"]["bar"]["log_z"].get<double>(), 1e-8);

  const auto only_r = run_cli("estimate -r " + rf + " --methods cumulant -o " + out1);
  ASSERT_EQ(only_r.exit_code, 0) << only_r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(out1))["estimates"].size(), 1u);
  expect_one_line_error(run_cli("estimate -f " + ff + " --methods histogram"),
                        "needs forward and reverse");
  expect_one_line_error(run_cli("estimate -f " + ff + " -r " + rf + " --posterior-draws 1"),
                        "--posterior-draws");
  expect_one_line_error(run_cli("estimate -f " + ff + " -r " + rf + " --histogram-bins -3"),
                        "--histogram-bins");

  // [estimators] keys of logz run.
  const std::string cfg = temp_path("neq.toml"), out = temp_path("neq_run.json");
  write_file(cfg, kSmallConfig);
  const auto run =
      run_cli("run " + cfg +
              " -q --set 'estimators.methods=[\"histogram_posterior\", \"histogram\"]'"
              " --set estimators.posterior_draws=100 --set estimators.histogram_bins=10 -o " +
              out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto jr = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(jr["estimates"]["histogram_posterior"]["diagnostics"]["num_draws"].get<double>(),
            100.0);
  EXPECT_EQ(jr["config"]["estimators"]["posterior_burn_in"], 200);
  EXPECT_LE(jr["estimates"]["histogram"]["diagnostics"]["num_support"].get<double>(), 10.0);
  expect_one_line_error(run_cli("run " + cfg + " -q --set estimators.posterior_draws=1"),
                        "[estimators] posterior_draws");
}

}  // namespace

namespace {

TEST(Cli, AnUnknownCommandIsNamed) {
  const auto r = run_cli("frobnicate");
  expect_one_line_error(r, "unknown command 'frobnicate': expected one of ");
  EXPECT_NE(r.err.find("run"), std::string::npos) << r.err;
}

TEST(Cli, ANegativeSeedIsRefusedAsTheOption) {
  const std::string config = temp_path("seed.toml");
  write_file(config, kSmallConfig);
  expect_one_line_error(run_cli("run " + config + " --seed -1"), "--seed");
}

TEST(Cli, ExactIsingRefusesAnOverflowingCouplingWithBothNames) {
  const auto r = run_cli("exact ising --size 4 --beta 1 -J 1e308");
  expect_one_line_error(r, "beta and coupling: expected beta |J| times the 2 R C bonds finite");
  EXPECT_NE(r.err.find("J = 1e+308"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 300u) << r.err;  // numbers in %g, not 309 digits
}

TEST(Cli, SetErrorsNameTheSetAndSpacesAroundItsPartsAreDropped) {
  const std::string config = temp_path("set.toml");
  write_file(config, kSmallConfig);
  const auto spaced = run_cli(
      "run " + config + " -q --set \"schedule.num_steps = 20\" --set \" run . num_paths= 4 \"");
  EXPECT_EQ(spaced.exit_code, 0) << spaced.err;
  auto r = run_cli("run " + config + " --set model.sise=5");
  expect_one_line_error(r, "--set model.sise=5: [model] sise: unknown key");
  EXPECT_EQ(r.err.find(config), std::string::npos) << "the config file is not to blame: " << r.err;
  expect_one_line_error(run_cli("run " + config + " --set \"run.num_paths = -3\""),
                        "--set run.num_paths = -3: [run] num_paths: expected");
  expect_one_line_error(run_cli("run " + config + " --set nosuch.key=1"),
                        "--set nosuch.key=1: [nosuch]: expected one of the sections");
  expect_one_line_error(run_cli("run " + config + " --set \" .x=1\""),
                        "expected section.key=value");
}

#if defined(__SANITIZE_ADDRESS__)
#define LOGZ_TEST_UNDER_ASAN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOGZ_TEST_UNDER_ASAN
#endif
#endif

TEST(Cli, KeysInRangeThatNeedMoreMemoryThanThereIsAreRefusedBeforeTheRun) {
  // Under a 1.9 GiB limit, so that the answer does not depend on the machine.
  const std::string limit = "LOGZ_MEMORY_LIMIT=1.9G";
  const std::string config = temp_path("memory.toml");
  write_file(config, kSmallConfig);
  for (const auto& [set, key] : std::vector<std::pair<std::string, std::string>>{
           {"run.num_paths=2147483648", "[run] num_paths"},
           {"model.size=16384", "[model] size"},
           {"schedule.num_steps=100000000", "[schedule] num_steps"},
           {"estimators.histogram_bins=1073741824", "[estimators] histogram_bins"},
           {"estimators.posterior_draws=1073741824", "[estimators] posterior_draws"}}) {
    const auto r = run_cli("run " + config + " -q --set " + set, limit);
    expect_one_line_error(r, key + ": expected a value that fits in memory");
    EXPECT_NE(r.err.find("this process may use 1.9"), std::string::npos) << r.err;
  }
  const std::string works = temp_path("works.txt");
  write_file(works, "1\n2\n3\n");
  expect_one_line_error(
      run_cli("estimate -f " + works + " -r " + works + " --histogram-bins 1073741824", limit),
      "--histogram-bins: expected a value that fits in memory");
  expect_one_line_error(run_cli("estimate -f /dev/zero"),
                        "/dev/zero: expected a file, or a stream that ends within 1 GiB");
  expect_one_line_error(run_cli("run " + config + " -q", "LOGZ_MEMORY_LIMIT=lots"),
                        "LOGZ_MEMORY_LIMIT=lots: expected");
#ifndef LOGZ_TEST_UNDER_ASAN
  // An address-space limit (ulimit -v) counts too; AddressSanitizer cannot start under one.
  expect_one_line_error(
      run_cli("run " + config + " -q --set model.size=16384", "ulimit -v 2000000;"),
      "[model] size: expected a value that fits in memory");
#endif
}

TEST(Cli, AGaussianToyWhoseEnergiesOverflowIsRefusedNamingTheMean) {
  const std::string toy = std::string(LOGZ_SOURCE_DIR) + "/examples/gaussian-toy.toml";
  expect_one_line_error(
      run_cli("run " + toy + " -q --set model.mu_start=1e100 --set model.sigma_end=1e-100"),
      "[model] mu_start: expected means and sds whose energies");
  expect_one_line_error(run_cli("run " + toy + " -q --set model.mu_end=-1e200"), "[model] mu_end");
}

}  // namespace
