// The title of a result's plots, from its "model": "ising 4x4 (beta=0.5, coupling=1)".
#pragma once

#include <string>

#include "result_file.hpp"

namespace logz::plots {

// The model's type and its parameters (not its derived exact quantities) on one short line of
// plain text, as read from the file: pass it through gnuplot_text. "" when there is no model.
std::string model_title(const ResultFile& r);

}  // namespace logz::plots
