// The gnuplot program: finding it on PATH and running one script with it.
#pragma once

#include <string>

namespace logz::plots {

// The absolute path of gnuplot on PATH; an InputError saying how to install it when it is
// missing. Call before a long run so that it fails early.
std::string find_gnuplot();

// Runs `gnuplot SCRIPT` in `dir`, with its messages captured. A failure is a bug in the
// script we wrote, not an input error: a runtime_error naming `shown_as` (the script's path
// for the user; dir/script when empty) and ending in gnuplot's last message.
void run_gnuplot(const std::string& dir, const std::string& script,
                 const std::string& shown_as = "");

}  // namespace logz::plots
