// The works estimators on numpy arrays: logz.estimate(method, forward, reverse, ...) for every
// works estimator of the registry, and the class logz.Estimate they return.
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <variant>

#include "arrays.hpp"
#include "bindings.hpp"
#include "estimate_class.hpp"
#include "interrupt.hpp"
#include "logz/config/memory_guard.hpp"
#include "logz/core/error.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/registry.hpp"
#include "python_messages.hpp"
#include "result_state.hpp"

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
  std::string s = "Estimate(method='" + e.method +
                  "', log_z=" + format_number(e.log_z + p.base_log_z) +
                  ", std_error=" + format_number(e.std_error);
  if (p.base_log_z != 0.0) s += ", evidence=" + format_number(e.log_z);
  if (!e.diagnostics.flags.empty()) {
    s += ", flags=[";
    for (std::size_t i = 0; i < e.diagnostics.flags.size(); ++i)
      s += (i ? ", '" : "'") + e.diagnostics.flags[i] + "'";
    s += "]";
  }
  return s + ")";
}

// "2^30" for a large power of two, else the number: a bound as a user reads it.
std::string bound_text(std::int64_t x) {
  if (x >= 1024 && (x & (x - 1)) == 0)
    return "2^" + std::to_string(std::countr_zero(static_cast<std::uint64_t>(x)));
  return std::to_string(x);
}

std::string range_text(const Key& key) {
  return "an integer in [" + bound_text(key.min_integer()) + ", " + bound_text(key.max_integer()) +
         "]";
}

// The estimators that read an option, "histogram, histogram_posterior".
std::string readers(const Key& key) {
  std::string s;
  for (const EstimatorEntry& e : estimator_registry())
    if (std::find(e.options.begin(), e.options.end(), &key) != e.options.end())
      s += (s.empty() ? "" : ", ") + e.name;
  return s;
}

// The options of the estimator registry as keyword arguments (`given`), each at its key's default
// where not given: out of range, not an integer or asking for more memory than there is (a huge
// count was a std::bad_alloc, or minutes of work), a logz.InvalidArgument naming it; unknown, a
// TypeError.
EstimatorOptions read_options(const std::string& function, std::uint64_t seed,
                              const py::kwargs& given) {
  const auto& keys = estimator_option_keys();
  for (const auto& item : given) {
    const std::string name = py::str(item.first);
    if (std::none_of(keys.begin(), keys.end(), [&](const Key* k) { return k->name() == name; })) {
      std::vector<std::string> names{"seed"};
      for (const Key* k : keys) names.push_back(k->name());
      // A TypeError, as Python gives for an unknown keyword argument.
      throw py::type_error(function + ": " + name + ": expected a keyword argument from " +
                           quoted_names(names));
    }
  }
  const auto value = [&](const Key& key) -> std::int64_t {
    if (!given.contains(key.name())) return std::get<std::int64_t>(key.fallback());
    const py::object v = given[py::str(key.name())];
    const auto refuse = [&] {
      fail_argument(function, key.name(), range_text(key) + ", got " + std::string(py::repr(v)));
    };
    if (PyBool_Check(v.ptr())) refuse();
    PyObject* index = PyNumber_Index(v.ptr());  // ints and numpy's integers, not floats
    if (index == nullptr) {
      PyErr_Clear();
      refuse();
    }
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow != 0 || x < key.min_integer() || x > key.max_integer()) refuse();
    return x;
  };
  const auto check_memory = [&](const Key& key, double bytes, const std::string& what) {
    try {
      check_fits_in_memory(function + ": " + key.name(), bytes, what);
    } catch (const InputError& e) {
      throw InvalidArgument(e.what());
    }
  };
  return read_estimator_options({value, check_memory}, seed);
}

// logz.estimate and the convenience functions (logz.ais, logz.bar, ...), which name themselves
// as `function` in errors.
py::object estimate_works(const std::string& function, const std::string& method,
                          const py::object& forward, const py::object& reverse, std::uint64_t seed,
                          const py::kwargs& given) {
  const auto names = estimator_names("works");
  if (std::find(names.begin(), names.end(), method) == names.end())
    fail_argument(function, "method", "one of " + quoted_names(names) + ", got \"" + method + "\"");
  const EstimatorEntry& entry = find_estimator(method);
  const std::string missing =
      estimator_requirements({method}, !forward.is_none(), !reverse.is_none());
  if (!missing.empty()) throw InvalidArgument(function + ": " + missing);
  EstimatorOptions options = read_options(function, seed, given);
  const std::string short_name = function.substr(function.find('.') + 1);  // as_array adds "logz."
  std::optional<DoubleArray> f, r;
  if (!forward.is_none()) f = as_array(forward, 1, short_name.c_str(), "forward", "(N,)");
  if (!reverse.is_none()) r = as_array(reverse, 1, short_name.c_str(), "reverse", "(N,)");
  std::vector<Estimate> estimates;
  try {
    const InterruptGuard ctrl_c;  // histogram_posterior's draws can take minutes
    options.stop = ctrl_c.stop();
    py::gil_scoped_release release;
    estimates = run_estimators({method}, f ? OptionalWorks(view(*f)) : std::nullopt,
                               r ? OptionalWorks(view(*r)) : std::nullopt, options);
  } catch (const InvalidArgument& e) {  // the estimators name forward_works and reverse_works
    throw InvalidArgument(python_message(
        e.what(), function, {{"forward_works", "forward"}, {"reverse_works", "reverse"}}));
  }
  if (entry.outputs.size() == 1) return py::cast(PyEstimate{estimates.at(0)});
  py::dict out;
  for (Estimate& e : estimates) {
    const py::str name(e.method);
    out[name] = py::cast(PyEstimate{std::move(e)});
  }
  return out;
}

// logz.estimate's docstring: the methods and options from the estimator registry.
// `text` as lines of at most 92 characters, each after the first indented by `indent`.
std::string wrapped(const std::string& text, const std::string& indent = "  ") {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > 92) {
      out += line + "\n";
      line = indent + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
  }
  return out + line + "\n";
}

// A key's type as a numpy-style docstring names it.
const char* python_type_name(KeyType type) {
  switch (type) {
    case KeyType::integer:
      return "int";
    case KeyType::number:
      return "float";
    case KeyType::string:
      return "str";
    case KeyType::boolean:
      return "bool";
    case KeyType::string_list:
      return "list of str";
    case KeyType::array:
      return "array_like";
  }
  return "object";
}

// logz.estimate's docstring (numpy style), its methods and options from the estimator registry.
// logz.estimate itself is Python (python/logz/estimates.py): it wraps what the methods of several
// estimates return in their result types (logz.Bounds, logz.Cumulant).
std::string estimate_doc() {
  const auto names = estimator_names("works");
  std::vector<std::string> several;
  for (const auto& n : names)
    if (find_estimator(n).outputs.size() > 1) several.push_back(n);
  std::string options;
  for (const Key* key : estimator_option_keys())
    options +=
        key->name() + " : " + python_type_name(key->type()) + ", default " + key->default_text() +
        "\n    " +
        wrapped("(" + readers(*key) + ") " + key->doc() + "; " + range_text(*key) + ".", "    ");
  return R"(Estimates log(Z1/Z0) from work values.

Parameters
----------
)" + wrapped("method : str", "    ") +
         "    " + wrapped("One of " + quoted_names(names) + ".", "    ") +
         R"(forward : array_like of float, shape (N,), optional
    Works W_f of paths from the base (Z0) to the target (Z1), E[exp(-W_f)] = Z1/Z0 (pymbar's
    w_F). Float64 C-contiguous arrays are used without a copy.
reverse : array_like of float, shape (M,), optional
    Works W_r of paths back, E[exp(-W_r)] = Z0/Z1 (pymbar's w_R).
seed : int, default )" +
         std::to_string(EstimatorOptions{}.seed) + R"(
    The seed of histogram_posterior's Gibbs sampler.
**options
    The [estimators] keys of a config (the flags of `logz estimate`), keywords, with the
    estimators that read them:
)" + options +
         R"(
Returns
-------
Estimate or Bounds or Cumulant
)" + "    " +
         wrapped(quoted_names(several) +
                     " yield several estimates and return them together: \"bounds\" a "
                     "logz.Bounds (lower, upper), \"cumulant\" a logz.Cumulant (forward, "
                     "reverse, two_sided); every other method one logz.Estimate.",
                 "    ") +
         R"(
Raises
------
logz.InvalidArgument
    An unknown method, missing works, works of the wrong shape or not finite, an option out of
    its range (the message names the argument).
TypeError
    An unknown keyword.

Examples
--------
>>> import numpy as np, logz
>>> w = np.random.default_rng(0).normal(1.0, 0.5, 1000)
>>> logz.estimate("ais", forward=w).method
'ais')";
}

}  // namespace

std::string format_number(double x) {
  return std::string(py::str(py::float_(x).attr("__format__")(".6g")));
}

void bind_estimate_class(py::module_& m) {
  py::class_<PyEstimate>(
      m, "Estimate",
      "One estimate of log Z with its standard error, how that error was obtained, and "
      "diagnostics.\n\n"
      "log_z is log(Z1/Z0) for estimates on works (logz.estimate) and the target's absolute "
      "log Z for the estimates of a run (logz.run), where evidence holds log(Z/Z0). A standard "
      "error that cannot be estimated is NaN, with a flag saying why.")
      .def_property_readonly(
          "method", [](const PyEstimate& p) { return p.estimate.method; },
          "the estimator's name: 'ais', 'bar', 'rts', ...")
      .def_property_readonly(
          "log_z", [](const PyEstimate& p) { return p.estimate.log_z + p.base_log_z; },
          "the estimate: log(Z1/Z0) on works, the target's absolute log Z in a run's Result")
      .def_property_readonly(
          "evidence", [](const PyEstimate& p) { return p.estimate.log_z; },
          "log(Z1/Z0): the estimator's answer before the base's log Z0 is added")
      .def_property_readonly(
          "std_error", [](const PyEstimate& p) { return p.estimate.std_error; },
          "the standard error of log_z (NaN where it cannot be estimated, with a flag)")
      .def_property_readonly(
          "se_method", [](const PyEstimate& p) { return p.estimate.se_method; },
          "how std_error was obtained: 'delta', 'bar_asymptotic', 'between_chains', "
          "'posterior_sd', ...")
      .def_property_readonly(
          "diagnostics",
          [](const PyEstimate& p) { return diagnostics_dict(p.estimate.diagnostics); },
          "ess, overlap, iterations, converged and the estimator's own numbers")
      .def_property_readonly(
          "flags", [](const PyEstimate& p) { return p.estimate.diagnostics.flags; },
          "warnings such as 'low_ess', 'poor_overlap', 'heavy_tailed_weights'")
      .def(
          "to_dict",
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
          "The estimate as a dict (the fields of the JSON that `logz run --output` writes, plus "
          "method).")
      .def(
          "__float__", [](const PyEstimate& p) { return p.estimate.log_z + p.base_log_z; },
          "float(estimate) is its log_z")
      .def(py::pickle(
          [](const PyEstimate& p) { return py::bytes(estimate_state(p.estimate, p.base_log_z)); },
          [](const py::bytes& state) {
            auto [estimate, base_log_z] = estimate_from_state(std::string_view(state));
            return PyEstimate{std::move(estimate), base_log_z};
          }))
      .def("__repr__", &repr);
}

void bind_estimates(py::module_& m) {
  bind_estimate_class(m);
  const std::uint64_t default_seed = EstimatorOptions{}.seed;
  m.attr("_estimate_doc") = estimate_doc();
  m.attr("_estimate_default_seed") = default_seed;  // logz.estimate's default, shown by help()
  m.def("_estimate", &estimate_works, py::arg("function"), py::arg("method"),
        py::arg("forward") = py::none(), py::arg("reverse") = py::none(), py::kw_only(),
        py::arg("seed") = default_seed,
        "logz.estimate under the name of the function the user called (logz.estimate, logz.ais, "
        "logz.bar, ...), for errors: one logz.Estimate, or a dict of them by name for the methods "
        "of several estimates.");
}

}  // namespace logz::python
