// The files of one plot NAME in a folder: NAME.dat (the numbers drawn), NAME.gp (the gnuplot
// script, kept so that users can restyle it: `cd DIR && gnuplot NAME.gp`) and one image
// NAME.FORMAT per format, drawn by running the script.
#pragma once

#include <string>
#include <vector>

namespace logz::plots {

struct PlotOptions {
  std::vector<std::string> formats{"png", "svg"};  // any of png, svg, pdf
  std::string prefix;                              // put before every file name
};

// "png,svg" -> {"png", "svg"}; an InvalidArgument for an unknown or empty list.
std::vector<std::string> parse_plot_formats(const std::string& list);

// Creates `dir` (and parents) if needed; an InputError naming it if that fails.
void make_plot_dir(const std::string& dir);

// The opening of every script: what it is, how to redraw it, the formats and `name`.
std::string script_head(const std::string& name, const std::string& what,
                        const PlotOptions& options);

// "plot" with `items` (each "    data using ... title ..."), one per line.
std::string plot_command(const std::vector<std::string>& items);

// `plot` (a plot command) wrapped in a loop over the formats, one terminal each.
std::string script_loop(const std::string& plot);

// Writes NAME.dat (unless `data` is empty) and NAME.gp into `dir`, runs the script and returns
// the images it wrote (dir/NAME.FORMAT).
std::vector<std::string> draw_plot(const std::string& dir, const std::string& name,
                                   const std::string& data, const std::string& script,
                                   const PlotOptions& options);

}  // namespace logz::plots
