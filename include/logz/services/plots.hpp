// Plots of a result JSON (as `logz run --output` writes it), drawn by gnuplot:
// forward and reverse work histograms with the exact value and the estimates
// marked (Habeck 2017, Fig. 1A/3A), hysteresis of the mean energy (Fig. 3B),
// the kernel's acceptance rate per temperature, and estimates against a budget
// read from several results' configs (Fig. 3C). Works are in evidence units
// (relative to the base): forward works W_f and reverse works shown as -W_r
// share one axis, on which the exact answer sits at W = -log(Z / Z_0).
//
// Each plot writes NAME.dat (the numbers), NAME.gp (the gnuplot script, kept so
// users can restyle it: `cd DIR && gnuplot NAME.gp`) and NAME.png / NAME.svg.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace logz {

struct PlotOptions {
  std::vector<std::string> formats{"png", "svg"};  // any of png, svg, pdf
  std::string prefix;                              // put before every file name
};

// A parsed result file; `source` (the file name) is what errors name.
struct ResultFile {
  std::string source;
  nlohmann::json json;
};

// Reads and parses a result JSON; an InputError naming the file when it is
// missing, is not JSON, or is not a logz result (no "logz_version"/"estimates").
ResultFile read_result_file(const std::string& path);

// "png,svg" -> {"png", "svg"}; an InvalidArgument for an unknown or empty list.
std::vector<std::string> parse_plot_formats(const std::string& list);

// The absolute path of gnuplot on PATH; an InputError saying how to install it
// when it is missing. Call before a long run so it fails early.
std::string find_gnuplot();

// Creates `dir` (and parents) if needed; an InputError naming it if that fails.
void make_plot_dir(const std::string& dir);

// Each returns the image files written (dir/prefix+name.format). The result
// must have the data the plot needs, else an InputError naming the file and key.
std::vector<std::string> plot_work_histograms(const ResultFile& result, const std::string& dir,
                                              const PlotOptions& options = {});
std::vector<std::string> plot_hysteresis(const ResultFile& result, const std::string& dir,
                                         const PlotOptions& options = {});
std::vector<std::string> plot_acceptance(const ResultFile& result, const std::string& dir,
                                         const PlotOptions& options = {});

// Every plot above for which the result has data (an InputError if none).
std::vector<std::string> plot_result(const ResultFile& result, const std::string& dir,
                                     const PlotOptions& options = {});

// Evidence log(Z / Z_0) of every estimator, with +/- 1 std_error bars, against
// `budget_key` ("section.key" looked up in each result's "config", else at the
// top level, e.g. runtime_s), with the exact value as a line. All results must
// be of the same model.
std::vector<std::string> plot_budget(const std::vector<ResultFile>& results,
                                     const std::string& budget_key, const std::string& dir,
                                     const PlotOptions& options = {});

// Training and validation log-likelihood per epoch from the CSV of `logz train rbm`
// [tracking] (docs/training.md), with the AIS checkpoints (and the exact values, when the CSV
// has them) as points: Carlson et al. (2016), Fig. 5. The CSV is the plot's data file.
std::vector<std::string> plot_tracking_csv(const std::string& csv, const std::string& dir,
                                           const PlotOptions& options = {});

}  // namespace logz
