// Every integer and number key a config can set has a finite maximum that a run can reach: no
// key takes INT64_MAX or the largest double, which would let a value in range run for
// millennia or overflow. Seeds are the exception: any 63-bit seed is a run as long as any other.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "logz/config/config_key.hpp"
#include "logz/services/registry.hpp"
#include "logz/training_app/rbm_training.hpp"

namespace {

// Sanity bounds: counts of paths, steps, sweeps and sizes stay below 2^40; scales below 1e100,
// whose squares (variances, energies) are still finite doubles.
constexpr std::int64_t kLargestCount = std::int64_t{1} << 40;
constexpr double kLargestScale = 1e100;

struct RegisteredKey {
  std::string where;  // "model ising [kernel]"
  const logz::Key* key;
};

// Every key of every group the registries know: the models' (run, loglik, sample), the
// kernels' and `logz train rbm`'s.
std::vector<RegisteredKey> every_registered_key() {
  std::vector<RegisteredKey> keys;
  const auto add = [&](const std::string& owner, const logz::KeyGroup* g) {
    if (g)
      for (const logz::Key* k : g->keys) keys.push_back({owner + " [" + g->section + "]", k});
  };
  for (const auto& m : logz::model_registry()) {
    for (const auto* g : m.keys) add("model " + m.name, g);
    for (const auto* g : m.sample_keys) add("model " + m.name, g);
    for (const auto& k : m.kernels) add("model " + m.name + " kernel " + k.name, k.keys);
  }
  for (const auto& k : logz::kernel_registry()) add("kernel " + k.name, k.keys);
  for (const auto* g : logz::rbm_training_keys()) add("train rbm", g);
  return keys;
}

bool is_seed(const std::string& name) { return name.size() >= 4 && name.ends_with("seed"); }

TEST(ConfigKeyRanges, EveryIntegerAndNumberKeyHasAFiniteReachableMaximum) {
  const auto keys = every_registered_key();
  std::size_t checked = 0;
  for (const auto& [where, key] : keys) {
    const std::string name = where + " " + key->name();
    if (key->type() == logz::KeyType::integer) {
      EXPECT_GE(key->max_integer(), key->min_integer()) << name;
      if (is_seed(key->name())) continue;
      ++checked;
      EXPECT_LE(key->max_integer(), kLargestCount) << name << ": maximum " << key->max_integer();
      // What errors and `logz list` say: the range with its maximum.
      EXPECT_NE(key->expectation().find(", " + std::to_string(key->max_integer()) + "]"),
                std::string::npos)
          << name << ": " << key->expectation();
    } else if (key->type() == logz::KeyType::number) {
      ++checked;
      EXPECT_TRUE(std::isfinite(key->max_number())) << name;
      EXPECT_LE(key->max_number(), kLargestScale) << name << ": maximum " << key->max_number();
      EXPECT_GE(key->max_number(), key->min_number()) << name;
      EXPECT_NE(key->expectation().find("a number in ["), std::string::npos)
          << name << ": " << key->expectation();
    }
  }
  // The walk reached the registries: the annealing, tempering and kernel keys are among them.
  std::set<std::string> names;
  for (const auto& k : keys) names.insert(k.key->name());
  for (const char* n :
       {"num_paths", "num_steps", "num_sweeps", "steps_per_temperature", "repetitions",
        "posterior_burn_in", "equilibration_sweeps", "size", "epochs"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_GT(checked, 100u);
}

// The maxima the issue named as runs of hours are still in range, and the ones that were
// unbounded are bounded now.
TEST(ConfigKeyRanges, TheLongestRunsTheIssueNamedAreInRangeAndBounded) {
  for (const auto& [where, key] : every_registered_key()) {
    if (key->type() != logz::KeyType::integer) continue;
    if (key->name() == "repetitions") {
      EXPECT_GE(key->max_integer(), 10000000) << where;
    }
    if (key->name() == "posterior_burn_in") {
      EXPECT_GE(key->max_integer(), std::int64_t{1} << 30) << where;
    }
    if (key->name() == "steps_per_temperature") {
      EXPECT_LT(key->max_integer(), 1000000000000000) << where;
    }
  }
}

}  // namespace
