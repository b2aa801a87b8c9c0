// The forward and reverse work histograms with the exact value and the estimates marked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gnuplot_strings.hpp"
#include "histogram.hpp"
#include "method_styles.hpp"
#include "model_title.hpp"
#include "plots.hpp"

namespace logz::plots {

namespace {

// Number of paths per direction and K, for the title.
std::string run_summary(std::size_t num_forward, std::size_t num_reverse, std::size_t num_betas) {
  std::string s;
  if (num_forward) s += fmt::format("{} forward", num_forward);
  if (num_reverse) s += fmt::format("{}{} reverse", s.empty() ? "" : ", ", num_reverse);
  if (!s.empty()) s += " paths";
  if (num_betas > 1) s += fmt::format("{}K = {} steps", s.empty() ? "" : "; ", num_betas - 1);
  return s;
}

std::string count_label(std::size_t n) { return fmt::format("{} path{}", n, n == 1 ? "" : "s"); }

// gnuplot's axes, tics and ranges are doubles too: an axis out to 1e308 overflows ("x range is
// invalid"), one within +-1e300 (and a pad of 5%) is drawn.
constexpr double kMaxDrawn = 1e300;

// The works at `key`, each finite one within +-kMaxDrawn (else a one-line InputError).
std::vector<double> drawable_works(const ResultFile& r, const std::string& key) {
  std::vector<double> w = numbers(r, key);
  for (const double x : w)
    if (std::isfinite(x) && std::abs(x) > kMaxDrawn)
      fail_result(
          r, key,
          fmt::format("works within +-{:g}, which a plot's axis can span, got {:g}", kMaxDrawn, x));
  return w;
}

// A value in a legend entry: 3 decimals, or 4 significant digits beyond a million (1e308 in
// fixed notation has 309 digits).
std::string legend_number(double x) {
  return std::abs(x) < 1e6 ? fmt::format("{:.3f}", x) : fmt::format("{:.4g}", x);
}

// One data block of NAME.dat (blocks are separated by two blank lines: `index`).
std::string histogram_block(const std::string& label, const Histogram& h) {
  std::string s = fmt::format("# {} ({} values): bin_center density bin_width\n", label, h.n);
  for (std::size_t i = 0; i < h.density.size(); ++i)
    s += fmt::format("{} {} {}\n", gnuplot_number(h.lo + (static_cast<double>(i) + 0.5) * h.width),
                     gnuplot_number(h.density[i]), gnuplot_number(h.width));
  return s + "\n\n";
}

// A vertical line at x, drawn as an arrow, with its legend entry.
struct Mark {
  double x;
  std::string title;  // a gnuplot string
  std::string color;
  int dash;
  double width;
};

}  // namespace

std::vector<std::string> plot_work_histograms(const ResultFile& r, const std::string& dir,
                                              const PlotOptions& options) {
  const bool has_forward = find_key(r.json, "forward.works") != nullptr;
  const bool has_reverse = find_key(r.json, "reverse.works") != nullptr;
  if (!has_forward && !has_reverse)
    fail_result(r, "forward.works", "work values (forward.works or reverse.works)");
  Histogram fwd, rev;
  if (has_forward) fwd = make_histogram(drawable_works(r, "forward.works"));
  if (has_reverse) {
    auto w = drawable_works(r, "reverse.works");
    for (auto& x : w) x = -x;  // the reverse works mirrored onto the forward axis: -W_r
    rev = make_histogram(std::move(w));
  }
  if (fwd.n == 0 && rev.n == 0) fail_result(r, "forward.works", "finite work values");

  // The exact value and each estimate, at W = -log(Z / Z_0).
  double data_lo = std::numeric_limits<double>::infinity(), data_hi = -data_lo;
  for (const Histogram* h : {&fwd, &rev}) {
    if (h->n == 0) continue;
    data_lo = std::min(data_lo, h->lo);
    data_hi = std::max(data_hi, h->lo + h->width * static_cast<double>(h->density.size()));
  }
  const double span = data_hi - data_lo;
  std::vector<Mark> marks;
  std::vector<std::string> off_scale;
  const double exact = optional_number(r, "reference.evidence");
  if (std::isfinite(exact) && std::abs(exact) > kMaxDrawn)
    off_scale.push_back("exact  -log Z/Z_0 = " + legend_number(-exact));
  else if (std::isfinite(exact))  // a double-quoted title: its Z_0 is enhanced-text markup
    marks.push_back(
        {-exact, fmt::format("\"exact  -log Z/Z_0 = {:.3f}\"", -exact), "#000000", 1, 3.0});
  std::vector<std::string> methods;
  const auto estimates = evidence_estimates(r);
  for (const auto& e : estimates) methods.push_back(e.method);
  methods = ordered_methods(methods);
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const auto& e = *std::find_if(estimates.begin(), estimates.end(),
                                  [&](const MethodValue& v) { return v.method == methods[i]; });
    if (!std::isfinite(e.value)) continue;
    std::string title = method_label(e.method) + "  " + legend_number(-e.value);
    if (std::isfinite(e.error)) title += " ± " + legend_number(e.error);
    // A mark far outside the histograms would squeeze them into a sliver: list it instead.
    if (-e.value < data_lo - 2 * span || -e.value > data_hi + 2 * span ||
        std::abs(e.value) > kMaxDrawn) {
      off_scale.push_back(title);
      continue;
    }
    const auto st = method_style(e.method, i);
    marks.push_back({-e.value, gnuplot_text(title), st.color, st.dash, 2.0});
  }
  double lo = data_lo, hi = data_hi;
  for (const auto& m : marks) lo = std::min(lo, m.x), hi = std::max(hi, m.x);
  const double pad = 0.05 * std::max(hi - lo, 1e-9 * std::max(1.0, std::abs(hi)));

  const std::string name = options.prefix + "work_histograms";
  std::string data =
      fmt::format("# Work histograms from {} (densities; reverse works mirrored as -W_r).\n",
                  one_line(r.source));
  int index = 0, fwd_index = -1, rev_index = -1;
  if (fwd.n) data += histogram_block("forward W_f", fwd), fwd_index = index++;
  if (rev.n) data += histogram_block("reverse -W_r", rev), rev_index = index++;

  std::string s =
      script_head(name, "forward and reverse work histograms (Habeck 2017, Fig. 1A/3A)", options);
  const nlohmann::json* betas = find_key(r.json, "betas");
  const std::string summary =
      run_summary(fwd.n, rev.n, betas && betas->is_array() ? betas->size() : 0);
  s += "set title " + gnuplot_string(model_title(r)) +
       (summary.empty() ? "" : ".\"\\n\"." + gnuplot_string(summary)) + " noenhanced\n";
  s += "set xlabel \"work W  (forward: W_f;  reverse: shown as -W_r;  exact: W = -log Z/Z_0)\"\n"
       "set grid back lc rgb \"#dddddd\"\n"
       "set key outside right top vertical Left reverse samplen 2.5 spacing 1.3\n"
       "set style fill transparent solid 0.45\n";
  s += fmt::format("set xrange [{}:{}]\n", gnuplot_number(lo - pad), gnuplot_number(hi + pad));
  // When one direction's works are far narrower than the other's, its peak
  // dwarfs the other histogram on a linear axis: then densities go on a log axis.
  auto peak = [](const Histogram& h) {
    return h.n ? *std::max_element(h.density.begin(), h.density.end()) : 0.0;
  };
  const bool log_y =
      fwd.n && rev.n && std::max(peak(fwd), peak(rev)) > 10 * std::min(peak(fwd), peak(rev));
  if (log_y) {
    double smallest = std::numeric_limits<double>::infinity();
    for (const Histogram* h : {&fwd, &rev})
      for (double d : h->density)
        if (d > 0) smallest = std::min(smallest, d);
    s += fmt::format(
        "set ylabel \"probability density (log scale)\"\nset logscale y\nset format y "
        "\"10^{{%L}}\"\n"
        "set yrange [{}:*]\n",
        gnuplot_number(smallest / 3));
  } else {
    s += "set ylabel \"probability density\"\nset yrange [0:*]\n";
  }
  s += "set offsets 0, 0, graph 0.06, 0\n";
  for (const auto& m : marks)
    s += fmt::format(
        "set arrow from {}, graph 0 to {}, graph 1 nohead front lc rgb \"{}\" lw {} dt {}\n",
        gnuplot_number(m.x), gnuplot_number(m.x), m.color, m.width, m.dash);
  std::vector<std::string> items;
  const auto histogram_item = [&](int block, const char* color, const char* label,
                                  const Histogram& h) {
    items.push_back(
        fmt::format("    name.\".dat\" index {} using 1:2:3 with boxes lc rgb \"{}\" "
                    "fs transparent solid 0.45 border lc rgb \"{}\" title \"{} ({})\"",
                    block, color, color, label, count_label(h.n)));
  };
  if (fwd_index >= 0) histogram_item(fwd_index, kForwardColor, "forward W_f", fwd);
  if (rev_index >= 0) histogram_item(rev_index, kReverseColor, "reverse -W_r", rev);
  for (const auto& m : marks)
    items.push_back(fmt::format("    keyentry with lines lc rgb \"{}\" lw {} dt {} title {}",
                                m.color, m.width, m.dash, m.title));
  for (const auto& t : off_scale)
    items.push_back("    keyentry with lines lc rgb \"#ffffff\" title " +
                    gnuplot_text(t + "  (off scale)"));
  return draw_plot(dir, name, data, s + script_loop(plot_command(items)), options);
}

}  // namespace logz::plots
