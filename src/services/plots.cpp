#include "logz/services/plots.hpp"

#include "logz/io/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "logz/core/error.hpp"
#include "logz/version.hpp"

namespace logz {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
const char* const kForwardColor = "#1f77b4";
const char* const kReverseColor = "#d62728";

// ---- reading the result

const json* find_key(const json& j, const std::string& dotted) {
  const json* node = &j;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', begin);
    const std::string part =
        dotted.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    begin = dot + 1;
  }
}

// A number, or NaN for null (report.cpp writes NaN as null).
double as_number(const ResultFile& r, const std::string& key, const json& v) {
  if (v.is_null()) return kNan;
  if (!v.is_number()) fail_input(r.source, key, "a number or null");
  return v.get<double>();
}

// An optional number: NaN when the key is absent or null.
double optional_number(const ResultFile& r, const std::string& key) {
  const json* v = find_key(r.json, key);
  return v ? as_number(r, key, *v) : kNan;
}

std::vector<double> numbers(const ResultFile& r, const std::string& key) {
  const json* v = find_key(r.json, key);
  if (!v) fail_input(r.source, key, "an array of numbers (a result written by logz run --output)");
  if (!v->is_array()) fail_input(r.source, key, "an array of numbers");
  std::vector<double> out;
  out.reserve(v->size());
  for (const auto& x : *v) out.push_back(as_number(r, key, x));
  return out;
}

const json& estimates_of(const ResultFile& r) {
  const json* e = find_key(r.json, "estimates");
  if (!e || !e->is_object()) fail_input(r.source, "estimates", "an object of estimates");
  return *e;
}

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// A per-temperature series, if the result has it: the same length as betas.
std::vector<double> series(const ResultFile& r, const std::string& key, std::size_t num_betas) {
  if (!find_key(r.json, key)) return {};
  auto v = numbers(r, key);
  if (v.size() != num_betas)
    fail_input(r.source, key, fmt::format("{} values, one per entry of betas", num_betas));
  return v;
}

// ---- text for gnuplot

std::string num(double x) {
  return std::isfinite(x) ? fmt::format("{:.10g}", x) : std::string("NaN");
}

// A double-quoted gnuplot string (no enhanced-text escapes: file names).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A double-quoted gnuplot string whose text is shown literally, also in
// enhanced mode (where _ ^ @ & ~ { } are markup).
std::string literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    else if (std::string_view("_^@&~{}").find(c) != std::string_view::npos)
      out += "\\\\";
    out += c;
  }
  return out + "\"";
}

// The estimators in a fixed order of presentation, then any others by name.
const std::vector<std::string>& known_methods() {
  static const std::vector<std::string> order = {
      "ais",      "raise",           "bar",      "lower_bound", "upper_bound",       "histogram",
      "cumulant", "cumulant_forward", "cumulant_reverse", "histogram_posterior", "crooks_crossing"};
  return order;
}

std::size_t method_rank(const std::string& m) {
  const auto& order = known_methods();
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), m) - order.begin());
}

std::vector<std::string> ordered_methods(std::vector<std::string> methods) {
  const auto rank = method_rank;
  std::stable_sort(methods.begin(), methods.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return methods;
}

std::string method_label(const std::string& m) {
  static const std::map<std::string, std::string> names = {{"ais", "AIS"},
                                                           {"raise", "RAISE"},
                                                           {"bar", "BAR"},
                                                           {"lower_bound", "lower bound"},
                                                           {"upper_bound", "upper bound"},
                                                           {"jarzynski", "Jarzynski"}};
  const auto it = names.find(m);
  if (it != names.end()) return it->second;
  std::string s = m;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

struct MethodStyle {
  const char* color;
  int dash;   // gnuplot dashtype
  int point;  // gnuplot pointtype
};

// A known method keeps its style in every plot (AIS is always green); others
// take the remaining styles by their place `i` among the methods shown.
MethodStyle method_style(const std::string& method, std::size_t i) {
  // One style per known method (same order), then two for any others.
  static const MethodStyle styles[] = {
      {"#2ca02c", 2, 7},  {"#ff7f0e", 3, 5},  {"#9467bd", 4, 9},  {"#8c564b", 5, 11},
      {"#e377c2", 2, 13}, {"#d62728", 3, 15}, {"#1f77b4", 4, 3},  {"#17becf", 5, 1},
      {"#bcbd22", 2, 2},  {"#7f7f7f", 3, 6},  {"#393b79", 4, 8},  {"#ad494a", 5, 10},
      {"#637939", 2, 12}};
  const std::size_t rank = method_rank(method), num_known = known_methods().size();
  if (rank < num_known) return styles[rank];
  return styles[num_known + i % (std::size(styles) - num_known)];
}

// "ising 32x32: coupling=1, beta=1" from the result's model description.
std::string model_title(const ResultFile& r) {
  const json* m = find_key(r.json, "model");
  if (!m || !m->is_object()) return "";
  std::string title =
      m->contains("type") && (*m)["type"].is_string() ? (*m)["type"].get<std::string>() : "model";
  // Lattices read as "32x32" rather than as two keys.
  const bool lattice = m->contains("rows") && m->contains("cols");
  if (lattice) title += " " + (*m)["rows"].dump() + "x" + (*m)["cols"].dump();
  std::string details;
  // The model's parameters, not its derived exact quantities; a title is one short line.
  for (const auto& [k, v] : m->items()) {
    if (k == "type" || k == "base" || k == "num_sites" || k.rfind("exact_", 0) == 0 ||
        (lattice && (k == "rows" || k == "cols")) || !v.is_primitive())
      continue;
    const std::string value = v.is_string()         ? v.get<std::string>()
                              : v.is_number_float() ? fmt::format("{:.4g}", v.get<double>())
                                                    : v.dump();
    details += (details.empty() ? "" : ", ") + k + "=" + value;
  }
  // Titles are centred over the plot, not the canvas: keep them short enough to fit.
  if (details.size() > 64) details = details.substr(0, 61) + "...";
  return details.empty() ? title : title + " (" + details + ")";
}

// Number of paths per direction and K, for titles.
std::string run_summary(std::size_t num_forward, std::size_t num_reverse, std::size_t num_betas) {
  std::string s;
  if (num_forward) s += fmt::format("{} forward", num_forward);
  if (num_reverse) s += fmt::format("{}{} reverse", s.empty() ? "" : ", ", num_reverse);
  if (!s.empty()) s += " paths";
  if (num_betas > 1) s += fmt::format("{}K = {} steps", s.empty() ? "" : "; ", num_betas - 1);
  return s;
}

// The opening of every script: what it is and how to redraw, the formats.
std::string script_head(const std::string& name, const std::string& what,
                        const PlotOptions& options) {
  std::string fmts;
  for (const auto& f : options.formats) fmts += (fmts.empty() ? "" : " ") + f;
  return fmt::format(
      "# {}: written by logz {} from a result JSON.\n"
      "# Redraw (after editing) with:  gnuplot {}.gp   in this folder.\n"
      "set encoding utf8\n"
      "formats = \"{}\"   # any of png svg pdf\n"
      "name = {}\n",
      what, version(), name, fmts, quoted(name));
}

// Wraps the plot command in a loop over the formats, one terminal each.
std::string script_loop(const std::string& plot) {
  return "do for [fmt in formats] {\n"
         "  if (fmt eq \"svg\") {\n"
         "    set terminal svg size 1100,680 dynamic enhanced font \"Sans,15\" background rgb "
         "\"white\"\n"
         "  } else {\n"
         "    if (fmt eq \"pdf\") {\n"
         "      set terminal pdfcairo size 11in,6.8in enhanced font \"Sans,12\"\n"
         "    } else {\n"
         "      if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "        set terminal pngcairo size 1100,680 enhanced font \"Sans,12\"\n"
         "      } else {\n"
         "        set terminal png size 1100,680 enhanced\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "  set output name.\".\".fmt\n" +
         plot +
         "  unset output\n"
         "}\n";
}

// ---- files and the gnuplot process

std::string join_path(const std::string& dir, const std::string& file) {
  return (fs::path(dir) / file).string();
}

void write_file(const std::string& path, const std::string& text) { io::write_text_file(path, text); }

// Runs `gnuplot SCRIPT` in `dir` and returns the image files it was to write.
// gnuplot's messages are captured, and the last line of them names the
// problem if it fails (a bug in the script we wrote, hence not an input error).
std::vector<std::string> run_gnuplot(const std::string& dir, const std::string& name,
                                     const PlotOptions& options) {
  const std::string gnuplot = find_gnuplot();
  const std::string script = name + ".gp";
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw std::runtime_error("plots: could not create a pipe for gnuplot");
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    throw std::runtime_error("plots: could not start gnuplot (fork failed)");
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec: the parent may have threads.
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(pipe_fd[1], 1);
    dup2(pipe_fd[1], 2);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    if (chdir(dir.c_str()) != 0) _exit(126);
    execl(gnuplot.c_str(), "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fd[1]);
  std::string messages;
  char buf[4096];
  ssize_t got;
  while ((got = read(pipe_fd[0], buf, sizeof buf)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    messages.append(buf, static_cast<std::size_t>(got));
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string where = join_path(dir, script);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string last;
    std::istringstream lines(messages);
    for (std::string line; std::getline(lines, line);)
      if (line.find_first_not_of(" \t^") != std::string::npos) last = line;
    throw std::runtime_error(fmt::format("gnuplot failed on {} (exit {}): {}", where,
                                         WIFEXITED(status) ? WEXITSTATUS(status) : -1, last));
  }
  std::vector<std::string> written;
  for (const auto& f : options.formats) {
    const std::string image = join_path(dir, name + "." + f);
    if (!fs::exists(image) || fs::file_size(image) == 0)
      throw std::runtime_error(fmt::format("gnuplot ran {} but wrote no {}", where, image));
    written.push_back(image);
  }
  return written;
}

// ---- histograms

struct Histogram {
  double lo = 0.0, width = 1.0;
  std::vector<double> density;  // count / (n * width): the two directions compare as densities
  std::size_t n = 0;
};

// Bin width from the Freedman-Diaconis rule (2 IQR / n^(1/3)), with 6 to 60
// bins over the range: each direction gets its own bins, since forward and
// reverse works may lie far apart and differ in spread.
Histogram make_histogram(std::vector<double> x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }), x.end());
  std::sort(x.begin(), x.end());
  Histogram h;
  h.n = x.size();
  if (x.empty()) return h;
  const double lo = x.front(), hi = x.back(), range = hi - lo;
  if (!(range > 1e-12 * std::max(1.0, std::abs(lo)))) {
    h.width = std::max(1e-3, 1e-3 * std::abs(lo));
    h.lo = lo - h.width / 2;
    h.density = {1.0 / h.width};
    return h;
  }
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(x.size() - 1);
    const auto i = static_cast<std::size_t>(pos);
    const double frac = pos - static_cast<double>(i);
    return i + 1 < x.size() ? x[i] * (1 - frac) + x[i + 1] * frac : x[i];
  };
  const double iqr = quantile(0.75) - quantile(0.25);
  const double n = static_cast<double>(x.size());
  double bins = iqr > 0 ? std::ceil(range / (2 * iqr / std::cbrt(n))) : std::ceil(std::sqrt(n));
  bins = std::clamp(bins, 6.0, 60.0);
  const auto num_bins = static_cast<std::size_t>(bins);
  h.lo = lo;
  h.width = range / bins;
  std::vector<std::size_t> counts(num_bins, 0);
  for (double v : x) counts[std::min(num_bins - 1, static_cast<std::size_t>((v - lo) / h.width))]++;
  for (auto c : counts) h.density.push_back(static_cast<double>(c) / (n * h.width));
  return h;
}

std::string histogram_block(const std::string& label, const Histogram& h) {
  std::string s = fmt::format("# {} ({} values): bin_center density bin_width\n", label, h.n);
  for (std::size_t i = 0; i < h.density.size(); ++i)
    s += fmt::format("{} {} {}\n", num(h.lo + (static_cast<double>(i) + 0.5) * h.width),
                     num(h.density[i]), num(h.width));
  return s + "\n\n";
}

std::string count_label(std::size_t n) { return fmt::format("{} path{}", n, n == 1 ? "" : "s"); }

// A vertical line at x, drawn as an arrow, with its legend entry.
struct Mark {
  double x;
  std::string title;  // literal text
  std::string color;
  int dash;
  double width;
  bool markup;  // title uses gnuplot's enhanced-text markup (Z_0)
};

}  // namespace

ResultFile read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input(path, "", "a readable result JSON file (written by logz run --output)");
  std::stringstream text;
  text << in.rdbuf();
  ResultFile r{path, {}};
  try {
    r.json = json::parse(text.str());
  } catch (const json::parse_error& e) {
    fail_input(path, fmt::format("byte {}", e.byte),
               "JSON (a result written by logz run --output)");
  }
  if (!r.json.is_object() || !r.json.contains("logz_version") || !r.json.contains("estimates") ||
      !r.json["estimates"].is_object())
    fail_input(path, "",
               "a logz result JSON with \"logz_version\" and \"estimates\" (written by logz run "
               "--output)");
  return r;
}

std::vector<std::string> parse_plot_formats(const std::string& list) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    std::string f = list.substr(begin, comma - begin);
    f.erase(0, f.find_first_not_of(' '));
    f.erase(f.find_last_not_of(' ') + 1);
    if (f != "png" && f != "svg" && f != "pdf")
      fail_argument("plots", "formats",
                    fmt::format("a comma-separated list of png, svg, pdf (got \"{}\")", f));
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    begin = comma + 1;
  }
  return out;
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = dirs.substr(begin, colon - begin);
    const std::string candidate = join_path(dir.empty() ? "." : dir, "gnuplot");
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    begin = colon + 1;
  }
  throw InputError(
      "plots: expected the plotting program gnuplot on PATH (install it: apt-get install "
      "gnuplot-nox)");
}

void make_plot_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    fail_input(dir, "", "a folder that can be created for the plots");
}

std::vector<std::string> plot_work_histograms(const ResultFile& r, const std::string& dir,
                                              const PlotOptions& options) {
  const bool has_forward = find_key(r.json, "forward.works") != nullptr;
  const bool has_reverse = find_key(r.json, "reverse.works") != nullptr;
  if (!has_forward && !has_reverse)
    fail_input(r.source, "forward.works", "work values (forward.works or reverse.works)");
  Histogram fwd, rev;
  if (has_forward) fwd = make_histogram(numbers(r, "forward.works"));
  if (has_reverse) {
    auto w = numbers(r, "reverse.works");
    for (auto& x : w) x = -x;  // the reverse works mirrored onto the forward axis: -W_r
    rev = make_histogram(std::move(w));
  }
  if (fwd.n == 0 && rev.n == 0) fail_input(r.source, "forward.works", "finite work values");

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
  if (std::isfinite(exact))
    marks.push_back(
        {-exact, fmt::format("exact  -log Z/Z_0 = {:.3f}", -exact), "#000000", 1, 3.0, true});
  std::vector<std::string> methods;
  for (const auto& [m, e] : estimates_of(r).items()) methods.push_back(m);
  methods = ordered_methods(methods);
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const std::string key = "estimates." + methods[i];
    const double ev = optional_number(r, key + ".evidence");
    if (!std::isfinite(ev)) continue;
    const double se = optional_number(r, key + ".std_error");
    std::string title = fmt::format("{}  {:.3f}", method_label(methods[i]), -ev);
    if (std::isfinite(se)) title += fmt::format(" ± {:.3f}", se);
    // A mark far outside the histograms would squeeze them into a sliver: list it instead.
    if (-ev < data_lo - 2 * span || -ev > data_hi + 2 * span) {
      off_scale.push_back(title);
      continue;
    }
    const auto st = method_style(methods[i], i);
    marks.push_back({-ev, title, st.color, st.dash, 2.0, false});
  }
  double lo = data_lo, hi = data_hi;
  for (const auto& m : marks) lo = std::min(lo, m.x), hi = std::max(hi, m.x);
  const double pad = 0.05 * std::max(hi - lo, 1e-9 * std::max(1.0, std::abs(hi)));

  const std::string name = options.prefix + "work_histograms";
  std::string data = fmt::format(
      "# Work histograms from {} (densities; reverse works mirrored as -W_r).\n", r.source);
  int index = 0, fwd_index = -1, rev_index = -1;
  if (fwd.n) data += histogram_block("forward W_f", fwd), fwd_index = index++;
  if (rev.n) data += histogram_block("reverse -W_r", rev), rev_index = index++;
  write_file(join_path(dir, name + ".dat"), data);

  std::string s =
      script_head(name, "forward and reverse work histograms (Habeck 2017, Fig. 1A/3A)", options);
  const std::string title = model_title(r);
  const json* betas = find_key(r.json, "betas");
  const std::string summary =
      run_summary(fwd.n, rev.n, betas && betas->is_array() ? betas->size() : 0);
  s += "set title " + literal(title) + (summary.empty() ? "" : ".\"\\n\"." + literal(summary)) +
       "\n";
  s += "set xlabel \"work W  (forward: W_f;  reverse: shown as -W_r;  exact: W = -log Z/Z_0)\"\n"
       "set grid back lc rgb \"#dddddd\"\n"
       "set key outside right top vertical Left reverse samplen 2.5 spacing 1.3\n"
       "set style fill transparent solid 0.45\n";
  s += fmt::format("set xrange [{}:{}]\n", num(lo - pad), num(hi + pad));
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
        num(smallest / 3));
  } else {
    s += "set ylabel \"probability density\"\nset yrange [0:*]\n";
  }
  s += "set offsets 0, 0, graph 0.06, 0\n";
  for (const auto& m : marks)
    s += fmt::format(
        "set arrow from {}, graph 0 to {}, graph 1 nohead front lc rgb \"{}\" lw {} dt {}\n",
        num(m.x), num(m.x), m.color, m.width, m.dash);
  std::string plot = "  plot \\\n";
  std::vector<std::string> items;
  if (fwd_index >= 0)
    items.push_back(
        fmt::format("    name.\".dat\" index {} using 1:2:3 with boxes lc rgb \"{}\" "
                    "fs transparent solid 0.45 border lc rgb \"{}\" title \"forward W_f ({})\"",
                    fwd_index, kForwardColor, kForwardColor, count_label(fwd.n)));
  if (rev_index >= 0)
    items.push_back(
        fmt::format("    name.\".dat\" index {} using 1:2:3 with boxes lc rgb \"{}\" "
                    "fs transparent solid 0.45 border lc rgb \"{}\" title \"reverse -W_r ({})\"",
                    rev_index, kReverseColor, kReverseColor, count_label(rev.n)));
  for (const auto& m : marks)
    items.push_back(fmt::format("    keyentry with lines lc rgb \"{}\" lw {} dt {} title {}",
                                m.color, m.width, m.dash,
                                m.markup ? "\"" + m.title + "\"" : literal(m.title)));
  for (const auto& t : off_scale)
    items.push_back("    keyentry with lines lc rgb \"#ffffff\" title " +
                    literal(t + "  (off scale)"));
  for (std::size_t i = 0; i < items.size(); ++i)
    plot += items[i] + (i + 1 < items.size() ? ", \\\n" : "\n");
  s += script_loop(plot);
  write_file(join_path(dir, name + ".gp"), s);
  return run_gnuplot(dir, name, options);
}

namespace {

// Hysteresis and acceptance share their shape: per-temperature series of the
// forward and reverse runs (and an exact one) against the schedule.
struct Series {
  std::string title, color;
  int dash;
  std::vector<double> y;
  bool exact = false;  // a curve, drawn without points
};

std::vector<std::string> plot_per_temperature(const ResultFile& r, const std::string& dir,
                                              const PlotOptions& options, const std::string& name,
                                              const std::string& what, const std::string& ylabel,
                                              const std::string& yrange,
                                              const std::vector<double>& betas,
                                              const std::vector<Series>& all) {
  std::string data = fmt::format("# {} from {}\n# beta", what, r.source);
  std::vector<const Series*> shown;
  for (const auto& sr : all)
    if (any_finite(sr.y)) shown.push_back(&sr);
  for (const auto* sr : shown) data += " | " + sr->title;
  data += "\n";
  for (std::size_t k = 0; k < betas.size(); ++k) {
    data += num(betas[k]);
    for (const auto* sr : shown) data += fmt::format(" {}", num(sr->y[k]));
    data += "\n";
  }
  write_file(join_path(dir, name + ".dat"), data);

  std::string s = script_head(name, what, options);
  s += "set title " + literal(model_title(r)) + "\n";
  s += "set xlabel \"schedule β_k  (0 = base, 1 = target)\"\n";
  s += "set ylabel \"" + ylabel + "\"\n";  // enhanced text (β_k)
  s += "set grid back lc rgb \"#dddddd\"\n"
       "set key inside top right Left reverse box opaque samplen 3 spacing 1.3\n"
       "set datafile missing \"NaN\"\n";
  s += "set xrange [" + num(betas.front()) + ":" + num(betas.back()) + "]\n";
  s += "set yrange " + yrange + "\n";
  if (yrange == "[*:*]") s += "set autoscale yfix\nset offsets 0, 0, graph 0.05, graph 0.05\n";
  // Points as well as lines only when there are few temperatures to see.
  const std::string with = betas.size() <= 60 ? "linespoints pt 7 ps 0.7" : "lines";
  std::string plot = "  plot \\\n";
  for (std::size_t i = 0; i < shown.size(); ++i)
    plot += fmt::format(
        "    name.\".dat\" using 1:{} with {} lw 2.5 lc rgb \"{}\" dt {} title {}{}", i + 2,
        shown[i]->exact ? std::string("lines") : with, shown[i]->color, shown[i]->dash,
        literal(shown[i]->title), i + 1 < shown.size() ? ", \\\n" : "\n");
  s += script_loop(plot);
  write_file(join_path(dir, name + ".gp"), s);
  return run_gnuplot(dir, name, options);
}

}  // namespace

std::vector<std::string> plot_hysteresis(const ResultFile& r, const std::string& dir,
                                         const PlotOptions& options) {
  const auto betas = numbers(r, "betas");
  if (betas.size() < 2) fail_input(r.source, "betas", "at least two temperatures");
  std::vector<Series> all = {
      {"forward (base → target)", kForwardColor, 1, series(r, "forward.mean_energy", betas.size())},
      {"reverse (target → base)", kReverseColor, 1, series(r, "reverse.mean_energy", betas.size())},
      {"equilibrium (exact)", "#000000", 2, series(r, "equilibrium_energy", betas.size()), true}};
  if (!any_finite(all[0].y) && !any_finite(all[1].y))
    fail_input(r.source, "forward.mean_energy", "finite mean energies (forward or reverse)");
  return plot_per_temperature(r, dir, options, options.prefix + "hysteresis",
                              "hysteresis of the mean energy (Habeck 2017, Fig. 3B)",
                              "mean energy at β_k", "[*:*]", betas, all);
}

std::vector<std::string> plot_acceptance(const ResultFile& r, const std::string& dir,
                                         const PlotOptions& options) {
  const auto betas = numbers(r, "betas");
  if (betas.size() < 2) fail_input(r.source, "betas", "at least two temperatures");
  std::vector<Series> all = {
      {"forward", kForwardColor, 1, series(r, "forward.acceptance", betas.size())},
      {"reverse", kReverseColor, 2, series(r, "reverse.acceptance", betas.size())}};
  if (!any_finite(all[0].y) && !any_finite(all[1].y))
    fail_input(r.source, "forward.acceptance", "finite acceptance rates (forward or reverse)");
  return plot_per_temperature(r, dir, options, options.prefix + "acceptance",
                              "acceptance rate of the kernel per temperature", "acceptance rate",
                              "[0:1.05]", betas, all);
}

std::vector<std::string> plot_result(const ResultFile& r, const std::string& dir,
                                     const PlotOptions& options) {
  std::vector<std::string> written;
  auto add = [&](const std::vector<std::string>& files) {
    written.insert(written.end(), files.begin(), files.end());
  };
  const bool works = find_key(r.json, "forward.works") || find_key(r.json, "reverse.works");
  if (works) add(plot_work_histograms(r, dir, options));
  if (find_key(r.json, "betas")) {
    const auto betas = numbers(r, "betas");
    auto has = [&](const char* a, const char* b) {
      return any_finite(series(r, a, betas.size())) || any_finite(series(r, b, betas.size()));
    };
    if (has("forward.mean_energy", "reverse.mean_energy")) add(plot_hysteresis(r, dir, options));
    if (has("forward.acceptance", "reverse.acceptance")) add(plot_acceptance(r, dir, options));
  }
  if (written.empty())
    fail_input(r.source, "forward",
               "work values or per-temperature traces (a result written by logz run --output)");
  return written;
}

namespace {

std::string budget_label(const std::string& key) {
  static const std::map<std::string, std::string> labels = {
      {"schedule.num_steps", "annealing steps K"},
      {"kernel.steps_per_temperature", "kernel steps per temperature"},
      {"run.num_paths", "paths per direction M"},
      {"runtime_s", "runtime (s)"}};
  const auto it = labels.find(key);
  return it == labels.end() ? key : it->second + "  (" + key + ")";
}

}  // namespace

std::vector<std::string> plot_budget(const std::vector<ResultFile>& results,
                                     const std::string& budget_key, const std::string& dir,
                                     const PlotOptions& options) {
  if (results.empty()) fail_argument("plot_budget", "results", "at least one result");
  if (budget_key.empty())
    fail_argument("plot_budget", "budget_key", "a key such as schedule.num_steps");
  struct Row {
    double x;
    std::map<std::string, std::pair<double, double>> estimates;  // evidence, std_error
  };
  std::vector<Row> rows;
  std::vector<std::string> methods;
  // Results of `[run] repetitions` are drawn as the mean over repetitions with
  // the standard deviation over repetitions as the error bar (Habeck 2017, Fig. 2/4A).
  const bool repeated = std::all_of(results.begin(), results.end(), [](const ResultFile& r) {
    return find_key(r.json, "details.repetitions.methods") != nullptr;
  });
  const json* model0 = find_key(results[0].json, "model");
  for (const auto& r : results) {
    const json* model = find_key(r.json, "model");
    // Exact properties of the process itself (e.g. the Gaussian toy's exact bounds) change
    // with the budget; the model is the rest.
    auto identity = [](const json* m) {
      json id = m ? *m : json();
      if (id.is_object())
        for (auto it = id.begin(); it != id.end();) it = it.key().rfind("exact_", 0) == 0 ? id.erase(it) : std::next(it);
      return id;
    };
    if ((model0 == nullptr) != (model == nullptr) || identity(model) != identity(model0))
      fail_input(
          r.source, "model",
          "the same model as " + results[0].source + " (a budget plot compares runs of one model)");
    const json* v = find_key(r.json, "config." + budget_key);
    std::string where = "config." + budget_key;
    if (!v) v = find_key(r.json, budget_key), where = budget_key;
    if (!v)
      fail_input(r.source, "config." + budget_key,
                 "the budget key in the result's config (or at its top level)");
    if (!v->is_number()) fail_input(r.source, where, "a number (the budget on the x axis)");
    Row row{v->get<double>(), {}};
    if (repeated) {
      for (const auto& e : *find_key(r.json, "details.repetitions.methods")) {
        const std::string m = e.value("method", "");
        const double mean = e.contains("mean") && e["mean"].is_number() ? e["mean"].get<double>() : NAN;
        const double sd = e.contains("sd") && e["sd"].is_number() ? e["sd"].get<double>() : NAN;
        if (m.empty() || !std::isfinite(mean)) continue;
        row.estimates[m] = {mean, sd};
        if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
      }
      rows.push_back(std::move(row));
      continue;
    }
    for (const auto& [m, e] : estimates_of(r).items()) {
      const double ev = optional_number(r, "estimates." + m + ".evidence");
      if (!std::isfinite(ev)) continue;
      row.estimates[m] = {ev, optional_number(r, "estimates." + m + ".std_error")};
      if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    }
    rows.push_back(std::move(row));
  }
  if (methods.empty()) fail_input(results[0].source, "estimates", "at least one finite estimate");
  methods = ordered_methods(methods);
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.x < b.x; });
  const double x_lo = rows.front().x, x_hi = rows.back().x;
  const bool log_x = x_lo > 0 && x_hi >= 10 * x_lo;

  const std::string name = options.prefix + "budget";
  std::string data =
      repeated ? fmt::format("# Mean evidence log(Z/Z_0) over repetitions and its standard deviation over "
                             "repetitions, against {}\n# {}",
                             budget_key, budget_key)
               : fmt::format("# Evidence log(Z/Z_0) against {}; std_error 0 marks an error that could not "
                             "be estimated (null in the result)\n# {}",
                             budget_key, budget_key);
  for (const auto& m : methods) data += " | " + m + (repeated ? " mean sd" : " evidence std_error");
  data += "\n";
  for (const auto& row : rows) {
    data += num(row.x);
    for (const auto& m : methods) {
      const auto it = row.estimates.find(m);
      if (it == row.estimates.end())
        data += " NaN NaN";
      else
        data += fmt::format(" {} {}", num(it->second.first),
                            std::isfinite(it->second.second) ? num(it->second.second) : "0");
    }
    data += "\n";
  }
  write_file(join_path(dir, name + ".dat"), data);

  std::string s = script_head(name, "estimates against budget (Habeck 2017, Fig. 3C)", options);
  s += "set title " + literal(model_title(results[0])) + "\n";
  s += "set xlabel " + literal(budget_label(budget_key)) + "\n";
  s += repeated ? "set ylabel \"evidence log Z/Z_0: mean over repetitions (± 1 sd over repetitions)\"\n"
                : "set ylabel \"evidence log Z/Z_0  (± 1 std. error)\"\n";
  s += "set grid back lc rgb \"#dddddd\"\n"
       "set key outside right top vertical Left reverse samplen 2.5 spacing 1.3\n"
       "set datafile missing \"NaN\"\n"
       "set offsets 0, 0, graph 0.05, graph 0.05\n";
  // An explicit x range, so that the exact line spans the whole axis.
  if (log_x) {
    s += "set logscale x\n";
    s += fmt::format("set xrange [{}:{}]\n", num(x_lo / 1.5), num(x_hi * 1.5));
  } else {
    const double pad = x_hi > x_lo ? 0.06 * (x_hi - x_lo) : std::max(1.0, 0.1 * std::abs(x_lo));
    s += fmt::format("set xrange [{}:{}]\n", num(x_lo - pad), num(x_hi + pad));
  }
  const double exact = optional_number(results[0], "reference.evidence");
  // Methods drawn side by side around each x so their error bars do not overlap.
  const double m = static_cast<double>(methods.size());
  std::string plot = "  plot \\\n";
  std::vector<std::string> items;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const double shift = static_cast<double>(i) - (m - 1) / 2;
    std::string x;
    if (log_x)
      x = fmt::format("($1*{})", num(std::exp(0.012 * shift * std::log(x_hi / x_lo))));
    else
      x = fmt::format("($1+{})", num(0.008 * shift *
                                     (x_hi > x_lo ? x_hi - x_lo : std::max(1.0, std::abs(x_lo)))));
    const auto st = method_style(methods[i], i);
    items.push_back(fmt::format(
        "    name.\".dat\" using {}:{}:{} with yerrorlines lw 2 pt {} ps 1.1 lc rgb \"{}\" "
        "title {}",
        x, 2 + 2 * i, 3 + 2 * i, st.point, st.color, literal(method_label(methods[i]))));
  }
  if (std::isfinite(exact)) {
    s += fmt::format("exact = {}\n", num(exact));
    items.push_back(fmt::format("    exact with lines lw 3 lc rgb \"#000000\" title {}",
                                literal(fmt::format("exact  {:.3f}", exact))));
  }
  for (std::size_t i = 0; i < items.size(); ++i)
    plot += items[i] + (i + 1 < items.size() ? ", \\\n" : "\n");
  s += script_loop(plot);
  write_file(join_path(dir, name + ".gp"), s);
  return run_gnuplot(dir, name, options);
}

// ---- tracking a training run

std::vector<std::string> plot_tracking_csv(const std::string& csv, const std::string& dir,
                                           const PlotOptions& options) {
  if (!fs::exists(csv)) throw InputError(csv + ": expected the tracking CSV of logz train rbm");
  const std::string name = options.prefix + "tracking";
  const std::string data = fs::absolute(csv).string();
  // Columns: 1 epoch, 4 train LL, 5 validation LL, 6 AIS log Z, 7 its SE, 8 exact log Z,
  // 9/10 train/validation LL with the exact log Z, 3 the tracked log Z.
  std::string plot =
      "  set datafile separator \",\"\n"
      "  set key top left\n"
      "  set xlabel \"epoch\"\n"
      "  set ylabel \"mean log-likelihood (nats per example)\"\n"
      "  set title \"log-likelihood tracked by RTS during training\"\n"
      "  plot data using 1:4 skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"#1f77b4\" title \"train (RTS)\", \\\n"
      "       data using 1:5 skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"#d62728\" title \"validation (RTS)\", \\\n"
      "       data using 1:($4 + $3 - $6) skip 1 with points pt 6 ps 1.6 lc rgb \"#1f77b4\" title \"train (AIS log Z)\", \\\n"
      "       data using 1:($5 + $3 - $6) skip 1 with points pt 6 ps 1.6 lc rgb \"#d62728\" title \"validation (AIS log Z)\", \\\n"
      "       data using 1:9 skip 1 with points pt 2 ps 1.2 lc rgb \"black\" title \"train (exact log Z)\", \\\n"
      "       data using 1:10 skip 1 with points pt 2 ps 1.2 lc rgb \"gray40\" title \"validation (exact log Z)\"\n";
  write_file(join_path(dir, name + ".gp"), script_head(name, "RBM training log-likelihood", options) +
                                               "data = " + quoted(data) + "\n" + script_loop(plot));
  return run_gnuplot(dir, name, options);
}

}  // namespace logz
