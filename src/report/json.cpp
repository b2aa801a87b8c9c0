#include "logz/report/json.hpp"

#include <cmath>
#include <limits>

#include "logz/services/annealing_experiment.hpp"
#include "logz/services/registry.hpp"
#include "logz/training_app/rbm_training.hpp"
#include "logz/version.hpp"

namespace logz::report {

namespace {

// Non-finite numbers as null, as the JSON text has them: readers of the document in memory (the
// plots of `logz run --plots`) then see what readers of the file see.
nlohmann::json finite_or_null(nlohmann::json j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return nullptr;
  if (j.is_structured())
    for (auto& x : j) x = finite_or_null(std::move(x));
  return j;
}

nlohmann::json works_to_json(const Works& w) {
  return {{"works", w.works}, {"mean_energy", w.mean_energy}, {"acceptance", w.acceptance}};
}

nlohmann::json tempering_to_json(const TemperingSummary& t) {
  nlohmann::json init = {{"method", t.initialization}};
  if (t.iterations) init["iterations"] = *t.iterations;
  if (t.stages) init["stages"] = *t.stages;
  if (t.converged) init["converged"] = *t.converged;
  if (t.tolerance) init["tolerance"] = *t.tolerance;
  if (t.iterations) init["max_level_deviation"] = t.iteration_deviations;
  nlohmann::json levels = nlohmann::json::object();
  for (const auto& l : t.levels)
    levels[l.method] = {{"evidence", l.evidence}, {"std_error", l.std_error}, {"bias", l.bias}};
  nlohmann::json j = {{"initialization", init},
                      {"log_z_hat_initial", t.log_z_hat_initial},
                      {"num_chains", t.num_chains},
                      {"num_sweeps", t.num_sweeps},
                      {"betas", t.ladder},
                      {"levels", levels},
                      {"log_c", t.log_c},
                      {"counts", t.counts},
                      {"max_level_deviation", t.max_level_deviation}};
  if (std::isfinite(t.kernel_acceptance)) j["kernel_acceptance"] = t.kernel_acceptance;
  if (!t.level_acceptance.empty())
    j["level_acceptance"] = t.level_acceptance;  // NaN (no moves there): null
  if (!t.exact_evidence.empty()) j["exact_evidence"] = t.exact_evidence;
  return j;
}

nlohmann::json ground_state_to_json(const GroundStateSummary& g) {
  return {
      {"betas", g.betas},
      {"mean_energy", g.mean_energy},
      {"energy_std_error", g.energy_std_error},
      {"chain_integrals", g.chain_integrals},
      {"ground_energy", g.ground_energy},
      {"log_degeneracy", g.log_degeneracy},
      {"integral", g.integral},
      {"integral_std_error", g.integral_std_error},
      {"trapezoid_integral", g.trapezoid_integral},
      {"quadrature_error", g.quadrature_error},
      {"tail", g.tail},
      {"log_z", g.log_z},
      {"formula", "log Z(beta) = log g_0 - beta E_0 + integral_beta^beta_max (<E> - E_0) + tail"}};
}

nlohmann::json repetitions_to_json(const Repetitions& r) {
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& s : r.methods)
    methods.push_back({{"method", s.method},
                       {"mean", s.mean},
                       {"sd", s.sd},
                       {"mean_std_error", s.mean_std_error},
                       {"mean_error", s.mean_error},
                       {"rmse", s.rmse},
                       {"coverage_2se", s.coverage_2se},
                       {"failed", s.failed},
                       {"evidence", s.evidence},
                       {"std_error", s.std_error}});
  return {{"count", r.seeds.size()},
          {"seeds", r.seeds},
          {"note",
           "evidence = log(Z / Z_0) of each repetition; mean, sd over repetitions; mean_error and "
           "rmse against the exact evidence; coverage_2se: fraction with |error| <= 2 std_error"},
          {"methods", methods}};
}

nlohmann::json keys_to_json(const std::vector<const KeyGroup*>& groups) {
  nlohmann::json sections = nlohmann::json::object();
  for (const KeyGroup* g : groups)
    for (const Key* k : g->keys) {
      nlohmann::json key = {{"type", to_string(k->type())},
                            {"default", k->default_text()},
                            {"doc", k->doc()},
                            {"expects", k->expectation()}};
      if (!k->choices().empty()) key["choices"] = k->choices();
      sections[g->section][k->name()] = key;
    }
  return sections;
}

}  // namespace

nlohmann::json to_json(const Value& v) {
  if (v.is_null()) return nullptr;
  if (v.is_bool()) return v.as_bool();
  if (v.is_integer()) return v.as_integer();
  if (v.is_double()) return v.as_double();
  if (v.is_string()) return v.as_string();
  if (v.is_array()) {
    nlohmann::json a = nlohmann::json::array();
    for (const Value& x : v.as_array()) a.push_back(to_json(x));
    return a;
  }
  return to_json(v.as_record());
}

nlohmann::json to_json(const Record& record) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : record) j[k] = to_json(v);
  return j;
}

nlohmann::json estimate_to_json(const Estimate& e, double base_log_z) {
  nlohmann::json d = {{"ess", e.diagnostics.ess},
                      {"overlap", e.diagnostics.overlap},
                      {"iterations", e.diagnostics.iterations},
                      {"converged", e.diagnostics.converged},
                      {"flags", e.diagnostics.flags}};
  for (const auto& [k, v] : e.diagnostics.values) d[k] = v;
  return finite_or_null({{"log_z", e.log_z + base_log_z},
                         {"evidence", e.log_z},
                         {"std_error", e.std_error},
                         {"se_method", e.se_method},
                         {"diagnostics", d}});
}

nlohmann::json result_to_json(const RunResult& r) {
  nlohmann::json j;
  j["logz_version"] = version();
  nlohmann::json model = to_json(r.model);
  if (const auto& t = r.test_log_likelihood) {
    model["test_log_likelihood"] = t->value.mean;
    model["test_log_likelihood_std_error"] = t->value.std_error;
    model["test_log_likelihood_data_std_error"] = t->value.data_std_error;
    model["test_log_likelihood_log_z"] = t->log_z_source;
    model["test_examples"] = t->value.num_examples;
  }
  j["model"] = model;
  j["config"] = to_json(r.config);
  j["kernel"] = to_json(r.kernel);
  j["base_log_z"] = r.base_log_z;
  if (r.reference)
    j["reference"] = {{"log_z", r.reference->log_z},
                      {"evidence", r.reference->log_z - r.base_log_z},
                      {"source", r.reference->source}};
  j["estimates"] = nlohmann::json::object();
  for (const auto& e : r.estimates) j["estimates"][e.method] = estimate_to_json(e, r.base_log_z);
  const Works* any = r.forward ? &*r.forward : r.reverse ? &*r.reverse : nullptr;
  if (any) j["betas"] = any->fractions;
  if (!r.equilibrium_energy.empty()) j["equilibrium_energy"] = r.equilibrium_energy;
  if (r.forward) j["forward"] = works_to_json(*r.forward);
  if (r.reverse) j["reverse"] = works_to_json(*r.reverse);
  nlohmann::json details = nlohmann::json::object();
  if (r.tempering) details["tempering"] = tempering_to_json(*r.tempering);
  if (r.ground_state) details["ground_state_integration"] = ground_state_to_json(*r.ground_state);
  if (r.repetitions) details["repetitions"] = repetitions_to_json(*r.repetitions);
  if (r.pilot)
    details["adaptive_schedule"] = {{"num_steps", r.pilot->plan.num_steps},
                                    {"pilot_paths", r.pilot->plan.pilot_paths},
                                    {"pilot_steps", r.pilot->plan.pilot_steps},
                                    {"pilot_reverse_paths", r.pilot->reverse_paths},
                                    {"pilot_kernel_updates", r.pilot->kernel_updates},
                                    {"thermodynamic_length", r.pilot->thermodynamic_length}};
  for (const auto& [k, v] : r.details) details[k] = to_json(v);
  if (!details.empty()) j["details"] = details;
  if (r.budget) {
    nlohmann::json b = {{"unit", r.budget->unit}, {"total", r.budget->total()}};
    for (const auto& [part, n] : r.budget->parts) b[part] = n;
    j["budget"] = b;
  }
  j["runtime_s"] = r.runtime_s;
  j["sign_convention"] =
      "log_z is the target's absolute log Z (base log Z_0 added); evidence = log(Z / Z_0); forward "
      "work W_f has E[exp(-W_f)] = Z/Z_0, reverse work W_r has E[exp(-W_r)] = Z_0/Z";
  return finite_or_null(std::move(j));
}

nlohmann::json loglik_to_json(const LoglikResult& r) {
  nlohmann::json j = {{"model", to_json(r.model)},
                      {"kernel", to_json(r.kernel)},
                      {"num_points", r.num_points},
                      {"log_likelihood", r.log_likelihood},
                      {"std_error_data", r.std_error_data},
                      {"std_error_monte_carlo", r.std_error_monte_carlo},
                      {"exact", r.exact},
                      {"flags", r.flags},
                      {"runtime_s", r.runtime_s},
                      {"config", to_json(r.config)}};
  if (r.analysis) {
    j["mean_energy"] = r.mean_energy;
    j["log_z"] = {{"method", r.log_z.method},
                  {"log_z", r.log_z.log_z},
                  {"std_error", r.log_z.std_error},
                  {"flags", r.log_z.diagnostics.flags}};
    j["formula"] = "L = -mean E(x) - log Z";
  } else {
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : r.points)
      pts.push_back({{"log_likelihood", p.log_likelihood},
                     {"std_error", p.std_error},
                     {"exact", p.exact},
                     {"ess", p.ess},
                     {"low_ess", p.low_ess}});
    j["points"] = pts;
    j["num_low_ess_points"] = r.num_low_ess_points;
    j["formula"] = "L = mean_i log p(x_i), one AIS run per data point";
  }
  return finite_or_null(std::move(j));
}

nlohmann::json sample_to_json(const SampleResult& s) {
  const auto& r = s.result;
  nlohmann::json j = {
      {"model", to_json(s.model)}, {"sampler", to_json(s.sampler)}, {"config", to_json(s.config)}};
  j["acceptance_rate"] = r.acceptance_rate;
  j["average_acceptance"] = r.average_acceptance;
  j["final_step_size"] = r.final_step_size;
  j["mean_energy_error"] = r.mean_energy_error;
  j["non_finite"] = r.non_finite;
  j["reflections"] = r.reflections;
  j["ess"] = r.ess;
  j["mean"] = s.mean;
  j["sd"] = s.sd;
  j["covariance"] = s.covariance;
  if (!s.exact_mean.empty()) {
    j["exact_mean"] = s.exact_mean;
    j["exact_covariance"] = s.exact_covariance;
  }
  j["draws_shape"] = {r.num_draws, r.num_chains, r.dim};
  j["runtime_s"] = s.runtime_s;
  return finite_or_null(std::move(j));
}

nlohmann::json mbar_to_json(const MbarResult& r, std::size_t num_samples) {
  std::vector<double> se = r.std_error;
  if (!se.empty())
    se[0] = std::numeric_limits<double>::quiet_NaN();  // the reference: no error to estimate
  if (!r.converged) se.assign(se.size(), std::numeric_limits<double>::quiet_NaN());
  nlohmann::json j = {{"method", "mbar"},
                      {"num_states", r.log_z.size()},
                      {"num_samples", num_samples},
                      {"log_z", r.log_z},
                      {"std_error", se},
                      {"converged", r.converged},
                      {"iterations", r.iterations},
                      {"flags", nlohmann::json::array()}};
  if (!r.converged) j["flags"].push_back("not_converged");
  if (!r.disconnected.empty()) {  // no overlap path to state 0: their log_z and std_error are null
    j["flags"].push_back("disconnected");
    j["disconnected_states"] = r.disconnected;
  }
  if (r.poor_overlap) j["flags"].push_back("poor_overlap");
  return finite_or_null(std::move(j));
}

nlohmann::json registry_to_json() {
  nlohmann::json models = nlohmann::json::object();
  for (const auto& m : model_registry()) {
    nlohmann::json commands = nlohmann::json::array();
    if (m.run) commands.push_back("run");
    if (m.loglik) commands.push_back("loglik");
    if (m.sample) commands.push_back("sample");
    nlohmann::json keys = keys_to_json(m.keys);
    if (m.sample) keys.update(keys_to_json(m.sample_keys), true);
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : m.kernels) kernels.push_back(k.name);
    nlohmann::json methods = nlohmann::json::array();
    for (RunMethod x : m.methods) methods.push_back(to_string(x));
    models[m.name] = {{"summary", m.summary},
                      {"docs", m.docs},
                      {"commands", commands},
                      {"methods", methods},
                      {"kernel_family", m.kernels.empty() ? "" : m.kernels.front().family},
                      {"kernels", kernels},
                      {"reverse_starts", m.reverse_starts},
                      {"reference", m.reference},
                      {"keys", keys}};
  }
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& k : kernel_registry())
    kernels[k.family][k.name] = {{"summary", k.summary},
                                 {"keys", keys_to_json({k.keys})["kernel"]},
                                 {"uses_gradient", k.uses_gradient}};
  nlohmann::json estimators = nlohmann::json::object();
  for (const auto& e : estimator_registry()) {
    nlohmann::json outputs = nlohmann::json::array();
    for (const auto& o : e.outputs) outputs.push_back(o.method);
    nlohmann::json options = nlohmann::json::array();  // its [estimators] keys
    for (const Key* k : e.options) options.push_back(k->name());
    nlohmann::json j = {{"family", e.family},
                        {"summary", e.summary},
                        {"outputs", outputs},
                        {"default", e.default_rank > 0},
                        {"options", options}};
    if (e.family == "works") {
      const char* needs[] = {"forward", "reverse", "both", "either"};
      j["needs"] = needs[static_cast<int>(e.needs)];
    }
    estimators[e.name] = j;
  }
  nlohmann::json schedules = nlohmann::json::array();
  for (const auto& s : schedule_registry()) schedules.push_back(s.name);
  nlohmann::json methods = nlohmann::json::object();
  for (const auto& m : method_registry())
    methods[to_string(m.method)] = {{"summary", m.summary}, {"docs", m.docs}};
  return {
      {"models", models},
      {"methods", methods},
      {"kernels", kernels},
      {"estimators", estimators},
      {"schedules", schedules},
      {"training",
       {{"rbm", {{"command", "logz train rbm"}, {"keys", keys_to_json(rbm_training_keys())}}}}}};
}

}  // namespace logz::report
