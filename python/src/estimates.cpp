// The works estimators on numpy arrays: logz.estimate(method, forward, reverse, ...) for every
// works estimator of the registry, and the class logz.Estimate they return.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "estimate_class.hpp"
#include "interrupt.hpp"
#include "logz/core/error.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/memory_guard.hpp"
#include "logz/services/registry.hpp"
#include "python_messages.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

py::dict diagnostics_dict(const Diagnostics& d) {
  py::dict out;
  out["ess"] = d.ess;
  out["overlap"] = d.overlap;
  out["iterations"] = d.iterations;
  out["converged"] = d.converged;
  for (const auto& [name, value] : d.values) out[py::str(name)] = value;
  return out;
}

std::string repr(const PyEstimate& p) {
  const Estimate& e = p.estimate;
  std::string s = "Estimate(method='" + e.method + "', log_z=" + format_number(e.log_z + p.base_log_z) +
                  ", std_error=" + format_number(e.std_error);
  if (p.base_log_z != 0.0) s += ", evidence=" + format_number(e.log_z);
  if (!e.diagnostics.flags.empty()) {
    s += ", flags=[";
    for (std::size_t i = 0; i < e.diagnostics.flags.size(); ++i) s += (i ? ", '" : "'") + e.diagnostics.flags[i] + "'";
    s += "]";
  }
  return s + ")";
}

// The ranges of `logz estimate`'s --histogram-bins, --posterior-draws and --posterior-burn-in,
// and that the memory a value asks for fits (a huge count was a std::bad_alloc, or minutes of
// work): a logz.InvalidArgument naming the argument and its range.
constexpr std::size_t kMaxCount = std::size_t{1} << 30;

void check_count(const std::string& function, const std::string& argument, std::size_t value, std::size_t lowest,
                 double bytes_each, const std::string& what) {
  if (value < lowest || value > kMaxCount)
    fail_argument(function, argument,
                  "an integer in [" + std::to_string(lowest) + ", 2^30], got " + std::to_string(value));
  try {
    check_fits_in_memory(function + ": " + argument, bytes_each * static_cast<double>(value), what);
  } catch (const InputError& e) {
    throw InvalidArgument(e.what());
  }
}

// logz.estimate and the convenience functions (logz.ais, logz.bar, ...), which name themselves
// as `function` in errors.
py::object estimate_works(const std::string& function, const std::string& method, const py::object& forward,
                          const py::object& reverse, std::uint64_t seed, std::size_t posterior_draws,
                          std::size_t posterior_burn_in, std::size_t histogram_bins) {
  const auto names = estimator_names("works");
  if (std::find(names.begin(), names.end(), method) == names.end())
    fail_argument(function, "method", "one of " + quoted_names(names) + ", got \"" + method + "\"");
  const EstimatorEntry& entry = find_estimator(method);
  const std::string missing = estimator_requirements({method}, !forward.is_none(), !reverse.is_none());
  if (!missing.empty()) throw InvalidArgument(function + ": " + missing);
  check_count(function, "histogram_bins", histogram_bins, 0, kBytesPerHistogramBin, "the histograms");
  check_count(function, "posterior_draws", posterior_draws, 2, kBytesPerPosteriorDraw, "the posterior draws");
  check_count(function, "posterior_burn_in", posterior_burn_in, 0, 0.0, "");
  const std::string short_name = function.substr(function.find('.') + 1);  // as_array adds "logz."
  std::optional<DoubleArray> f, r;
  if (!forward.is_none()) f = as_array(forward, 1, short_name.c_str(), "forward", "(N,)");
  if (!reverse.is_none()) r = as_array(reverse, 1, short_name.c_str(), "reverse", "(N,)");
  EstimatorOptions options;
  options.seed = seed;
  options.posterior_draws = posterior_draws;
  options.posterior_burn_in = posterior_burn_in;
  options.histogram_bins = histogram_bins;
  std::vector<Estimate> estimates;
  try {
    const InterruptGuard ctrl_c;  // histogram_posterior's draws can take minutes
    py::gil_scoped_release release;
    estimates = run_estimators({method}, f ? OptionalWorks(view(*f)) : std::nullopt,
                               r ? OptionalWorks(view(*r)) : std::nullopt, options);
  } catch (const InvalidArgument& e) {  // the estimators name forward_works and reverse_works
    throw InvalidArgument(python_message(e.what(), function, {{"forward_works", "forward"}, {"reverse_works", "reverse"}}));
  }
  if (entry.outputs.size() == 1) return py::cast(PyEstimate{estimates.at(0)});
  py::dict out;
  for (Estimate& e : estimates) {
    const py::str name(e.method);
    out[name] = py::cast(PyEstimate{std::move(e)});
  }
  return out;
}

}  // namespace

std::string format_number(double x) { return std::string(py::str(py::float_(x).attr("__format__")(".6g"))); }

void bind_estimate_class(py::module_& m) {
  py::class_<PyEstimate>(m, "Estimate",
                         "One estimate of log Z with its standard error, how that error was obtained, and "
                         "diagnostics.\n\n"
                         "log_z is log(Z1/Z0) for estimates on works (logz.estimate) and the target's absolute "
                         "log Z for the estimates of a run (logz.run), where evidence holds log(Z/Z0). A standard "
                         "error that cannot be estimated is NaN, with a flag saying why.")
      .def_property_readonly("method", [](const PyEstimate& p) { return p.estimate.method; },
                             "the estimator's name: 'ais', 'bar', 'rts', ...")
      .def_property_readonly("log_z", [](const PyEstimate& p) { return p.estimate.log_z + p.base_log_z; },
                             "the estimate: log(Z1/Z0) on works, the target's absolute log Z in a run's Result")
      .def_property_readonly("evidence", [](const PyEstimate& p) { return p.estimate.log_z; },
                             "log(Z1/Z0): the estimator's answer before the base's log Z0 is added")
      .def_property_readonly("std_error", [](const PyEstimate& p) { return p.estimate.std_error; },
                             "the standard error of log_z (NaN where it cannot be estimated, with a flag)")
      .def_property_readonly("se_method", [](const PyEstimate& p) { return p.estimate.se_method; },
                             "how std_error was obtained: 'delta', 'bar_asymptotic', 'between_chains', 'posterior_sd', ...")
      .def_property_readonly("diagnostics", [](const PyEstimate& p) { return diagnostics_dict(p.estimate.diagnostics); },
                             "ess, overlap, iterations, converged and the estimator's own numbers")
      .def_property_readonly("flags", [](const PyEstimate& p) { return p.estimate.diagnostics.flags; },
                             "warnings such as 'low_ess', 'poor_overlap', 'heavy_tailed_weights'")
      .def("to_dict",
           [](const PyEstimate& p) {
             py::dict d;
             d["method"] = p.estimate.method;
             d["log_z"] = p.estimate.log_z + p.base_log_z;
             d["evidence"] = p.estimate.log_z;
             d["std_error"] = p.estimate.std_error;
             d["se_method"] = p.estimate.se_method;
             d["diagnostics"] = diagnostics_dict(p.estimate.diagnostics);
             d["flags"] = p.estimate.diagnostics.flags;
             return d;
           },
           "The estimate as a dict (the fields of the JSON that `logz run --output` writes, plus method).")
      .def("__repr__", &repr);
}

void bind_estimates(py::module_& m) {
  bind_estimate_class(m);
  m.def(
      "estimate",
      [](const std::string& method, const py::object& forward, const py::object& reverse, std::uint64_t seed,
         std::size_t posterior_draws, std::size_t posterior_burn_in, std::size_t histogram_bins) {
        return estimate_works("logz.estimate", method, forward, reverse, seed, posterior_draws, posterior_burn_in,
                              histogram_bins);
      },
      py::arg("method"), py::arg("forward") = py::none(), py::arg("reverse") = py::none(), py::kw_only(),
      py::arg("seed") = 1, py::arg("posterior_draws") = 2000, py::arg("posterior_burn_in") = 200,
      py::arg("histogram_bins") = 0,
      R"(Estimates log(Z1/Z0) from work values.

forward: works W_f of paths from the base (Z0) to the target (Z1), E[exp(-W_f)] = Z1/Z0
  (pymbar's w_F); reverse: works W_r of paths back, E[exp(-W_r)] = Z0/Z1 (pymbar's w_R).
  1-D arrays; float64 C-contiguous arrays are used without a copy.
method: one of "ais", "raise", "bar", "bounds", "cumulant", "histogram",
  "histogram_posterior", "crossing". "bounds" and "cumulant" yield several estimates and
  return a dict of them by name; the others return one logz.Estimate.
seed, posterior_draws, posterior_burn_in: histogram_posterior's Gibbs sampler.
histogram_bins: bins of the histogram estimators (0: one point per distinct work, = BAR);
  at most 2^30, as posterior_draws and posterior_burn_in.

>>> import numpy as np, logz
>>> w = np.random.default_rng(0).normal(1.0, 0.5, 1000)
>>> logz.estimate("ais", forward=w).method
'ais')");
  m.def("_estimate", &estimate_works, py::arg("function"), py::arg("method"), py::arg("forward") = py::none(),
        py::arg("reverse") = py::none(), py::arg("seed") = 1, py::arg("posterior_draws") = 2000,
        py::arg("posterior_burn_in") = 200, py::arg("histogram_bins") = 0,
        "logz.estimate under the name of the function the user called (logz.ais, logz.bar, ...), for errors.");
}

}  // namespace logz::python
