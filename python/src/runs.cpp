// Runs from configs: logz.run(config) with config a dict of the TOML's structure or a path to
// a TOML file, the same services the command-line tool calls, and logz.Result; and the config
// keys' defaults and the estimators' names that logz.run, anneal and temper show (their None
// arguments leave a key to its default).
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "arrays.hpp"
#include "bindings.hpp"
#include "config_dict.hpp"
#include "estimate_class.hpp"
#include "interrupt.hpp"
#include "logz/config/config.hpp"
#include "logz/core/error.hpp"
#include "logz/report/json.hpp"
#include "logz/services/annealing_experiment.hpp"
#include "logz/services/parallel_tempering_experiment.hpp"
#include "logz/services/registry.hpp"
#include "logz/services/run.hpp"
#include "logz/services/smc_experiment.hpp"
#include "logz/services/tempering_experiment.hpp"
#include "memory_arrays.hpp"
#include "progress.hpp"
#include "result_state.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// The works of the direction that holds per-temperature traces: forward when it ran.
const Works* traced_works(const RunResult& r) {
  if (r.forward) return &*r.forward;
  if (r.reverse) return &*r.reverse;
  return nullptr;
}

// A per-temperature array, as a property getter: the traced direction's for annealing, the
// levels' (tempering(summary)) for simulated tempering, None for neither.
auto per_temperature(std::vector<double> Works::*member,
                     std::vector<double> (*tempering)(const TemperingSummary&)) {
  return [member, tempering](const RunResult& r) -> py::object {
    if (const Works* w = traced_works(r)) return to_numpy(w->*member);
    if (r.tempering) return to_numpy(tempering(*r.tempering));
    return py::none();
  };
}

std::vector<double> ladder(const TemperingSummary& t) { return t.ladder; }
std::vector<double> level_mean_energy(const TemperingSummary& t) { return t.mean_energy; }
// NaN at every level where the kernel's counts were not split by level.
std::vector<double> level_acceptance(const TemperingSummary& t) {
  return t.level_acceptance.empty() ? std::vector<double>(t.ladder.size(), kNaN)
                                    : t.level_acceptance;
}

py::object works_array(const std::optional<Works>& w) {
  return w ? py::object(to_numpy(w->works)) : py::object(py::none());
}

// {section: {key: default}} of the keys that logz.run, anneal and temper fill from their
// arguments (logz.smc: [smc], logz.pt: [pt]); a required key or one whose default is computed when
// it is read has none here.
py::dict key_defaults() {
  py::dict out;
  for (const KeyGroup* group : {&run_keys(), &schedule_keys(), &estimator_keys(), &tempering_keys(),
                                &smc_keys(), &parallel_tempering_keys()}) {
    py::dict section;
    for (const Key* key : group->keys)
      std::visit(
          [&](const auto& d) {
            using D = std::decay_t<decltype(d)>;
            if constexpr (!std::is_same_v<D, Required> && !std::is_same_v<D, Computed>)
              section[py::str(key->name())] = py::cast(d);
          },
          key->fallback());
    out[py::str(group->section)] = section;
  }
  return out;
}

}  // namespace

void bind_runs(py::module_& m) {
  py::class_<RunResult, std::shared_ptr<RunResult>>(m, "Result", "What logz.run returns.")
      .def_property_readonly(
          "estimates",
          [](const RunResult& r) {
            py::dict out;
            for (const Estimate& e : r.estimates)
              out[py::str(e.method)] = py::cast(PyEstimate{e, r.base_log_z});
            return out;
          },
          "dict of logz.Estimate by method: log_z is the target's absolute log Z, evidence "
          "log(Z/Z0)")
      .def_property_readonly(
          "reference_log_z",
          [](const RunResult& r) -> py::object {
            return r.reference ? py::object(py::float_(r.reference->log_z))
                               : py::object(py::none());
          },
          "the exact log Z where logz knows it, else None")
      .def_property_readonly(
          "base_log_z", [](const RunResult& r) { return r.base_log_z; }, "the base's exact log Z0")
      .def_property_readonly(
          "forward_works", [](const RunResult& r) { return works_array(r.forward); },
          "works of the forward paths (numpy, one per path), or None")
      .def_property_readonly(
          "reverse_works", [](const RunResult& r) { return works_array(r.reverse); },
          "works of the reverse paths, or None")
      .def_property_readonly(
          "fractions", per_temperature(&Works::fractions, ladder),
          "the path fractions t_k of the temperatures: the schedule t_0 = 0 .. t_K = 1 "
          "(annealing) or the ladder's levels (tempering)")
      .def_property_readonly(
          "mean_energy", per_temperature(&Works::mean_energy, level_mean_energy),
          "mean energy per temperature: annealing's trace energy (forward paths when they "
          "ran; NaN where none); tempering: the mean of dU_t/dt (U_1 - U_0 on a geometric "
          "path) over the samples at each level (NaN where none)")
      .def_property_readonly(
          "acceptance", per_temperature(&Works::acceptance, level_acceptance),
          "kernel acceptance rate per temperature (tempering: of the moves made at each "
          "level); NaN where the kernel reports none or made none there")
      .def_property_readonly(
          "runtime_s", [](const RunResult& r) { return r.runtime_s; },
          "wall-clock seconds the run took")
      .def_property_readonly(
          "test_log_likelihood",
          [](const RunResult& r) -> py::object {
            if (!r.test_log_likelihood) return py::none();
            const TestLogLikelihood& t = r.test_log_likelihood->value;
            py::dict d;
            d["mean"] = t.mean;
            d["std_error"] = t.std_error;
            d["data_std_error"] = t.data_std_error;
            d["log_z_std_error"] = t.log_z_std_error;
            d["num_examples"] = t.num_examples;
            d["log_z_source"] = r.test_log_likelihood->log_z_source;
            d["flags"] = t.flags;
            return d;
          },
          "an RBM's average test log-likelihood (nats per example) with its error, or None")
      .def_property_readonly(
          "details",
          [](const RunResult& r) {
            const nlohmann::json j = report::result_to_json(r);
            return py::module_::import("json").attr("loads")(
                j.contains("details") ? j["details"].dump() : std::string("{}"));
          },
          "a method's own diagnostics, as the JSON's \"details\" (a dict): \"pt\" (parallel "
          "tempering's barrier, swaps and round trips), \"tempering\", \"repetitions\", ...")
      .def(
          "to_json", [](const RunResult& r) { return report::result_to_json(r).dump(2); },
          "The result in the JSON schema of `logz run --output` (a str).")
      .def(
          "to_dict",
          [](const RunResult& r) {
            return py::module_::import("json").attr("loads")(report::result_to_json(r).dump());
          },
          "The result as a dict: json.loads(to_json()), NaN and infinities as None.")
      .def(py::pickle([](const RunResult& r) { return py::bytes(run_result_state(r)); },
                      [](const py::bytes& state) {
                        return std::make_shared<RunResult>(
                            run_result_from_state(std::string_view(state)));
                      }))
      .def("__repr__", [](const RunResult& r) {
        std::string s = "Result(";
        for (std::size_t i = 0; i < r.estimates.size(); ++i)
          s += (i ? ", " : "") + r.estimates[i].method + "=" +
               format_number(r.estimates[i].log_z + r.base_log_z);
        if (r.reference) s += ", reference=" + format_number(r.reference->log_z);
        return s + ")";
      });

  m.def(
      "_run",
      [](const py::object& config, const py::object& seed, const py::object& threads,
         const py::object& progress, const py::object& arrays, const std::string& function) {
        const HeldArrays held(arrays, function.c_str());
        Config c = load_config(config, function);
        if (!seed.is_none()) c.set("run", "seed", Value(seed.cast<long long>()));
        if (!threads.is_none()) c.set("run", "threads", Value(threads.cast<long long>()));
        auto result = std::make_shared<RunResult>();
        {
          const InterruptGuard ctrl_c;
          const RunContext context{.progress = progress_function(progress), .stop = ctrl_c.stop()};
          py::gil_scoped_release release;
          *result = run_experiment(c, context);
        }
        return result;
      },
      py::arg("config"), py::arg("seed") = py::none(), py::arg("threads") = py::none(),
      py::arg("progress") = py::none(), py::arg("arrays") = py::none(),
      py::arg("function") = "logz.run",
      "logz.run without its defaults (see logz.run); arrays: {name: {key: array}} that the config "
      "names as "
      "\"memory:name\"; function: the Python function errors name (logz.anneal and logz.temper run "
      "models here).");

  m.def("_defaults", &key_defaults,
        "{section: {key: default}}: the defaults of the [run], [schedule], [estimators] and "
        "[tempering] keys, which logz.run, logz.anneal and logz.temper use where an argument is "
        "None.");
  m.def(
      "_estimator_names",
      [](const std::string& family, bool run_by_default) {
        return run_by_default ? default_estimator_names(family) : estimator_names(family);
      },
      py::arg("family"), py::arg("run_by_default") = false,
      "The estimators of a family (\"works\" or \"tempered\") in the registry's order; "
      "run_by_default: those run when none are named.");
  m.def(
      "_gradient_kernels",
      [] {
        std::vector<std::string> names;
        for (const auto& k : kernel_registry())
          if (k.family == "continuous" && k.uses_gradient) names.push_back(k.name);
        return names;
      },
      "The continuous kernels that move along the energy's gradient (a Target then needs grad), "
      "from the "
      "kernel registry.");
  m.def(
      "_exact_log_z",
      [](const py::dict& config, const py::object& arrays) -> py::object {
        const HeldArrays held(arrays, "exact_log_z");
        Config c = load_config(config, "exact_log_z");
        const ModelEntry& entry = find_model(c.section("model").get_string(model_type_key()));
        if (!entry.exact) return py::none();
        const std::optional<Reference> r = entry.exact(c);
        return r ? py::object(py::float_(r->log_z)) : py::object(py::none());
      },
      py::arg("config"), py::arg("arrays") = py::none(),
      "The exact log Z of the model a config's [model] describes (with its [data] point for the "
      "generative "
      "models), or None where logz knows none.");
}

}  // namespace logz::python
