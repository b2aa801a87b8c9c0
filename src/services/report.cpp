#include "logz/services/report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "logz/services/repetitions.hpp"
#include "logz/version.hpp"

namespace logz {

namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json numbers(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

nlohmann::json works_to_json(const Works& w) {
  return {{"works", numbers(w.works)},
          {"mean_energy", numbers(w.mean_energy)},
          {"acceptance", numbers(w.acceptance)}};
}

std::string fixed(double x, int precision) {
  return std::isfinite(x) ? fmt::format("{:.{}f}", x, precision) : std::string("nan");
}

}  // namespace

nlohmann::json estimate_to_json(const Estimate& e, double base_log_z) {
  nlohmann::json d = {{"ess", number(e.diagnostics.ess)},
                      {"overlap", number(e.diagnostics.overlap)},
                      {"iterations", e.diagnostics.iterations},
                      {"converged", e.diagnostics.converged},
                      {"flags", e.diagnostics.flags}};
  for (const auto& [k, v] : e.diagnostics.values) d[k] = number(v);
  return {{"log_z", number(e.log_z + base_log_z)},
          {"evidence", number(e.log_z)},
          {"std_error", number(e.std_error)},
          {"se_method", e.se_method},
          {"diagnostics", d}};
}

nlohmann::json result_to_json(const ExperimentResult& r) {
  nlohmann::json j;
  j["logz_version"] = version();
  j["model"] = r.model;
  j["config"] = r.config;
  j["kernel"] = r.kernel;
  j["base_log_z"] = number(r.base_log_z);
  if (r.reference)
    j["reference"] = {{"log_z", number(r.reference->log_z)},
                      {"evidence", number(r.reference->log_z - r.base_log_z)},
                      {"source", r.reference->source}};
  j["estimates"] = nlohmann::json::object();
  for (const auto& e : r.estimates) j["estimates"][e.method] = estimate_to_json(e, r.base_log_z);
  const Works* any = r.forward ? &*r.forward : r.reverse ? &*r.reverse : nullptr;
  if (any) j["betas"] = numbers(any->fractions);
  if (!r.equilibrium_energy.empty()) j["equilibrium_energy"] = numbers(r.equilibrium_energy);
  if (r.forward) j["forward"] = works_to_json(*r.forward);
  if (r.reverse) j["reverse"] = works_to_json(*r.reverse);
  if (!r.details.empty()) j["details"] = r.details;
  j["runtime_s"] = r.runtime_s;
  j["sign_convention"] =
      "log_z is the target's absolute log Z (base log Z_0 added); evidence = log(Z / Z_0); forward "
      "work W_f has E[exp(-W_f)] = Z/Z_0, reverse work W_r has E[exp(-W_r)] = Z_0/Z";
  return j;
}

std::string estimates_table(const std::vector<Estimate>& estimates, double base_log_z,
                            const Reference* reference) {
  std::string s = fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", "method", "log Z", "std err",
                              "log Z - log Z0", reference ? "z vs exact" : "", "notes");
  for (const auto& e : estimates) {
    std::string z;
    if (reference && std::isfinite(e.std_error) && e.std_error > 0)
      z = fixed((e.log_z + base_log_z - reference->log_z) / e.std_error, 1);
    std::string notes;
    for (const auto& f : e.diagnostics.flags) notes += (notes.empty() ? "" : ",") + f;
    s += fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", e.method, fixed(e.log_z + base_log_z, 4),
                     fixed(e.std_error, 4), fixed(e.log_z, 4), z, notes);
  }
  if (reference)
    s += fmt::format("{:<19} {:>14} {:>10} {:>16} {:>10}  {}\n", "exact", fixed(reference->log_z, 4), "",
                     fixed(reference->log_z - base_log_z, 4), "", reference->source);
  return s;
}

std::string result_table(const ExperimentResult& r) {
  std::string head = "model:";
  for (const auto& [k, v] : r.model.items()) head += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  const Works* any = r.forward ? &*r.forward : r.reverse ? &*r.reverse : nullptr;
  std::string runs;
  if (r.forward) runs += fmt::format("{} forward", r.forward->works.size());
  if (r.reverse) runs += fmt::format("{}{} reverse", runs.empty() ? "" : ", ", r.reverse->works.size());
  std::string s = head + "\n";
  if (any) s += fmt::format("paths: {}; K = {} annealing steps\n", runs, any->fractions.size() - 1);
  s += estimates_table(r.estimates, r.base_log_z, r.reference ? &*r.reference : nullptr);
  if (r.details.contains("repetitions")) {
    s += "first repetition above; " +
         repetitions_table(r.details["repetitions"],
                           r.reference ? r.reference->log_z - r.base_log_z : kNaN);
  }
  s += fmt::format("runtime: {:.2f} s\n", r.runtime_s);
  return s;
}

std::string works_csv(const ExperimentResult& r) {
  std::string s = "direction,path,work\n";
  for (const Works* w : {r.forward ? &*r.forward : nullptr, r.reverse ? &*r.reverse : nullptr}) {
    if (!w) continue;
    for (std::size_t i = 0; i < w->works.size(); ++i)
      s += fmt::format("{},{},{:.17g}\n", to_string(w->direction), i, w->works[i]);
  }
  return s;
}

}  // namespace logz
