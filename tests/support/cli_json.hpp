// A `logz run` of a config written by the test, its JSON result read back, and the check every
// method's CLI test makes of an estimate against the result's exact reference.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli.hpp"

namespace logz::test_support {

// Writes `text` to NAME.toml, runs `logz run NAME.toml -q -o NAME.json EXTRA` and parses NAME.json.
inline nlohmann::json run_config_json(const std::string& text, const std::string& name,
                                      const std::string& extra = "") {
  const std::string cfg = temp_path(name + ".toml"), out = temp_path(name + ".json");
  write_file(cfg, text);
  const auto r = run_cli("run " + cfg + " -q -o " + out + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(out));
}

// |estimate - exact| <= 5 SE + allowance, the SE finite, positive and below max_se.
inline void expect_estimate_near_exact(const nlohmann::json& j, const std::string& method,
                                       double allowance, double max_se = INFINITY) {
  const auto& e = j["estimates"][method];
  ASSERT_TRUE(e["std_error"].is_number()) << method << ": " << e.dump();
  const double est = e["log_z"].get<double>(), se = e["std_error"].get<double>();
  const double exact = j["reference"]["log_z"].get<double>();
  EXPECT_GT(se, 0.0) << method;
  EXPECT_LT(se, max_se) << method;
  EXPECT_LE(std::abs(est - exact), 5.0 * se + allowance)
      << method << ": estimate " << est << " exact " << exact << " se " << se;
}

}  // namespace logz::test_support
