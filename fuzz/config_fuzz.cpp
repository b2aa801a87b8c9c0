// Experiment configs as `logz run CONFIG.toml --set section.key=value ...` reads them: the input
// is TOML text, and the lines after a line "%%" are --set overrides, one per line. After
// Config::from_toml and Config::set, the config is resolved against the registry as `logz run`
// starts to: [model] type, find_model, the sections the model allows, its unknown keys, and every
// key of the model's key groups read through its typed getter (nothing is run).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/config/config.hpp"
#include "logz/services/registry.hpp"

namespace {

using namespace logz;

// Reads `key` through the getter of its type; a computed default (worked out by the model from
// other keys) is stood in for by a value of the right type.
void read_key(ConfigSection s, const Key& key) {
  const bool computed = std::holds_alternative<Computed>(key.fallback());
  const std::vector<std::string>& choices = key.choices();
  switch (key.type()) {
    case KeyType::integer:
      if (computed)
        s.get_int(key, std::clamp<std::int64_t>(0, key.min_integer(), key.max_integer()));
      else
        s.get_int(key);
      break;
    case KeyType::number:
      if (computed)
        s.get_double(key, std::clamp(0.0, key.min_number(), key.max_number()));
      else
        s.get_double(key);
      break;
    case KeyType::string:
      if (computed)
        s.get_string(key, choices.empty() ? std::string("x") : choices.front());
      else
        s.get_string(key);
      break;
    case KeyType::boolean:
      if (computed)
        s.get_bool(key.name(), false);
      else
        s.get_bool(key);
      break;
    case KeyType::string_list:
      if (computed)
        s.get_string_list(key, {choices.empty() ? std::string("x") : choices.front()});
      else
        s.get_string_list(key);
      break;
    case KeyType::array:
      s.get_value(key);
      break;
  }
}

void resolve(Config& c, const std::string& command) {
  const std::string type = c.section("model").get_string(model_type_key(command));
  const ModelEntry& model = find_model(type);
  fuzz::accepts([&] { c.check_sections(model.sections(command)); });
  std::map<std::string, std::vector<const KeyGroup*>> by_section;
  const auto& groups = command == "sample" ? model.sample_keys : model.keys;
  for (const KeyGroup* g : groups) by_section[g->section].push_back(g);
  for (const auto& entry : by_section)
    fuzz::accepts([&] { c.section(entry.first).check_known(entry.second); });
  for (const KeyGroup* g : groups)
    for (const Key* k : g->keys) fuzz::accepts([&] { read_key(c.section(g->section), *k); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string toml = input;
  std::vector<std::string> sets;
  std::size_t sep = std::string::npos;
  if (input.rfind("%%\n", 0) == 0) {
    sep = 0;
  } else if (const std::size_t at = input.find("\n%%\n"); at != std::string::npos) {
    sep = at + 1;
  }
  if (sep != std::string::npos) {
    toml = input.substr(0, sep);
    std::string_view rest(input);
    rest.remove_prefix(sep + 3);
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      if (!line.empty()) sets.emplace_back(line);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    }
  }

  Config config;
  if (!fuzz::accepts([&] { config = Config::from_toml(toml, "fuzz.toml"); })) return 0;
  // As the command-line tool does: the overrides in order, the first bad one ends the run.
  if (!fuzz::accepts([&] {
        for (const std::string& s : sets) config.set(s);
      }))
    return 0;
  for (const char* command : {"run", "sample"}) {
    Config c = config;
    fuzz::accepts([&] { resolve(c, command); });
  }
  return 0;
}
