// logz loglik: placeholder until its issue lands (see the open issues); it says so
// and exits with an error rather than pretending to work.
#include "commands.hpp"
#include "logz/core/error.hpp"

namespace logz::cli {

std::function<int()> add_loglik_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("loglik", "(not available yet in this version)");
  sub->allow_extras();
  return [] () -> int { throw InputError("logz loglik: not available yet in this version of logz"); };
}

}  // namespace logz::cli
