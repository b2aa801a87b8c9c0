// logz plot RESULT.json [RESULT2.json ...]: plots of results written by
// `logz run --output`, drawn by gnuplot (see docs/plots.md). One result gives
// the work histograms, the hysteresis and the acceptance plots; several with
// --budget-key give the estimates-against-budget plot.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "plots/gnuplot_strings.hpp"
#include "plots/plots.hpp"

namespace logz::cli {

namespace {

struct PlotArgs {
  std::vector<std::string> results;
  std::string output_dir = ".";
  std::string formats = "png,svg";
  std::string budget_key;
};

}  // namespace

std::function<int()> add_plot_command(CLI::App& app) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Plot results of logz run --output with gnuplot: work histograms, hysteresis and acceptance "
      "of one result, or estimates against a budget over several (see docs/plots.md)");
  sub->add_option("results", args->results, "Result JSON files (written by logz run --output)")
      ->required();
  sub->add_option("--output-dir,-d", args->output_dir,
                  "Folder for the plots, created if needed (default: .)");
  sub->add_option("--formats", args->formats,
                  "Image formats, comma-separated: png, svg, pdf (default: png,svg)");
  sub->add_option("--budget-key", args->budget_key,
                  "Plot the estimates of all results against this config key (section.key, e.g. "
                  "schedule.num_steps; or runtime_s)");
  return [args] {
    using namespace plots;
    PlotOptions options;
    options.formats = parse_plot_formats(args->formats);
    std::vector<ResultFile> results;
    for (const auto& path : args->results) results.push_back(read_result_file(path));
    find_gnuplot();
    make_plot_dir(args->output_dir);
    std::vector<std::string> written;
    if (!args->budget_key.empty()) {
      written = plot_budget(results, args->budget_key, args->output_dir, options);
    } else {
      for (const auto& r : results) {
        // Several results side by side: each one's files are named after it.
        if (results.size() > 1)
          options.prefix = file_name_part(std::filesystem::path(r.source).stem().string()) + "_";
        const auto files = plot_result(r, args->output_dir, options);
        written.insert(written.end(), files.begin(), files.end());
      }
    }
    for (const auto& f : written) std::cout << f << "\n";
    return 0;
  };
}

}  // namespace logz::cli
