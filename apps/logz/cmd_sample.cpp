// logz sample CONFIG.toml: the standalone HMC sampler (the deeplearning.net tutorial's, with its
// step-size adaptation) on a continuous model; writes the draws as .npy (draws x chains x dim)
// and reports acceptance, step size and the effective sample size of every dimension.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "config_args.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/io/npy.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/run.hpp"

namespace logz::cli {

namespace {
struct SampleArgs {
  ConfigArgs config;
  std::string output, json;
};
}  // namespace

std::function<int()> add_sample_command(CLI::App& app) {
  auto args = std::make_shared<SampleArgs>();
  CLI::App* sub = app.add_subcommand(
      "sample", "Draw from a continuous model (" + quoted_names(model_names("sample")) +
                    ") with HMC (step size adapted as in the deeplearning.net "
                    "tutorial; see docs/hmc.md)");
  args->config.add_to(sub, "Sampler config (TOML): [model], [sampler], [data]", "sampler.seed",
                      "sampler.threads");
  sub->add_option("--output,-o", args->output,
                  "Write the draws to this .npy file (num_draws x chains x dim)");
  sub->add_option("--json", args->json, "Write the summary as JSON to this file");
  return [args] {
    Config config = args->config.load();
    const SampleResult run = run_sample(config, RunContext{.stop = process_stop_source().token()});
    std::cout << report::sample_table(run);
    if (!args->output.empty()) {
      const auto& r = run.result;
      io::write_npy(
          args->output,
          io::Array{{r.num_draws, r.num_chains, static_cast<std::size_t>(r.dim)}, r.draws});
    }
    if (!args->json.empty())
      write_text_file(args->json, report::sample_to_json(run).dump(2) + "\n");
    return 0;
  };
}

}  // namespace logz::cli
