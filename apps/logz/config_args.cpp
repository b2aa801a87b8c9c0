#include "config_args.hpp"

#include <charconv>
#include <limits>

namespace logz::cli {

namespace {

// The seed keys of every command ([run] seed, [sampler] seed, [training] seed) take 0 to
// 2^63 - 1. --seed is checked as typed: CLI11's NonNegativeNumber printed its range as a
// 309-digit double, and a value past 2^63 - 1 reached the key as a negative number.
CLI::Validator seed_range() {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || stop != end || value > kMax)
          return "expected an integer from 0 to 2^63 - 1 = " + std::to_string(kMax) + ", got " +
                 text;
        return "";
      },
      "0 .. 2^63-1");
}

}  // namespace

void ConfigArgs::add_to(CLI::App* sub, const std::string& what, const std::string& seed_key,
                        const std::string& threads_key) {
  seed_key_ = seed_key;
  threads_key_ = threads_key;
  sub->add_option("config", config, what)->required();
  sub->add_option("--set", sets, "Override a config key: section.key=value (repeatable)");
  if (!seed_key.empty())
    sub->add_option("--seed", seed, "Random seed, 0 to 2^63 - 1 (overrides [" + seed_key + "])")
        ->check(seed_range());
  if (!threads_key.empty())
    sub->add_option("--threads", threads,
                    "Worker threads, 0 = all (overrides [" + threads_key + "])")
        ->check(CLI::Range(0, 4096));
}

Config ConfigArgs::load() const {
  Config c = Config::from_file(config);
  for (const auto& s : sets) c.set(s);
  auto split = [](const std::string& key) {
    return std::make_pair(key.substr(0, key.find('.')), key.substr(key.find('.') + 1));
  };
  if (seed) {
    const auto [section, key] = split(seed_key_);
    c.set(section, key, *seed);
  }
  if (threads) {
    const auto [section, key] = split(threads_key_);
    c.set(section, key, *threads);
  }
  return c;
}

}  // namespace logz::cli
