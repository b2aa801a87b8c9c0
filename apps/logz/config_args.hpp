// The config arguments every running subcommand takes: the TOML file, --set overrides, and
// --seed / --threads, which override a key of the config.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "logz/config/config.hpp"

namespace logz::cli {

struct ConfigArgs {
  std::string config;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;

  // Adds the config positional and --set, and --seed / --threads when their keys are given
  // ("run.seed": the section and key they override).
  void add_to(CLI::App* sub, const std::string& what, const std::string& seed_key,
              const std::string& threads_key);
  // The config file with the overrides applied.
  Config load() const;

 private:
  std::string seed_key_, threads_key_;
};

}  // namespace logz::cli
