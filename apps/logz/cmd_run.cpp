// logz run CONFIG.toml: any annealing experiment described by a TOML file.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>

#include "commands.hpp"
#include "logz/services/experiment.hpp"
#include "logz/services/report.hpp"
#include "plots/plots.hpp"

namespace logz::cli {

namespace {

struct RunArgs {
  std::string config;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;
  std::string output, works_csv, plots;
  bool quiet = false;
};

// Progress on stderr, shown only once a run has taken more than a second.
class Progress {
 public:
  void operator()(const std::string& stage, std::size_t done, std::size_t total) {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    const bool tty = isatty(fileno(stderr));
    if (!tty && now - last_ < std::chrono::seconds(5) && done != total) return;
    last_ = now;
    std::fprintf(stderr, tty ? "\r%s: %zu/%zu chunks" : "%s: %zu/%zu chunks\n", stage.c_str(), done, total);
    if (tty && done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

std::function<int()> add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run an annealing experiment described by a TOML config "
                                            "(see docs/config.md) and report every estimator beside the "
                                            "exact value");
  sub->add_option("config", args->config, "Experiment config (TOML)")->required();
  sub->add_option("--set", args->sets, "Override a config key: section.key=value (repeatable)");
  sub->add_option("--seed", args->seed, "Random seed (overrides [run] seed)");
  sub->add_option("--threads", args->threads, "Worker threads, 0 = all (overrides [run] threads)")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--output,-o", args->output, "Write the full result as JSON to this file");
  sub->add_option("--works-csv", args->works_csv, "Write every path's work as CSV to this file");
  sub->add_option(
      "--plots", args->plots,
      "Write the plots of this run (PNG and SVG, with their gnuplot scripts) into this folder");
  sub->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  return [args] {
    Config config = Config::from_file(args->config);
    for (const auto& s : args->sets) config.set(s);
    if (args->seed) config.set("run.seed=" + std::to_string(*args->seed));
    if (args->threads) config.set("run.threads=" + std::to_string(*args->threads));
    // Fail before a long run, not after it, when plots cannot be drawn.
    if (!args->plots.empty()) {
      plots::find_gnuplot();
      plots::make_plot_dir(args->plots);
    }
    Progress progress;
    ProgressFn fn;
    if (!args->quiet) fn = [&progress](const std::string& s, std::size_t d, std::size_t t) { progress(s, d, t); };
    const ExperimentResult result = run_experiment(config, fn);
    std::cout << result_table(result);
    const nlohmann::json json = result_to_json(result);
    if (!args->output.empty()) write_text_file(args->output, json.dump(2) + "\n");
    if (!args->works_csv.empty()) write_text_file(args->works_csv, works_csv(result));
    if (!args->plots.empty()) plots::plot_result(plots::ResultFile{args->config, json}, args->plots);
    return 0;
  };
}

}  // namespace logz::cli
