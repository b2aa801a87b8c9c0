// logz loglik CONFIG.toml: the average log-likelihood of a data set under a continuous model.
// Analysis models (poe): L = -mean E(x) - log Z, one annealing run for Z. Generative models
// (linear_generative): one AIS run per data point, in parallel, seeded per point; the exact
// value beside it where the prior is Gaussian. See docs/hais.md.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>

#include "commands.hpp"
#include "logz/services/config.hpp"
#include "logz/services/continuous_runners.hpp"

namespace logz::cli {

namespace {
struct LoglikArgs {
  std::string config, output;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;
  bool quiet = false;
};
}  // namespace

std::function<int()> add_loglik_command(CLI::App& app) {
  auto args = std::make_shared<LoglikArgs>();
  CLI::App* sub = app.add_subcommand("loglik", "Average log-likelihood of data under a continuous model "
                                               "(poe: -mean E - log Z; linear_generative: one HAIS run per point)");
  sub->add_option("config", args->config, "Config (TOML): [model], [data], [base], [kernel], [schedule], [run]")
      ->required();
  sub->add_option("--set", args->sets, "Override a config key: section.key=value (repeatable)");
  sub->add_option("--seed", args->seed, "Random seed (overrides [run] seed)");
  sub->add_option("--threads", args->threads, "Worker threads, 0 = all (overrides [run] threads)")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--output,-o", args->output, "Write the result as JSON to this file");
  sub->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  return [args] {
    Config config = Config::from_file(args->config);
    for (const auto& s : args->sets) config.set(s);
    if (args->seed) config.set("run.seed=" + std::to_string(*args->seed));
    if (args->threads) config.set("run.threads=" + std::to_string(*args->threads));
    std::mutex mutex;
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    ProgressFn progress;
    if (!args->quiet)
      progress = [&](const std::string& stage, std::size_t done, std::size_t total) {
        std::lock_guard lock(mutex);
        const auto now = std::chrono::steady_clock::now();
        if (now - start < std::chrono::seconds(1) || (now - last < std::chrono::seconds(2) && done != total)) return;
        last = now;
        std::fprintf(stderr, isatty(fileno(stderr)) ? "\r%s: %zu/%zu" : "%s: %zu/%zu\n", stage.c_str(), done, total);
        if (isatty(fileno(stderr)) && done == total) std::fprintf(stderr, "\n");
        std::fflush(stderr);
      };
    const LoglikResult r = run_loglik(config, progress);
    std::cout << loglik_table(r);
    if (!args->output.empty()) write_text_file(args->output, loglik_to_json(r).dump(2) + "\n");
    return 0;
  };
}

}  // namespace logz::cli
