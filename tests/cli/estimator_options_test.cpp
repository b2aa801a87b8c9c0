// Every option of the estimator registry reaches every front end from the registry itself:
// `logz list --json` shows it with its default among the [estimators] keys of every model that
// has that section and under the estimators that read it, and `logz estimate --help` has its
// flag with its default (logz.estimate's docstring: python/tests/test_estimator_options.py). An
// option added by hand to one front end, or left out of one, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "support/cli.hpp"

namespace {

using logz::test_support::run_cli;

std::string dashed_flag(const logz::Key& key) {
  std::string flag = "--" + key.name();
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

TEST(EstimatorOptions, TheRegistryHasOptionsAndEveryEntryOptionIsAnEstimatorsKey) {
  const auto& keys = logz::estimator_option_keys();
  ASSERT_GE(keys.size(), 3u);  // histogram_bins, posterior_draws, posterior_burn_in at least
  for (const auto& e : logz::estimator_registry())
    for (const logz::Key* k : e.options)
      EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << e.name << " " << k->name();
}

TEST(EstimatorOptions, EveryOptionIsInListJsonWithItsDefault) {
  const auto r = run_cli("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  int models_with_estimators = 0;
  for (const auto& [model, entry] : j["models"].items()) {
    if (!entry["keys"].contains("estimators")) continue;
    ++models_with_estimators;
    const auto& section = entry["keys"]["estimators"];
    for (const logz::Key* k : logz::estimator_option_keys()) {
      ASSERT_TRUE(section.contains(k->name())) << model << ": [estimators] " << k->name();
      EXPECT_EQ(section[k->name()]["default"], k->default_text()) << model << " " << k->name();
    }
  }
  EXPECT_GE(models_with_estimators, 5);
  for (const auto& e : logz::estimator_registry()) {
    nlohmann::json names = nlohmann::json::array();
    for (const logz::Key* k : e.options) names.push_back(k->name());
    EXPECT_EQ(j["estimators"][e.name]["options"], names) << e.name;
  }
}

TEST(EstimatorOptions, EveryOptionIsAFlagOfLogzEstimate) {
  const auto r = run_cli("estimate --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const logz::Key* k : logz::estimator_option_keys()) {
    const std::size_t at = r.out.find(dashed_flag(*k));
    ASSERT_NE(at, std::string::npos) << dashed_flag(*k) << " in\n" << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    // CLI11 ends the flag's line with its range and "=DEFAULT".
    EXPECT_TRUE(line.ends_with("=" + k->default_text())) << line;
    EXPECT_NE(line.find(std::to_string(k->max_integer())), std::string::npos) << line;
  }
}

}  // namespace
