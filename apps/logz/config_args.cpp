#include "config_args.hpp"

namespace logz::cli {

void ConfigArgs::add_to(CLI::App* sub, const std::string& what, const std::string& seed_key,
                        const std::string& threads_key) {
  seed_key_ = seed_key;
  threads_key_ = threads_key;
  sub->add_option("config", config, what)->required();
  sub->add_option("--set", sets, "Override a config key: section.key=value (repeatable)");
  if (!seed_key.empty())
    sub->add_option("--seed", seed, "Random seed >= 0 (overrides [" + seed_key + "])")
        ->check(CLI::NonNegativeNumber);
  if (!threads_key.empty())
    sub->add_option("--threads", threads, "Worker threads, 0 = all (overrides [" + threads_key + "])")
        ->check(CLI::Range(0, 4096));
}

Config ConfigArgs::load() const {
  Config c = Config::from_file(config);
  for (const auto& s : sets) c.set(s);
  auto split = [](const std::string& key) { return std::make_pair(key.substr(0, key.find('.')), key.substr(key.find('.') + 1)); };
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
