// The log-likelihoods tracked while an RBM trains (Carlson et al. 2016, Fig. 5), from the
// tracking CSV of `logz train rbm`.
#include <filesystem>

#include "gnuplot_strings.hpp"
#include "logz/core/error.hpp"
#include "plots.hpp"

namespace logz::plots {

namespace fs = std::filesystem;

void prepare_tracking_plot(const std::string& csv, const std::string& dir,
                           const std::string& where) {
  find_gnuplot();
  make_plot_dir(dir);
  gnuplot_file_name(fs::absolute(csv).string(), where);
}

std::vector<std::string> plot_tracking_csv(const std::string& csv, const std::string& dir,
                                           const PlotOptions& options) {
  if (!fs::exists(csv)) fail_input(one_line(csv), "", "the tracking CSV of logz train rbm");
  const std::string name = options.prefix + "tracking";
  // Columns: 1 epoch, 4 train LL, 5 validation LL, 6 AIS log Z, 7 its SE, 8 exact log Z,
  // 9/10 train/validation LL with the exact log Z, 3 the tracked log Z.
  const std::string plot =
      "  set datafile separator \",\"\n"
      "  set key top left\n"
      "  set xlabel \"epoch\"\n"
      "  set ylabel \"mean log-likelihood (nats per example)\"\n"
      "  set title \"log-likelihood tracked by RTS during training\"\n"
      "  plot data using 1:4 skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"#1f77b4\" title "
      "\"train (RTS)\", \\\n"
      "       data using 1:5 skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"#d62728\" title "
      "\"validation (RTS)\", \\\n"
      "       data using 1:($4 + $3 - $6) skip 1 with points pt 6 ps 1.6 lc rgb \"#1f77b4\" title "
      "\"train (AIS log Z)\", \\\n"
      "       data using 1:($5 + $3 - $6) skip 1 with points pt 6 ps 1.6 lc rgb \"#d62728\" title "
      "\"validation (AIS log Z)\", \\\n"
      "       data using 1:9 skip 1 with points pt 2 ps 1.2 lc rgb \"black\" title \"train (exact "
      "log Z)\", \\\n"
      "       data using 1:10 skip 1 with points pt 2 ps 1.2 lc rgb \"gray40\" title \"validation "
      "(exact log Z)\"\n";
  const std::string data = "data = " + gnuplot_file_name(fs::absolute(csv).string(), csv) + "\n";
  return draw_plot(
      dir, name, "",
      script_head(name, "RBM training log-likelihood", options) + data + script_loop(plot),
      options);
}

}  // namespace logz::plots
