// Parallel tempering's index process (Syed et al. 2021, Fig. 1; Pigeons' index process plot):
// the replica of three states of chain 0 (those that began the last round at the bottom, the
// middle and the top of the ladder) after each of the last round's first scans; the data file has
// every state. Under non-reversible swaps the lines sweep from end to end of the ladder; under
// reversible ones they wander.
#include <fmt/format.h>

#include "gnuplot_strings.hpp"
#include "method_styles.hpp"
#include "model_title.hpp"
#include "plots.hpp"

namespace logz::plots {

namespace {

// The states that began at the bottom, the middle and the top of the ladder.
constexpr const char* kStateColors[] = {kForwardColor, "#2ca02c", kReverseColor};

}  // namespace

std::vector<std::string> plot_index_process(const ResultFile& r, const std::string& dir,
                                            const PlotOptions& options) {
  const double scans_value = optional_number(r, "details.pt.index_process_scans");
  const auto levels = numbers(r, "details.pt.index_process");
  if (!(scans_value >= 1 && scans_value <= 1e6))
    fail_result(r, "details.pt.index_process_scans", "a number of scans, 1 .. 10^6");
  const auto scans = static_cast<std::size_t>(scans_value);
  const std::size_t states = levels.size() / scans;
  if (states < 2 || states * scans != levels.size())
    fail_result(r, "details.pt.index_process", "scans x replicas levels, at least two replicas");

  std::string data = fmt::format(
      "# the level of each state of chain 0 after each scan, from {}\n# scan | state 0 .. {}\n",
      one_line(r.source), states - 1);
  for (std::size_t s = 0; s < scans; ++s) {
    data += std::to_string(s + 1);
    for (std::size_t i = 0; i < states; ++i) data += " " + gnuplot_number(levels[s * states + i]);
    data += "\n";
  }
  const std::string name = options.prefix + "index_process";
  std::string s =
      script_head(name, "parallel tempering's index process (Syed et al. 2021)", options);
  s += "set title " + gnuplot_text(model_title(r)) + "\n";
  s += "set xlabel \"scan of the last round (chain 0)\"\n";
  s += fmt::format("set ylabel \"replica (0 = base, {} = target)\"\n", states - 1);
  s += "set grid back lc rgb \"#dddddd\"\nset key outside top center horizontal\n";
  s += fmt::format("set xrange [1:{}]\nset yrange [-0.5:{}]\n", scans, states - 0.5);
  // Three states (those that began at the bottom, the middle and the top), each in its own colour:
  // every state's line at once hides where any one goes.
  std::vector<std::string> items;
  const std::size_t shown[] = {0, states / 2, states - 1};
  for (std::size_t j = 0; j < 3; ++j)
    items.push_back(
        fmt::format("    name.\".dat\" using 1:{} with lines lw 2 lc rgb \"{}\" title \"state from "
                    "replica {}\"",
                    shown[j] + 2, kStateColors[j], shown[j]));
  return draw_plot(dir, name, data, s + script_loop(plot_command(items)), options);
}

}  // namespace logz::plots
