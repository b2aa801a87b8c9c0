// EstimatorOptions from the option keys of the estimator registry (services/estimators.hpp):
// the keys' defaults are the struct's, every option fills its own field, the memory a value asks
// for is checked by the front end's check, and a value outside the key's range is refused.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "logz/core/error.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/estimators.hpp"

namespace {

std::int64_t key_default(const logz::Key& k) { return std::get<std::int64_t>(k.fallback()); }

TEST(EstimatorOptionKeys, DefaultsAreThoseOfTheStruct) {
  const logz::EstimatorOptions defaults;
  const auto o = logz::read_estimator_options(
      {[](const logz::Key& k) { return key_default(k); }, {}}, defaults.seed);
  EXPECT_EQ(o.seed, defaults.seed);
  EXPECT_EQ(o.posterior_draws, defaults.posterior_draws);
  EXPECT_EQ(o.posterior_burn_in, defaults.posterior_burn_in);
  EXPECT_EQ(o.histogram_bins, defaults.histogram_bins);
}

TEST(EstimatorOptionKeys, EachKeyFillsItsFieldAndTheMemoryCheckSeesIt) {
  const std::map<std::string, std::int64_t> given = {
      {"posterior_draws", 31}, {"posterior_burn_in", 7}, {"histogram_bins", 12}};
  std::map<std::string, double> bytes;
  const auto o =
      logz::read_estimator_options({[&](const logz::Key& k) { return given.at(k.name()); },
                                    [&](const logz::Key& k, double b, const std::string& what) {
                                      EXPECT_FALSE(what.empty());
                                      bytes[k.name()] = b;
                                    }},
                                   9);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.posterior_draws, 31u);
  EXPECT_EQ(o.posterior_burn_in, 7u);
  EXPECT_EQ(o.histogram_bins, 12u);
  EXPECT_GT(bytes.at("histogram_bins"), 0.0);  // the histograms and the draws take memory
  EXPECT_GT(bytes.at("posterior_draws"), 0.0);
}

TEST(EstimatorOptionKeys, AValueOutsideTheKeysRangeIsRefused) {
  const auto low = [](const logz::Key& k) {
    return k.name() == "posterior_draws" ? 1 : key_default(k);
  };
  EXPECT_THROW(logz::read_estimator_options({low, {}}, 1), logz::InvalidArgument);
}

TEST(EstimatorOptionKeys, TheEstimatorsSectionIsMethodsAndTheRegistryOptions) {
  const auto& group = logz::estimator_keys();
  ASSERT_EQ(group.keys.size(), 1 + logz::estimator_option_keys().size());
  EXPECT_EQ(group.keys.front()->name(), "methods");
  for (std::size_t i = 0; i < logz::estimator_option_keys().size(); ++i)
    EXPECT_EQ(group.keys[i + 1], logz::estimator_option_keys()[i]);
}

}  // namespace
