// --checkpoint, --checkpoint-every and --resume of the subcommands that checkpoint (logz run,
// logz train rbm; docs/checkpoint.md).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "config_args.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/persistence/checkpoint.hpp"

namespace logz::cli {

struct CheckpointArgs {
  std::string checkpoint, resume;
  double checkpoint_every = 60.0;

  // `what`: what is saved, for the help ("annealing and tempering runs").
  void add_to(CLI::App* sub, const std::string& what);
  // The checkpoint of this command, if one was asked for: a new one holding the config (the
  // file, --set and --seed, which `seed_key` names), or the one --resume names, which must be
  // of `command`; its config is the one to run.
  std::optional<RunCheckpoint> open(const ConfigArgs& config, const std::string& command,
                                    const std::string& seed_key) const;

 private:
  CLI::App* sub_ = nullptr;
};

// The first save of a checkpointed run, so that it is resumable from the start. Split over
// ranks, every rank journals and rank 0 alone writes, only after every rank has read the
// checkpoint it resumes.
void save_first(RunCheckpoint& checkpoint, Ranks& ranks);

// After a stop (Ctrl-C, SIGTERM) of a checkpointed `logz COMMAND`: saves the checkpoint, says on
// one line how far the run got and how to resume it, and returns the exit code 130.
int saved_after_stop(RunCheckpoint& checkpoint, const std::string& command);

}  // namespace logz::cli
