// The subcommands of the `logz` tool, one file each.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "logz/io/output_file.hpp"
#include "logz/parallel/ranks.hpp"

namespace logz::cli {

// Each adds its subcommand to the app and returns what runs it (exit code). Those that split
// their work over MPI ranks are given them (nullptr: one process).
std::function<int()> add_run_command(CLI::App& app, Ranks* ranks);
std::function<int()> add_exact_command(CLI::App& app);
std::function<int()> add_estimate_command(CLI::App& app);
std::function<int()> add_plot_command(CLI::App& app);                  // cmd_plot.cpp
std::function<int()> add_train_command(CLI::App& app, Ranks* ranks);   // cmd_train.cpp
std::function<int()> add_sample_command(CLI::App& app);                // cmd_sample.cpp
std::function<int()> add_loglik_command(CLI::App& app, Ranks* ranks);  // cmd_loglik.cpp
std::function<int()> add_list_command(CLI::App& app);                  // cmd_list.cpp

using io::write_text_file;  // logz/io/output_file.hpp: the one writer

}  // namespace logz::cli
