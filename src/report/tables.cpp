#include "logz/report/tables.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "logz/report/json.hpp"
#include "logz/services/registry.hpp"
#include "logz/training_app/rbm_training.hpp"

namespace logz::report {

std::string fixed(double x, int precision) {
  return std::isfinite(x) ? fmt::format("{:.{}f}", x, precision) : std::string("nan");
}

namespace {

// `logz sample` prints the draws' covariance up to this dimension (the tutorial's is 5).
constexpr int kCovarianceRowsShown = 10;

std::string repetitions_table(const Repetitions& rep, double exact_evidence) {
  const bool exact = std::isfinite(exact_evidence);
  std::string s = fmt::format("over {} repetitions (seeds {} to {}), evidence log Z - log Z0:\n",
                              rep.seeds.size(), rep.seeds.front(), rep.seeds.back());
  s += fmt::format("{:<19} {:>12} {:>10} {:>12}", "method", "mean", "sd", "mean std err");
  if (exact) s += fmt::format(" {:>11} {:>10} {:>10}", "mean error", "rmse", "in 2 SE");
  s += "\n";
  for (const auto& m : rep.methods) {
    s += fmt::format("{:<19} {:>12} {:>10} {:>12}", m.method, fixed(m.mean, 4), fixed(m.sd, 4),
                     fixed(m.mean_std_error, 4));
    if (exact)
      s += fmt::format(" {:>11} {:>10} {:>10}", fixed(m.mean_error, 4), fixed(m.rmse, 4),
                       fixed(m.coverage_2se, 3));
    if (m.failed > 0) s += fmt::format("  ({} failed)", m.failed);
    s += "\n";
  }
  if (exact) s += fmt::format("{:<19} {:>12}\n", "exact", fixed(exact_evidence, 4));
  return s;
}

}  // namespace

std::string estimates_table(const std::vector<Estimate>& estimates, double base_log_z,
                            const Reference* reference) {
  std::string s = fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", "method", "log Z",
                              "std err", "log Z - log Z0", reference ? "z vs exact" : "", "notes");
  for (const auto& e : estimates) {
    std::string z;
    if (reference && std::isfinite(e.std_error) && e.std_error > 0)
      z = fixed((e.log_z + base_log_z - reference->log_z) / e.std_error, 1);
    std::string notes;
    for (const auto& f : e.diagnostics.flags) notes += (notes.empty() ? "" : ",") + f;
    s += fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", e.method,
                     fixed(e.log_z + base_log_z, 4), fixed(e.std_error, 4), fixed(e.log_z, 4), z,
                     notes);
  }
  if (reference)
    s +=
        fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", "exact", fixed(reference->log_z, 4),
                    "", fixed(reference->log_z - base_log_z, 4), "", reference->source);
  return s;
}

// Parallel tempering's ladder and round trips, one line.
static std::string pt_line(const Record& pt) {
  auto num = [&](const char* k) { return pt[k].as_double(); };
  return fmt::format(
      "parallel tempering: {} replicas x {} chains ({} swaps), global barrier {:.3f}; round "
      "trips {} in the last {} scans: {:.3g} per scan and chain (predicted {:.3g}, limit {:.3g})\n",
      pt["num_replicas"].as_integer(), pt["num_chains"].as_integer(), pt["scheme"].as_string(),
      num("global_barrier"), pt["round_trips"].as_integer(), pt["scans_last_round"].as_integer(),
      num("round_trip_rate"), num("predicted_round_trip_rate"), num("limit_round_trip_rate"));
}

std::string result_table(const RunResult& r) {
  std::string head = "model:";
  const nlohmann::json model = result_to_json(r)["model"];
  for (const auto& [k, v] : model.items())
    head += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  const Works* any = r.forward ? &*r.forward : r.reverse ? &*r.reverse : nullptr;
  std::string runs;
  if (r.forward) runs += fmt::format("{} forward", r.forward->works.size());
  if (r.reverse)
    runs += fmt::format("{}{} reverse", runs.empty() ? "" : ", ", r.reverse->works.size());
  std::string s = head + "\n";
  if (any) s += fmt::format("paths: {}; K = {} annealing steps\n", runs, any->fractions.size() - 1);
  if (r.pilot)
    s += fmt::format(
        "schedule: adaptive, placed by a pilot of {} paths x {} steps (thermodynamic length "
        "{:.4g})\n",
        r.pilot->plan.pilot_paths, r.pilot->plan.pilot_steps, r.pilot->thermodynamic_length);
  if (const Value* pt = r.details.find("pt")) s += pt_line(pt->as_record());
  s += estimates_table(r.estimates, r.base_log_z, r.reference ? &*r.reference : nullptr);
  if (r.repetitions)
    s += "first repetition above; " +
         repetitions_table(*r.repetitions, r.reference ? r.reference->log_z - r.base_log_z : kNaN);
  if (r.budget) {
    std::string parts;
    for (const auto& [part, n] : r.budget->parts)
      parts += fmt::format("{}{} {:.3g}", parts.empty() ? "" : ", ", part, static_cast<double>(n));
    s += fmt::format("budget: {:.3g} {}s ({})\n", static_cast<double>(r.budget->total()),
                     r.budget->unit, parts);
  }
  s += fmt::format("runtime: {:.2f} s\n", r.runtime_s);
  return s;
}

std::string works_csv(const RunResult& r) {
  std::string s = "direction,path,work\n";
  for (const Works* w : {r.forward ? &*r.forward : nullptr, r.reverse ? &*r.reverse : nullptr}) {
    if (!w) continue;
    for (std::size_t i = 0; i < w->works.size(); ++i)
      s += fmt::format("{},{},{:.17g}\n", to_string(w->direction), i, w->works[i]);
  }
  return s;
}

std::string loglik_table(const LoglikResult& r) {
  std::string s = fmt::format("model: {}; {} data points\n", to_json(r.model).dump(), r.num_points);
  s += fmt::format("kernel: {}\n", to_json(r.kernel).dump());
  if (r.analysis)
    s += fmt::format("log Z ({}): {} +/- {}; mean energy {}\n", r.log_z.method,
                     fixed(r.log_z.log_z, 4), fixed(r.log_z.std_error, 4), fixed(r.mean_energy, 4));
  s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "", "L", "SE (data)", "SE (MC)");
  s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "average log-likelihood",
                   fixed(r.log_likelihood, 4), fixed(r.std_error_data, 4),
                   fixed(r.std_error_monte_carlo, 4));
  if (std::isfinite(r.exact)) {
    const std::string z = r.std_error_monte_carlo > 0
                              ? fixed((r.log_likelihood - r.exact) / r.std_error_monte_carlo, 1)
                              : std::string("");
    s += fmt::format("{:<22} {:>12} {:>14} {:>14}\n", "exact", fixed(r.exact, 4), "", "z = " + z);
  }
  if (r.num_low_ess_points > 0) {
    s += fmt::format(
        "warning: {} of {} points have an AIS ESS below max(10, 1% of the paths): their Monte "
        "Carlo "
        "errors understate the error (more paths or temperatures)\n",
        r.num_low_ess_points, r.num_points);
  }
  s += fmt::format("runtime: {:.2f} s\n", r.runtime_s);
  return s;
}

std::string sample_table(const SampleResult& s) {
  const auto& r = s.result;
  const nlohmann::json sampler = to_json(s.sampler);
  std::string t = fmt::format("model: {}\n", to_json(s.model).dump());
  t += fmt::format(
      "HMC: {} chains x {} draws after {} burn-in moves, {} leapfrog steps; step-size adaptation: "
      "{}\n",
      r.num_chains, r.num_draws, sampler["burn_in"].get<std::size_t>(),
      sampler["leapfrog_steps"].get<int>(), sampler["adapt"].get<std::string>());
  t += fmt::format(
      "acceptance {} (kept draws); moving average {}; final step size {}; mean energy error {}\n",
      fixed(r.acceptance_rate, 3), fixed(r.average_acceptance, 3),
      fmt::format("{:.4g}", r.final_step_size), fixed(r.mean_energy_error, 4));
  if (r.non_finite) t += fmt::format("non-finite proposals rejected: {}\n", r.non_finite);
  if (r.reflections) t += fmt::format("constraint reflections: {}\n", r.reflections);
  // Where the target's moments are known: each mean's error in units of its SE, sd / sqrt(ESS).
  const bool exact = s.exact_mean.size() == static_cast<std::size_t>(r.dim);
  t += fmt::format("{:>5} {:>12} {:>12} {:>10}", "dim", "mean", "sd", "ESS");
  t += exact ? fmt::format(" {:>12} {:>8}\n", "exact mean", "z") : "\n";
  for (std::size_t i = 0; i < static_cast<std::size_t>(r.dim); ++i) {
    t += fmt::format("{:>5} {:>12} {:>12} {:>10}", i, fixed(s.mean[i], 4), fixed(s.sd[i], 4),
                     fixed(r.ess[i], 0));
    t += exact ? fmt::format(
                     " {:>12} {:>8}\n", fixed(s.exact_mean[i], 4),
                     fixed((s.mean[i] - s.exact_mean[i]) / (s.sd[i] / std::sqrt(r.ess[i])), 1))
               : "\n";
  }
  // The whole matrix only while it fits on a screen; --json has it always.
  if (!s.covariance.empty() && r.dim <= kCovarianceRowsShown) {
    t += "covariance of the kept draws:\n";
    for (const auto& row : s.covariance) {
      for (const double c : row) t += fmt::format(" {:>9}", fixed(c, 4));
      t += "\n";
    }
  }
  if (exact && s.exact_covariance.size() == s.covariance.size()) {
    double worst = 0.0;
    for (std::size_t i = 0; i < s.covariance.size(); ++i)
      for (std::size_t j = 0; j < s.covariance.size(); ++j)
        worst = std::max(worst, std::abs(s.covariance[i][j] - s.exact_covariance[i][j]));
    t += fmt::format("largest |covariance - exact covariance|: {}\n", fixed(worst, 4));
  }
  t += fmt::format("runtime: {:.2f} s\n", s.runtime_s);
  return t;
}

std::string mbar_table(const MbarResult& r, std::size_t num_states, std::size_t num_samples) {
  std::string t = fmt::format(
      "MBAR on {} states x {} samples: {} after {} Newton iterations\n", num_states, num_samples,
      r.converged ? "converged" : "NOT converged (errors not estimated)", r.iterations);
  if (!r.disconnected.empty())
    t += fmt::format(
        "disconnected: state{} {} share{} no samples with state 0 or the states linked to it: no "
        "estimate (NaN)\n",
        r.disconnected.size() > 1 ? "s" : "", fmt::join(r.disconnected, ", "),
        r.disconnected.size() > 1 ? "" : "s");
  if (r.poor_overlap)
    t += "poor_overlap: some state is linked to state 0 only through pairs of states with "
         "O_kl + O_lk < 0.06: its error may be understated\n";
  t += fmt::format("{:>6} {:>20} {:>12}\n", "state", "log Z_k - log Z_0", "std error");
  for (std::size_t k = 0; k < r.log_z.size(); ++k) {
    const bool cut_off =
        std::find(r.disconnected.begin(), r.disconnected.end(), k) != r.disconnected.end();
    t += fmt::format("{:>6} {:>20} {:>12}{}\n", k, fixed(r.log_z[k] + 0.0, 6),
                     k == 0 ? "(reference)" : fixed(r.std_error[k], 6),
                     cut_off ? "  disconnected" : "");
  }
  return t;
}

std::string registry_table() {
  std::string s = "models ([model] type; logz list --json gives every key):\n";
  for (const auto& m : model_registry()) {
    std::string commands;
    for (const char* c : {"run", "loglik", "sample"})
      if ((std::string(c) == "run" && m.run) || (std::string(c) == "loglik" && m.loglik) ||
          (std::string(c) == "sample" && m.sample))
        commands += std::string(commands.empty() ? "" : ", ") + c;
    std::string methods;
    for (RunMethod x : m.methods) methods += (methods.empty() ? "" : ", ") + to_string(x);
    s += fmt::format("  {:<20} {}\n", m.name, m.summary);
    std::string kernels;
    for (const auto& k : m.kernels) kernels += (kernels.empty() ? "" : ", ") + k.name;
    s += fmt::format("  {:<20} commands: {}{}{}\n", "", commands,
                     methods.empty() ? "" : "; methods: " + methods,
                     kernels.empty() ? "" : "; kernels: " + kernels);
  }
  s += "methods ([run] method):\n";
  for (const auto& m : method_registry())
    s += fmt::format("  {:<24} {}\n", to_string(m.method), m.summary);
  s += "kernels ([kernel] type):\n";
  for (const auto& k : kernel_registry())
    s += fmt::format("  {:<24} {}\n", k.family + " " + k.name, k.summary);
  s += "estimators ([estimators] methods, logz estimate --methods):\n";
  for (const auto& e : estimator_registry())
    s += fmt::format("  {:<20} {:<9} {}{}\n", e.name, e.family, e.summary,
                     e.default_rank > 0 ? " (default)" : "");
  s += "schedules ([schedule] type):\n";
  for (const auto& sc : schedule_registry()) s += fmt::format("  {:<20} {}\n", sc.name, sc.summary);
  s += "training: logz train rbm ([data], [model], [training], [output], [evaluate], [tracking])\n";
  return s;
}

}  // namespace logz::report
