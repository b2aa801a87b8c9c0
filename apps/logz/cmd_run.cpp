// logz run CONFIG.toml: any experiment described by a TOML file (docs/config.md), every estimator
// beside the exact value.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "config_args.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/run.hpp"
#include "plots/plots.hpp"
#include "progress.hpp"

namespace logz::cli {

namespace {

struct RunArgs {
  ConfigArgs config;
  std::string output, works_csv, plots;
  bool quiet = false;
};

}  // namespace

std::function<int()> add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run an experiment described by a TOML config (see docs/config.md; "
                                            "logz list shows the models) and report every estimator beside the "
                                            "exact value");
  args->config.add_to(sub, "Experiment config (TOML)", "run.seed", "run.threads");
  sub->add_option("--output,-o", args->output, "Write the full result as JSON to this file");
  sub->add_option("--works-csv", args->works_csv, "Write every path's work as CSV to this file");
  sub->add_option("--plots", args->plots,
                  "Write the plots of this run (PNG and SVG, with their gnuplot scripts) into this folder");
  sub->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  return [args] {
    Config config = args->config.load();
    // Fail before a long run, not after it, when plots cannot be drawn.
    if (!args->plots.empty()) {
      plots::find_gnuplot();
      plots::make_plot_dir(args->plots);
    }
    Progress progress;
    const RunResult result = run_experiment(config, {progress.as_function(args->quiet)});
    std::cout << report::result_table(result);
    const nlohmann::json json = report::result_to_json(result);
    if (!args->output.empty()) write_text_file(args->output, json.dump(2) + "\n");
    if (!args->works_csv.empty()) write_text_file(args->works_csv, report::works_csv(result));
    if (!args->plots.empty()) plots::plot_result(plots::ResultFile{args->config.config, json}, args->plots);
    return 0;
  };
}

}  // namespace logz::cli
