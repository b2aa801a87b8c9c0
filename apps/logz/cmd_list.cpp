// logz list [--json]: every model (with its capabilities and config keys), kernel, estimator
// and schedule, from the registries.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"

namespace logz::cli {

std::function<int()> add_list_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "list", "List the models, kernels, estimators and schedules a config can name");
  sub->add_flag("--json", *json, "Everything, with every config key, as JSON");
  return [json] {
    std::cout << (*json ? report::registry_to_json().dump(2) + "\n" : report::registry_table());
    return 0;
  };
}

}  // namespace logz::cli
