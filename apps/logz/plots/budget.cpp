// Estimates against a budget over several results of one model (Habeck 2017, Fig. 3C).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gnuplot_strings.hpp"
#include "logz/core/error.hpp"
#include "method_styles.hpp"
#include "model_title.hpp"
#include "plots.hpp"

namespace logz::plots {

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

// The model without its exact properties of the process (e.g. the Gaussian toy's exact bounds),
// which change with the budget.
nlohmann::json model_identity(const ResultFile& r) {
  const nlohmann::json* m = find_key(r.json, "model");
  nlohmann::json id = m ? *m : nlohmann::json();
  if (id.is_object())
    for (auto it = id.begin(); it != id.end();)
      it = it.key().rfind("exact_", 0) == 0 ? id.erase(it) : std::next(it);
  return id;
}

// The budget of one result: `key` in its config, else at its top level.
double budget_of(const ResultFile& r, const std::string& key) {
  std::string where = "config." + key;
  const nlohmann::json* v = find_key(r.json, where);
  if (!v) v = find_key(r.json, key), where = key;
  if (!v)
    fail_result(r, "config." + key, "the budget key in the result's config (or at its top level)");
  if (!v->is_number() || !std::isfinite(v->get<double>()))
    fail_result(r, where, "a number (the budget on the x axis)");
  return v->get<double>();
}

struct Row {
  double x;
  std::map<std::string, std::pair<double, double>> estimates;  // method: value, error bar
};

}  // namespace

std::vector<std::string> plot_budget(const std::vector<ResultFile>& results,
                                     const std::string& budget_key, const std::string& dir,
                                     const PlotOptions& options) {
  if (results.empty()) fail_argument("plot_budget", "results", "at least one result");
  if (budget_key.empty())
    fail_argument("plot_budget", "budget_key", "a key such as schedule.num_steps");
  // Results of `[run] repetitions` are drawn as the mean over repetitions with the standard
  // deviation over repetitions as the error bar (Habeck 2017, Fig. 2/4A).
  const bool repeated = std::all_of(results.begin(), results.end(), [](const ResultFile& r) {
    return find_key(r.json, "details.repetitions.methods") != nullptr;
  });
  std::vector<Row> rows;
  std::vector<std::string> methods;
  for (const auto& r : results) {
    if (model_identity(r) != model_identity(results[0]))
      fail_result(r, "model",
                  "the same model as " + one_line(results[0].source) +
                      " (a budget plot compares runs of one model)");
    Row row{budget_of(r, budget_key), {}};
    for (const auto& e : repeated ? repetition_estimates(r) : evidence_estimates(r)) {
      if (!std::isfinite(e.value)) continue;
      row.estimates[e.method] = {e.value, e.error};
      if (std::find(methods.begin(), methods.end(), e.method) == methods.end())
        methods.push_back(e.method);
    }
    rows.push_back(std::move(row));
  }
  if (methods.empty()) fail_result(results[0], "estimates", "at least one finite estimate");
  methods = ordered_methods(methods);
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.x < b.x; });
  const double x_lo = rows.front().x, x_hi = rows.back().x;
  const bool log_x = x_lo > 0 && x_hi >= 10 * x_lo;

  const std::string name = options.prefix + "budget";
  const std::string key_text = one_line(budget_key);
  std::string data =
      repeated ? fmt::format(
                     "# Mean evidence log(Z/Z_0) over repetitions and its standard deviation over "
                     "repetitions, against {}\n# {}",
                     key_text, key_text)
               : fmt::format(
                     "# Evidence log(Z/Z_0) against {}; std_error 0 marks an error that could not "
                     "be estimated (null in the result)\n# {}",
                     key_text, key_text);
  for (const auto& m : methods)
    data += " | " + one_line(m) + (repeated ? " mean sd" : " evidence std_error");
  data += "\n";
  for (const auto& row : rows) {
    data += gnuplot_number(row.x);
    for (const auto& m : methods) {
      const auto it = row.estimates.find(m);
      if (it == row.estimates.end())
        data += " NaN NaN";
      else
        data +=
            fmt::format(" {} {}", gnuplot_number(it->second.first),
                        std::isfinite(it->second.second) ? gnuplot_number(it->second.second) : "0");
    }
    data += "\n";
  }

  std::string s = script_head(name, "estimates against budget (Habeck 2017, Fig. 3C)", options);
  s += "set title " + gnuplot_text(model_title(results[0])) + "\n";
  s += "set xlabel " + gnuplot_text(budget_label(budget_key)) + "\n";
  s += repeated
           ? "set ylabel \"evidence log Z/Z_0: mean over repetitions (± 1 sd over repetitions)\"\n"
           : "set ylabel \"evidence log Z/Z_0  (± 1 std. error)\"\n";
  s += "set grid back lc rgb \"#dddddd\"\n"
       "set key outside right top vertical Left reverse samplen 2.5 spacing 1.3\n"
       "set datafile missing \"NaN\"\n"
       "set offsets 0, 0, graph 0.05, graph 0.05\n";
  // An explicit x range, so that the exact line spans the whole axis.
  if (log_x) {
    s += "set logscale x\n";
    s +=
        fmt::format("set xrange [{}:{}]\n", gnuplot_number(x_lo / 1.5), gnuplot_number(x_hi * 1.5));
  } else {
    const double pad = x_hi > x_lo ? 0.06 * (x_hi - x_lo) : std::max(1.0, 0.1 * std::abs(x_lo));
    s +=
        fmt::format("set xrange [{}:{}]\n", gnuplot_number(x_lo - pad), gnuplot_number(x_hi + pad));
  }
  const double exact = optional_number(results[0], "reference.evidence");
  // Methods drawn side by side around each x so their error bars do not overlap.
  const double m = static_cast<double>(methods.size());
  std::vector<std::string> items;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const double shift = static_cast<double>(i) - (m - 1) / 2;
    const std::string x =
        log_x ? fmt::format("($1*{})",
                            gnuplot_number(std::exp(0.012 * shift * std::log(x_hi / x_lo))))
              : fmt::format(
                    "($1+{})",
                    gnuplot_number(0.008 * shift *
                                   (x_hi > x_lo ? x_hi - x_lo : std::max(1.0, std::abs(x_lo)))));
    const auto st = method_style(methods[i], i);
    items.push_back(fmt::format(
        "    name.\".dat\" using {}:{}:{} with yerrorlines lw 2 pt {} ps 1.1 lc rgb \"{}\" title "
        "{}",
        x, 2 + 2 * i, 3 + 2 * i, st.point, st.color, gnuplot_text(method_label(methods[i]))));
  }
  if (std::isfinite(exact)) {
    s += fmt::format("exact = {}\n", gnuplot_number(exact));
    items.push_back(fmt::format("    exact with lines lw 3 lc rgb \"#000000\" title {}",
                                gnuplot_text(fmt::format("exact  {:.3f}", exact))));
  }
  return draw_plot(dir, name, data, s + script_loop(plot_command(items)), options);
}

}  // namespace logz::plots
