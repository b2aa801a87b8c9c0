// logz loglik CONFIG.toml: the average log-likelihood of a data set under a continuous model.
// Analysis models (poe, mcrbm, gaussian_mixture): L = -mean E(x) - log Z, one annealing run for
// Z. Generative models (linear_generative, bilinear_generative): one AIS run per data point, in
// parallel, seeded per point; the exact value beside it where there is one. See docs/hais.md.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "config_args.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/run.hpp"
#include "progress.hpp"

namespace logz::cli {

namespace {
struct LoglikArgs {
  ConfigArgs config;
  std::string output;
  bool quiet = false;
};
}  // namespace

std::function<int()> add_loglik_command(CLI::App& app, Ranks* ranks) {
  auto args = std::make_shared<LoglikArgs>();
  CLI::App* sub =
      app.add_subcommand("loglik", "Average log-likelihood of data under a continuous model (" +
                                       quoted_names(model_names("loglik")) + "; see docs/hais.md)");
  args->config.add_to(sub, "Config (TOML): [model], [data], [base], [kernel], [schedule], [run]",
                      "run.seed", "run.threads");
  sub->add_option("--output,-o", args->output, "Write the result as JSON to this file");
  sub->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  return [args, ranks] {
    Config config = args->config.load();
    Progress progress("");
    const Ranks& process = ranks_or_single(ranks);
    const LoglikResult r =
        run_loglik(config, {.progress = progress.as_function(args->quiet, process),
                            .ranks = ranks,
                            .stop = process_stop_source().token()});
    if (process.rank() != 0) return 0;  // every rank holds the result; rank 0 reports it
    std::cout << report::loglik_table(r);
    if (!args->output.empty())
      write_text_file(args->output, report::loglik_to_json(r).dump(2) + "\n");
    return 0;
  };
}

}  // namespace logz::cli
