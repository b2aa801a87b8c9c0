// The schedule registry: every [schedule] type, with its summary, the keys it reads and the
// factory that makes it. `[schedule] type`'s choices, `logz list` and read_schedule read this
// table; a new schedule is one function of paths/schedule.hpp plus one entry here.
#include <functional>

#include "logz/anneal/adaptive_schedule.hpp"
#include "logz/config/memory_guard.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/registry.hpp"

namespace logz {

namespace {

// The defaults are those of paths/schedule.hpp: its constants and AdaptivePlan's.
const Key kNumSteps =
    Key::integer("num_steps", static_cast<std::int64_t>(kDefaultNumSteps), 1, 100000000,
                 "K: annealing steps (temperatures K + 1); tempering: num_temperatures - 1");
const Key kBetaMin = Key::number("beta_min", kDefaultGeometricTMin, 1e-300, 0.999999,
                                 "geometric: the smallest t > 0");
const Key kSteepness = Key::number("steepness", kDefaultSigmoidSteepness, 1e-6, 1e3,
                                   "sigmoid: how steep the sigmoid is");
const Key kFile = Key::string("file", required,
                              "file: the path fractions, one per line (relative to the config)");
const Key kFractions =
    Key::array("fractions", required, "list: the path fractions, rising strictly from 0 to 1");
const Key kPilotPaths =
    Key::integer("pilot_paths", static_cast<std::int64_t>(AdaptivePlan{}.pilot_paths), 2, 1LL << 24,
                 "adaptive: forward paths of the pilot run (own random numbers)");
const Key kPilotSteps =
    Key::integer("pilot_steps", static_cast<std::int64_t>(AdaptivePlan{}.pilot_steps), 2, 10000000,
                 "adaptive: steps of the pilot's linear schedule");
const Key kPilotReverse =
    Key::boolean("pilot_reverse", AdaptivePlan{}.reverse_pilot,
                 "adaptive: also run the pilot in reverse, from the run's own reverse start");

// What a schedule's factory reads from: the [schedule] section, the config (for paths
// relative to it) and K where the section does not give it.
struct ScheduleSource {
  ConfigSection& section;
  Config& config;
  std::int64_t default_steps;

  // K, checked to fit in memory: per temperature the fractions, each thread's sums, the traces
  // of both directions and their JSON, a few hundred bytes.
  std::size_t num_steps() const {
    const auto k = static_cast<std::size_t>(section.get_int(kNumSteps, default_steps));
    check_fits_in_memory(section, kNumSteps, 400.0 * static_cast<double>(k),
                         "the per-temperature records");
    return k;
  }
};

struct ScheduleFactory {
  ScheduleEntry entry;
  std::function<Schedule(const ScheduleSource&)> make;
};

const std::vector<ScheduleFactory>& schedules() {
  static const std::vector<ScheduleFactory> table = {
      {{"linear", "t_k = k / K"},
       [](const ScheduleSource& s) { return linear_schedule(s.num_steps()); }},
      {{"geometric", "t_0 = 0, then K geometric steps from beta_min to 1"},
       [](const ScheduleSource& s) {
         const std::size_t k = s.num_steps();
         return geometric_schedule(k, s.section.get_double(kBetaMin));
       }},
      {{"sigmoid", "a sigmoid in k, denser at both ends (steepness)"},
       [](const ScheduleSource& s) {
         const std::size_t k = s.num_steps();
         return sigmoid_schedule(k, s.section.get_double(kSteepness));
       }},
      {{"salakhutdinov", "the 14,501 temperatures of Salakhutdinov & Murray (2008)"},
       [](const ScheduleSource&) { return salakhutdinov_schedule(); }},
      {{"file", "path fractions read from a file, one per line"},
       [](const ScheduleSource& s) {
         return schedule_from_file(resolve_config_path(s.config, s.section.get_string(kFile)));
       }},
      {{"list", "the path fractions given as `fractions`"},
       [](const ScheduleSource& s) {
         const Value& v = s.section.get_value(kFractions);
         const std::string shape = "an array of numbers rising strictly from 0 to 1";
         if (!v.is_array()) s.section.fail(kFractions, shape);
         check_fits_in_memory(s.section, kFractions, 400.0 * static_cast<double>(v.size()),
                              "the per-temperature records");
         std::vector<double> t(v.size());
         for (std::size_t k = 0; k < t.size(); ++k) {
           if (!v[k].is_number())
             s.section.fail(kFractions, shape + " (fractions[" + std::to_string(k) + "] is not)");
           t[k] = v[k].as_double();
         }
         if (const auto fault = schedule_fault(t))
           s.section.fail(kFractions, fault->expectation + " (" + fault->entry + ")");
         return Schedule(std::move(t), "[schedule] fractions");
       }},
      {{"adaptive",
        "K steps at equal thermodynamic length, measured by a pilot run (counted in the budget)"},
       [](const ScheduleSource& s) {
         const std::size_t k = s.num_steps();
         return Schedule::adaptive(
             AdaptivePlan{k, static_cast<std::size_t>(s.section.get_int(kPilotPaths)),
                          static_cast<std::size_t>(s.section.get_int(kPilotSteps)),
                          s.section.get_bool(kPilotReverse)});
       }},
  };
  return table;
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const auto& s : schedules()) names.push_back(s.entry.name);
  return names;
}

const Key kScheduleType = Key::choice(
    "type", Computed{"\"linear\" (continuous models' annealing: \"adaptive\")"}, schedule_names(),
    "how the path fractions 0 = t_0 < ... < t_K = 1 are placed (docs/config.md)");
const KeyGroup kScheduleKeys{"schedule",
                             "schedule",
                             {&kScheduleType, &kNumSteps, &kBetaMin, &kSteepness, &kFile,
                              &kFractions, &kPilotPaths, &kPilotSteps, &kPilotReverse}};

}  // namespace

const KeyGroup& schedule_keys() { return kScheduleKeys; }

const std::vector<ScheduleEntry>& schedule_registry() {
  static const std::vector<ScheduleEntry> entries = [] {
    std::vector<ScheduleEntry> v;
    for (const auto& s : schedules()) v.push_back(s.entry);
    return v;
  }();
  return entries;
}

Schedule read_schedule(Config& config, std::int64_t default_steps,
                       const std::string& default_type) {
  auto s = config.section("schedule");
  s.check_known({&kScheduleKeys});
  const std::string type = s.get_string(kScheduleType, default_type);
  for (const auto& entry : schedules())
    if (entry.entry.name == type) return entry.make(ScheduleSource{s, config, default_steps});
  s.fail(kScheduleType, "a registered schedule");  // unreachable: the key's choices are the table's
}

}  // namespace logz
