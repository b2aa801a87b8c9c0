#include "logz/services/registry.hpp"

#include <algorithm>

#include "logz/core/error.hpp"

namespace logz {

#define LOGZ_MODEL(name) ModelEntry name##_model_entry();
#include "models/models.def"
#undef LOGZ_MODEL

namespace {

const Key kModelType = Key::choice("type", required, {}, "the model (logz list shows them)");
const KeyGroup kModelTypeKeys{"model", "model type", {&kModelType}};

}  // namespace

const std::vector<ModelEntry>& model_registry() {
  static const std::vector<ModelEntry> models = {
#define LOGZ_MODEL(name) name##_model_entry(),
#include "models/models.def"
#undef LOGZ_MODEL
  };
  return models;
}

// The kernels of every model, each once, in the order the models name them.
const std::vector<KernelEntry>& kernel_registry() {
  static const std::vector<KernelEntry> kernels = [] {
    std::vector<KernelEntry> all;
    for (const auto& m : model_registry())
      for (const auto& k : m.kernels)
        if (std::none_of(all.begin(), all.end(), [&](const KernelEntry& a) {
              return a.family == k.family && a.name == k.name;
            }))
          all.push_back(k);
    return all;
  }();
  return kernels;
}

std::vector<std::string> ModelEntry::sections(const std::string& command) const {
  std::vector<std::string> s = {"model"};
  for (const KeyGroup* g : command == "sample" ? sample_keys : keys)
    if (std::find(s.begin(), s.end(), g->section) == s.end()) s.push_back(g->section);
  return s;
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "\"" : i + 1 == names.size() ? " and \"" : ", \"") + names[i] + "\"";
  return s;
}

std::vector<std::string> model_names(const std::string& what) {
  std::vector<std::string> names;
  for (const auto& m : model_registry()) {
    const bool has = what == "run"      ? static_cast<bool>(m.run)
                     : what == "loglik" ? static_cast<bool>(m.loglik)
                     : what == "sample"
                         ? static_cast<bool>(m.sample)
                         : std::any_of(m.methods.begin(), m.methods.end(),
                                       [&](RunMethod x) { return to_string(x) == what; });
    if (has) names.push_back(m.name);
  }
  return names;
}

Key model_type_key(const std::string& what) { return kModelType.with_choices(model_names(what)); }
const KeyGroup& model_type_keys() { return kModelTypeKeys; }

const ModelEntry& find_model(const std::string& name) {
  for (const auto& m : model_registry())
    if (m.name == name) return m;
  fail_argument("logz::find_model", "name",
                "one of " + quoted_names(model_names("run")) + ", got \"" + name + "\"");
}

const KernelEntry& find_kernel(const std::string& family, const std::string& name) {
  for (const auto& k : kernel_registry())
    if (k.family == family && k.name == name) return k;
  fail_argument("logz::find_kernel", "name",
                "a kernel of the " + family + " family, got \"" + name + "\"");
}

void report_estimator_progress(const ProgressFn& progress, const std::vector<std::string>& methods,
                               std::size_t done) {
  if (!progress) return;
  const std::string stage = done < methods.size()
                                ? "estimates, now " + methods[done] + " [estimators]"
                                : "estimates [estimators]";
  progress(stage, done, methods.size());
}

}  // namespace logz
