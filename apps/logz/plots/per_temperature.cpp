// Plots of per-temperature series against the schedule: the hysteresis of the mean energy and the
// kernel's acceptance rate of the forward and reverse runs, and parallel tempering's local
// barrier.
#include <fmt/format.h>

#include "gnuplot_strings.hpp"
#include "method_styles.hpp"
#include "model_title.hpp"
#include "plots.hpp"

namespace logz::plots {

namespace {

struct Series {
  std::string title, color;
  int dash;
  std::vector<double> y;
  bool exact = false;  // a curve, drawn without points
};

struct PerTemperaturePlot {
  std::string name, what, ylabel;  // ylabel: enhanced text of ours (β_k)
  std::string yrange;              // "[*:*]": autoscaled with a margin
};

std::vector<std::string> plot_per_temperature(const ResultFile& r, const std::string& dir,
                                              const PlotOptions& options,
                                              const PerTemperaturePlot& p,
                                              const std::vector<double>& betas,
                                              const std::vector<Series>& all) {
  std::string data = fmt::format("# {} from {}\n# beta", p.what, one_line(r.source));
  std::vector<const Series*> shown;
  for (const auto& sr : all)
    if (any_finite(sr.y)) shown.push_back(&sr);
  for (const auto* sr : shown) data += " | " + sr->title;
  data += "\n";
  for (std::size_t k = 0; k < betas.size(); ++k) {
    data += gnuplot_number(betas[k]);
    for (const auto* sr : shown) data += " " + gnuplot_number(sr->y[k]);
    data += "\n";
  }

  std::string s = script_head(p.name, p.what, options);
  s += "set title " + gnuplot_text(model_title(r)) + "\n";
  s += "set xlabel \"schedule β_k  (0 = base, 1 = target)\"\n";
  s += "set ylabel \"" + p.ylabel + "\"\n";
  s += "set grid back lc rgb \"#dddddd\"\n"
       "set key inside top right Left reverse box opaque samplen 3 spacing 1.3\n"
       "set datafile missing \"NaN\"\n";
  s += "set xrange [" + gnuplot_number(betas.front()) + ":" + gnuplot_number(betas.back()) + "]\n";
  s += "set yrange " + p.yrange + "\n";
  if (p.yrange == "[*:*]") s += "set autoscale yfix\nset offsets 0, 0, graph 0.05, graph 0.05\n";
  // Points as well as lines only when there are few temperatures to see.
  const std::string with = betas.size() <= 60 ? "linespoints pt 7 ps 0.7" : "lines";
  std::vector<std::string> items;
  for (std::size_t i = 0; i < shown.size(); ++i)
    items.push_back(
        fmt::format("    name.\".dat\" using 1:{} with {} lw 2.5 lc rgb \"{}\" dt {} title {}",
                    i + 2, shown[i]->exact ? std::string("lines") : with, shown[i]->color,
                    shown[i]->dash, gnuplot_text(shown[i]->title)));
  return draw_plot(dir, p.name, data, s + script_loop(plot_command(items)), options);
}

std::vector<double> betas_of(const ResultFile& r) {
  auto betas = numbers(r, "betas");
  if (betas.size() < 2) fail_result(r, "betas", "at least two temperatures");
  return betas;
}

}  // namespace

std::vector<std::string> plot_hysteresis(const ResultFile& r, const std::string& dir,
                                         const PlotOptions& options) {
  const auto betas = betas_of(r);
  std::vector<Series> all = {
      {"forward (base → target)", kForwardColor, 1, series(r, "forward.mean_energy", betas.size())},
      {"reverse (target → base)", kReverseColor, 1, series(r, "reverse.mean_energy", betas.size())},
      {"equilibrium (exact)", "#000000", 2, series(r, "equilibrium_energy", betas.size()), true}};
  if (!any_finite(all[0].y) && !any_finite(all[1].y))
    fail_result(r, "forward.mean_energy", "finite mean energies (forward or reverse)");
  return plot_per_temperature(
      r, dir, options,
      {options.prefix + "hysteresis", "hysteresis of the mean energy (Habeck 2017, Fig. 3B)",
       "mean energy at β_k", "[*:*]"},
      betas, all);
}

std::vector<std::string> plot_acceptance(const ResultFile& r, const std::string& dir,
                                         const PlotOptions& options) {
  const auto betas = betas_of(r);
  std::vector<Series> all = {
      {"forward", kForwardColor, 1, acceptance_series(r, "forward.acceptance", betas.size())},
      {"reverse", kReverseColor, 2, acceptance_series(r, "reverse.acceptance", betas.size())}};
  if (!any_finite(all[0].y) && !any_finite(all[1].y))
    fail_result(r, "forward.acceptance", "finite acceptance rates (forward or reverse)");
  return plot_per_temperature(
      r, dir, options,
      {options.prefix + "acceptance", "acceptance rate of the kernel per temperature",
       "acceptance rate", "[0:1.05]"},
      betas, all);
}

std::vector<std::string> plot_barrier(const ResultFile& r, const std::string& dir,
                                      const PlotOptions& options) {
  const auto t = numbers(r, "details.pt.barrier_profile_t");
  if (t.size() < 2)
    fail_result(r, "details.pt.barrier_profile_t", "at least two pairs of replicas");
  std::vector<Series> all = {{"local barrier λ(t) = rejection / Δt", kForwardColor, 1,
                              series(r, "details.pt.barrier_profile", t.size())}};
  if (!any_finite(all[0].y)) fail_result(r, "details.pt.barrier_profile", "finite numbers");
  return plot_per_temperature(
      r, dir, options,
      {options.prefix + "barrier",
       "parallel tempering's local communication barrier (Syed et al. 2021)",
       "λ(t) at the midpoints of adjacent replicas", "[*:*]"},
      t, all);
}

}  // namespace logz::plots
