// logz sample CONFIG.toml: the standalone HMC sampler (the deeplearning.net tutorial's, with
// its step-size adaptation) on a continuous model; writes the draws as .npy (draws x chains x
// dim) and reports acceptance, step size and the effective sample size of every dimension.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "logz/io/npy.hpp"
#include "logz/services/config.hpp"
#include "logz/services/continuous_runners.hpp"

namespace logz::cli {

namespace {
struct SampleArgs {
  std::string config, output, json;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;
};
}  // namespace

std::function<int()> add_sample_command(CLI::App& app) {
  auto args = std::make_shared<SampleArgs>();
  CLI::App* sub = app.add_subcommand("sample", "Draw from a continuous model with HMC (step size adapted as in the "
                                               "deeplearning.net tutorial; see docs/hmc.md)");
  sub->add_option("config", args->config, "Sampler config (TOML): [model], [sampler], [data]")->required();
  sub->add_option("--output,-o", args->output, "Write the draws to this .npy file (num_draws x chains x dim)");
  sub->add_option("--json", args->json, "Write the summary as JSON to this file");
  sub->add_option("--set", args->sets, "Override a config key: section.key=value (repeatable)");
  sub->add_option("--seed", args->seed, "Random seed (overrides [sampler] seed)");
  sub->add_option("--threads", args->threads, "Worker threads, 0 = all (overrides [sampler] threads)")
      ->check(CLI::Range(0, 4096));
  return [args] {
    Config config = Config::from_file(args->config);
    for (const auto& s : args->sets) config.set(s);
    if (args->seed) config.set("sampler.seed=" + std::to_string(*args->seed));
    if (args->threads) config.set("sampler.threads=" + std::to_string(*args->threads));
    const SampleRun run = run_sample(config);
    std::cout << sample_table(run);
    if (!args->output.empty()) {
      const auto& r = run.result;
      io::Array a;
      a.shape = {r.num_draws, r.num_chains, static_cast<std::size_t>(r.dim)};
      a.doubles() = r.draws;
      io::write_npy(args->output, a);
    }
    if (!args->json.empty()) write_text_file(args->json, sample_to_json(run).dump(2) + "\n");
    return 0;
  };
}

}  // namespace logz::cli
