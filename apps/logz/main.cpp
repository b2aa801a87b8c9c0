// logz: Monte Carlo estimates of log partition functions and model evidence.
// Exit codes: 0 success, 2 bad input (config, files, arguments), 130 stopped by Ctrl-C or
// SIGTERM, 1 internal error.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <new>

#include "commands.hpp"
#include "logz/core/error.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/version.hpp"

namespace {

// The first Ctrl-C (or SIGTERM) asks the run to stop at its next step; a second one ends the
// process at once.
extern "C" void on_stop_signal(int signal) {
  logz::request_stop();
  std::signal(signal, SIG_DFL);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"logz: Monte Carlo estimates of log partition functions, log-likelihoods and model "
               "evidence (log Z), reported beside exact answers where they exist."};
  app.set_version_flag("--version", std::string("logz ") + logz::version());
  app.require_subcommand(1);
  // One line per subcommand (one file each).
  const std::map<std::string, std::function<int()>> commands = {
      {"run", logz::cli::add_run_command(app)},
      {"exact", logz::cli::add_exact_command(app)},
      {"estimate", logz::cli::add_estimate_command(app)},
      {"plot", logz::cli::add_plot_command(app)},
      {"train", logz::cli::add_train_command(app)},
      {"sample", logz::cli::add_sample_command(app)},
      {"loglik", logz::cli::add_loglik_command(app)},
      {"list", logz::cli::add_list_command(app)},
  };
  // A first word that is no command (nor an option) gets its own line: CLI11 would only say
  // that a subcommand is required.
  if (argc > 1 && argv[1][0] != '-' && !commands.contains(argv[1])) {
    std::string names;
    for (const auto& [name, run] : commands) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "logz: error: unknown command '" << argv[1] << "': expected one of " << names << " (see logz --help)\n";
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
  try {
    return commands.at(app.get_subcommands().front()->get_name())();
  } catch (const logz::Stopped&) {
    std::cerr << "logz: stopped by a signal (Ctrl-C or SIGTERM) before the run finished\n";
    return 130;
  } catch (const logz::Error& e) {
    std::cerr << "logz: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // What the memory checks of the config (services/memory_guard.hpp) did not foresee.
    std::cerr << "logz: error: out of memory: expected a run that fits in this machine's memory (fewer paths, "
                 "temperatures, sites or draws)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "logz: internal error: " << e.what() << "\n";
    return 1;
  }
}
