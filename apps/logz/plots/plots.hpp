// The plots of the command-line tool, drawn by gnuplot (docs/plots.md): of a result JSON (as
// `logz run --output` writes it) the forward and reverse work histograms with the exact value
// and the estimates marked (Habeck 2017, Fig. 1A/3A), the hysteresis of the mean energy
// (Fig. 3B) and the kernel's acceptance rate per temperature; the estimates against a budget
// read from several results (Fig. 3C); and the log-likelihoods tracked while an RBM trains
// (Carlson et al. 2016, Fig. 5). Works are in evidence units (relative to the base): forward
// works W_f and reverse works shown as -W_r share one axis, on which the exact answer sits at
// W = -log(Z / Z_0).
//
// Each returns the image files written (dir/prefix+NAME.format; see plot_files.hpp). The result
// must have the data the plot needs, else an InputError naming the file and key.
#pragma once

#include <string>
#include <vector>

#include "gnuplot_process.hpp"
#include "plot_files.hpp"
#include "result_file.hpp"

namespace logz::plots {

std::vector<std::string> plot_work_histograms(const ResultFile& result, const std::string& dir,
                                              const PlotOptions& options = {});
std::vector<std::string> plot_hysteresis(const ResultFile& result, const std::string& dir,
                                         const PlotOptions& options = {});
std::vector<std::string> plot_acceptance(const ResultFile& result, const std::string& dir,
                                         const PlotOptions& options = {});

// Parallel tempering's local barrier lambda(t) (details.pt.barrier_profile) against t.
std::vector<std::string> plot_barrier(const ResultFile& result, const std::string& dir,
                                      const PlotOptions& options = {});

// Parallel tempering's index process (details.pt.index_process): the level of each state of
// chain 0 after each scan of the last round's first scans.
std::vector<std::string> plot_index_process(const ResultFile& result, const std::string& dir,
                                            const PlotOptions& options = {});

// Every plot above for which the result has data (an InputError if none).
std::vector<std::string> plot_result(const ResultFile& result, const std::string& dir,
                                     const PlotOptions& options = {});

// Evidence log(Z / Z_0) of every estimator, with +/- 1 std_error bars, against `budget_key`
// ("section.key" looked up in each result's "config", else at the top level, e.g. runtime_s),
// with the exact value as a line. All results must be of the same model.
std::vector<std::string> plot_budget(const std::vector<ResultFile>& results,
                                     const std::string& budget_key, const std::string& dir,
                                     const PlotOptions& options = {});

// Checks before training what the tracking plot needs: gnuplot, the folder `dir`, and a CSV
// name gnuplot can read (an InputError naming `where`, e.g. "train.toml: tracking.csv").
void prepare_tracking_plot(const std::string& csv, const std::string& dir,
                           const std::string& where);

// Training and validation log-likelihood per epoch from the CSV of `logz train rbm` [tracking]
// (docs/training.md), with the AIS checkpoints (and the exact values, when the CSV has them)
// as points. The CSV is the plot's data file.
std::vector<std::string> plot_tracking_csv(const std::string& csv, const std::string& dir,
                                           const PlotOptions& options = {});

}  // namespace logz::plots
