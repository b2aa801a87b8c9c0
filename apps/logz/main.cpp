// logz: Monte Carlo estimates of log partition functions and model evidence.
// Exit codes: 0 success, 2 bad input (config, files, arguments), 130 stopped by Ctrl-C or
// SIGTERM, 1 internal error. Started by mpirun (a build with LOGZ_MPI), rank 0 alone prints, and
// every rank exits with the code of the lowest failed rank, which alone prints its error line
// (docs/scaling.md).
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <set>

#include "commands.hpp"
#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/parallel/ranks.hpp"
#include "logz/version.hpp"
#include "ranks/start_ranks.hpp"

namespace {

// The first Ctrl-C (or SIGTERM) asks the run to stop at its next step (the commands pass the
// process's stop source's token into their runs); a second one ends the process at once.
extern "C" void on_stop_signal(int signal) {
  logz::process_stop_source().request();
  std::signal(signal, SIG_DFL);
}

// What a command ended with: its exit code and, for a failure, its line for stderr (after
// "logz: "). other_rank: it left a collective because another rank failed.
struct Outcome {
  int code = 0;
  std::string message;
  bool other_rank = false;
};

Outcome run_command(const std::function<int()>& command) {
  try {
    return {command(), ""};
  } catch (const logz::RankFailed& e) {
    return {e.code, "", true};
  } catch (const logz::Stopped&) {
    return {130, "stopped by a signal (Ctrl-C or SIGTERM) before the run finished"};
  } catch (const logz::Error& e) {
    return {2, std::string("error: ") + e.what()};
  } catch (const std::bad_alloc&) {
    // What the memory checks of the config (config/memory_guard.hpp) did not foresee.
    return {2,
            "error: out of memory: expected a run that fits in this machine's memory (fewer paths, "
            "temperatures, sites or draws)"};
  } catch (const std::exception& e) {
    return {1, std::string("internal error: ") + e.what()};
  }
}

// One process prints its own error. Several ranks agree once more (a failed rank's agreement
// meets the others' next collective, parallel/ranks.hpp), and the lowest failed rank prints,
// with stdio: the other ranks' iostreams are silenced.
int finish(const Outcome& outcome, logz::Ranks* ranks) {
  if (!ranks || ranks->size() == 1) {
    if (!outcome.message.empty()) std::cerr << "logz: " << outcome.message << "\n";
    return outcome.code;
  }
  if (outcome.other_rank) return outcome.code;
  const logz::RankStatus status = ranks->agree(outcome.code);
  if (status.rank == ranks->rank() && !outcome.message.empty()) {
    std::cout << std::flush;
    std::fprintf(stderr, "logz: rank %d: %s\n", status.rank, outcome.message.c_str());
  }
  return status.code;
}

// The commands that split their work over MPI ranks; the others need one process.
const std::set<std::string> kDistributed = {"run", "loglik", "train"};

// Swallows what is written to it: the iostreams of ranks other than 0.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

int run_main(int argc, char** argv, logz::Ranks* ranks);

}  // namespace

int main(int argc, char** argv) {
  const std::unique_ptr<logz::Ranks> ranks = logz::cli::start_ranks(argc, argv);
  NullBuffer null_buffer;
  std::streambuf* cout_buffer = std::cout.rdbuf();
  std::streambuf* cerr_buffer = std::cerr.rdbuf();
  if (ranks && ranks->rank() != 0) std::cout.rdbuf(&null_buffer), std::cerr.rdbuf(&null_buffer);
  const int code = run_main(argc, argv, ranks.get());
  std::cout.rdbuf(cout_buffer);
  std::cerr.rdbuf(cerr_buffer);
  return code;
}

namespace {

int run_main(int argc, char** argv, logz::Ranks* ranks) {
  CLI::App app{
      "logz: Monte Carlo estimates of log partition functions, log-likelihoods and model "
      "evidence (log Z), reported beside exact answers where they exist."};
  app.set_version_flag("--version", std::string("logz ") + logz::version());
  app.require_subcommand(1);
  // One line per subcommand (one file each).
  const std::map<std::string, std::function<int()>> commands = {
      {"run", logz::cli::add_run_command(app, ranks)},
      {"exact", logz::cli::add_exact_command(app)},
      {"estimate", logz::cli::add_estimate_command(app)},
      {"plot", logz::cli::add_plot_command(app)},
      {"train", logz::cli::add_train_command(app, ranks)},
      {"sample", logz::cli::add_sample_command(app)},
      {"loglik", logz::cli::add_loglik_command(app, ranks)},
      {"list", logz::cli::add_list_command(app)},
  };
  // A first word that is no command (nor an option) gets its own line: CLI11 would only say
  // that a subcommand is required.
  if (argc > 1 && argv[1][0] != '-' && !commands.contains(argv[1])) {
    std::string names;
    for (const auto& [name, run] : commands) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "logz: error: unknown command '" << argv[1] << "': expected one of " << names
              << " (see logz --help)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other input error.
    std::cerr << "logz: error: " << e.what() << " (see logz --help)\n";
    return 2;
  }
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const std::string name = app.get_subcommands().front()->get_name();
  Outcome outcome;
  if (ranks && ranks->size() > 1 && !kDistributed.contains(name))
    outcome = {2, "error: logz " + name +
                      ": expected one process: only logz run, logz loglik and logz train rbm split "
                      "their work over MPI ranks (start it without mpirun)"};
  else
    outcome = run_command(commands.at(name));
  return finish(outcome, ranks);
}

}  // namespace
