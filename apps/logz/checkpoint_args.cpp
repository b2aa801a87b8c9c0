#include "checkpoint_args.hpp"

#include <fmt/format.h>

#include <iostream>

#include "logz/core/error.hpp"
#include "logz/parallel/ranks.hpp"

namespace logz::cli {

void CheckpointArgs::add_to(CLI::App* sub, const std::string& what) {
  sub_ = sub;
  sub->add_option("--checkpoint", checkpoint,
                  "Save to this file every --checkpoint-every seconds and when stopped by Ctrl-C "
                  "or SIGTERM, for "
                  "--resume (" +
                      what + "; docs/checkpoint.md)");
  sub->add_option("--checkpoint-every", checkpoint_every,
                  "Seconds between checkpoints (0: at every chance: after each chunk of paths, "
                  "initial iteration, "
                  "piece of a final tempering run or training epoch)")
      ->check(CLI::Range(0.0, 1e9))
      ->default_str("60");
  sub->add_option("--resume", resume,
                  "Continue the run saved in this checkpoint, and keep saving to it; no config, "
                  "--set or --seed "
                  "(--threads may change)");
}

std::optional<RunCheckpoint> CheckpointArgs::open(const ConfigArgs& config,
                                                  const std::string& command,
                                                  const std::string& seed_key) const {
  if (!resume.empty()) {
    if (!config.config.empty() || !config.sets.empty() || config.seed)
      throw InputError(fmt::format(
          "--resume {}: expected no config file, --set or --seed: the checkpoint holds its "
          "run's config{}",
          resume, command == "run" ? " (only --threads may change)" : ""));
    if (!checkpoint.empty())
      throw InputError(
          fmt::format("--resume {}: expected no --checkpoint: a resumed run saves to the file it "
                      "resumes",
                      resume));
    RunCheckpoint c = RunCheckpoint::read(resume, checkpoint_every, command);
    c.files_read()->check_unchanged(resume);  // a run must not mix two models or data sets
    if (config.threads) c.set_threads(config.threads);
    return c;
  }
  if (config.config.empty())
    throw InputError(
        fmt::format("logz {}: expected a config file (or --resume CHECKPOINT)", command));
  if (checkpoint.empty()) {
    if (sub_ && sub_->count("--checkpoint-every") > 0)
      throw InputError("--checkpoint-every: expected --checkpoint FILE or --resume FILE beside it");
    return std::nullopt;
  }
  // [run] seed and threads have their own fields (threads may change on resume); another
  // command's seed travels as the --set it stands for.
  std::vector<std::string> sets = config.sets;
  std::optional<std::uint64_t> seed = config.seed;
  if (seed && seed_key != "run.seed")
    sets.push_back(fmt::format("{}={}", seed_key, *seed)), seed.reset();
  CheckpointedConfig c = CheckpointedConfig::from_file(config.config, sets, seed, config.threads);
  c.command = command;
  return RunCheckpoint(checkpoint, std::move(c), checkpoint_every);
}

void save_first(RunCheckpoint& checkpoint, Ranks& ranks) {
  checkpoint.set_writes(ranks.rank() == 0);
  if (ranks.rank() == 0) checkpoint.lock();  // before the first save: a second run is refused
  if (ranks.size() > 1) ranks.all_gather("");
  checkpoint.save();
}

int saved_after_stop(RunCheckpoint& checkpoint, const std::string& command) {
  if (checkpoint.save_or_warn())
    std::cerr << fmt::format(
        "logz: stopped by a signal (Ctrl-C or SIGTERM); {}, saved in {}: continue with logz {} "
        "--resume {}\n",
        checkpoint.progress(), checkpoint.path(), command, checkpoint.path());
  else
    std::cerr << fmt::format(
        "logz: stopped by a signal (Ctrl-C or SIGTERM); the last checkpoint saved in {} stands: "
        "continue from it with logz {} --resume {}\n",
        checkpoint.path(), command, checkpoint.path());
  return 130;
}

}  // namespace logz::cli
