// logz run CONFIG.toml: any experiment described by a TOML file (docs/config.md), every estimator
// beside the exact value.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "checkpoint_args.hpp"
#include "commands.hpp"
#include "config_args.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/persistence/checkpoint.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/methods.hpp"
#include "logz/services/run.hpp"
#include "plots/plots.hpp"
#include "progress.hpp"

namespace logz::cli {

namespace {

struct RunArgs {
  ConfigArgs config;
  std::string output, works_csv, plots;
  CheckpointArgs checkpoint;
  bool quiet = false;
};

// Checkpoints cover the methods whose registry entry says so (annealing: forward, reverse,
// repetitions; tempering); ground-state integration keeps chain states a checkpoint does not
// hold yet.
void check_checkpointable(const Config& config, const std::string& file) {
  const Value* run = config.raw().find("run");
  const Value* method = run && run->is_record() ? run->as_record().find("method") : nullptr;
  if (!method) return;  // the default, annealing
  std::vector<std::string> can, cannot;
  bool ok = false;
  for (const MethodEntry& m : method_registry()) {
    const std::string name = to_string(m.method);
    if (m.checkpoints) ok = ok || (method->is_string() && method->as_string() == name);
    (m.checkpoints ? can : cannot).push_back("\"" + name + "\"");
  }
  // "a", "b" or "c"
  auto listed = [](const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
      out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
  };
  if (!ok)
    throw InputError(
        fmt::format("{}: [run] method: expected {} with --checkpoint ({} cannot be "
                    "checkpointed yet)",
                    file, listed(can), listed(cannot)));
}

}  // namespace

std::function<int()> add_run_command(CLI::App& app, Ranks* process_ranks) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub =
      app.add_subcommand("run",
                         "Run an experiment described by a TOML config (see docs/config.md; "
                         "logz list shows the models) and report every estimator beside the "
                         "exact value");
  args->config.add_to(sub, "Experiment config (TOML)", "run.seed", "run.threads");
  sub->add_option("--output,-o", args->output, "Write the full result as JSON to this file");
  sub->add_option("--works-csv", args->works_csv, "Write every path's work as CSV to this file");
  sub->add_option(
      "--plots", args->plots,
      "Write the plots of this run (PNG and SVG, with their gnuplot scripts) into this folder");
  sub->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  args->checkpoint.add_to(sub, "annealing and tempering runs");
  sub->get_option("config")->required(false);
  return [args, process_ranks] {
    std::optional<RunCheckpoint> checkpoint =
        args->checkpoint.open(args->config, "run", "run.seed");
    Config config = checkpoint ? checkpoint->config().load() : args->config.load();
    Ranks& ranks = ranks_or_single(process_ranks);
    if (checkpoint) {
      config.record_files_in(checkpoint->files_read());  // fingerprints of the files it reads
      check_checkpointable(config, config.source());
      save_first(*checkpoint, ranks);
    }
    // Fail before a long run, not after it, when the results or plots cannot be written.
    if (ranks.rank() == 0)
      for (const std::string* file : {&args->output, &args->works_csv})
        if (!file->empty()) io::check_output_file(*file);
    if (!args->plots.empty() && ranks.rank() == 0) {
      plots::find_gnuplot();
      plots::make_plot_dir(args->plots);
    }
    Progress progress;
    RunResult result;
    try {
      result = run_experiment(config, {.progress = progress.as_function(args->quiet, ranks),
                                       .budget = progress.budget_listener(args->quiet, ranks),
                                       .anneal_journal = checkpoint ? &*checkpoint : nullptr,
                                       .tempering_journal = checkpoint ? &*checkpoint : nullptr,
                                       .pt_journal = checkpoint ? &*checkpoint : nullptr,
                                       .smc_journal = checkpoint ? &*checkpoint : nullptr,
                                       .ranks = process_ranks,
                                       .stop = process_stop_source().token()});
    } catch (const Stopped&) {
      if (!checkpoint) throw;
      return saved_after_stop(*checkpoint, "run");
    } catch (const RankFailed& e) {
      // Another rank was stopped: rank 0 saves what every rank last agreed on.
      if (checkpoint && e.code == 130) saved_after_stop(*checkpoint, "run");
      throw;
    }
    if (checkpoint)
      checkpoint->save_or_warn();     // every phase complete: a resume reports again at once
    if (ranks.rank() != 0) return 0;  // every rank holds the result; rank 0 reports it
    std::cout << report::result_table(result);
    const nlohmann::json json = report::result_to_json(result);
    if (!args->output.empty()) write_text_file(args->output, json.dump(2) + "\n");
    if (!args->works_csv.empty()) write_text_file(args->works_csv, report::works_csv(result));
    if (!args->plots.empty())
      plots::plot_result(plots::ResultFile{args->config.config, json}, args->plots);
    return 0;
  };
}

}  // namespace logz::cli
