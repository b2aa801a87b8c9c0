#include "config_dict.hpp"

#include <pybind11/stl.h>

#include "logz/config/value.hpp"
#include "logz/core/error.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// A Python value of a config dict as a config Value; `where` names it in errors.
Value to_value(const py::handle& x, const std::string& where, const std::string& function) {
  auto fail = [&](const std::string& what) {
    fail_argument(function, "config", what + " (at " + where + ")");
  };
  if (x.is_none()) fail("no None values");
  if (py::isinstance<py::bool_>(x)) return Value(x.cast<bool>());
  if (py::isinstance<py::int_>(x)) return Value(x.cast<long long>());
  if (py::isinstance<py::float_>(x)) return Value(x.cast<double>());
  if (py::isinstance<py::str>(x)) return Value(x.cast<std::string>());
  if (py::isinstance<py::dict>(x)) {
    Record r;
    for (const auto& [k, v] : x.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k)) fail("string keys");
      const std::string key = k.cast<std::string>();
      r.set(key, to_value(v, where.empty() ? key : where + "." + key, function));
    }
    return Value(std::move(r));
  }
  if (py::hasattr(x, "tolist"))
    return to_value(x.attr("tolist")(), where, function);  // numpy arrays and scalars
  if (py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x)) {
    Value::Array a;
    std::size_t i = 0;
    for (const auto& item : x)
      a.push_back(to_value(item, where + "[" + std::to_string(i++) + "]", function));
    return Value(std::move(a));
  }
  fail("numbers, strings, booleans, lists and dicts, got " +
       std::string(py::str(py::type::of(x).attr("__name__"))));
  return {};
}

}  // namespace

Config load_config(const py::object& config, const std::string& function) {
  if (py::isinstance<py::dict>(config)) {
    Value sections = to_value(config, "", function);
    return Config::from_record(std::move(sections.as_record()), function + " config");
  }
  const py::object os = py::module_::import("os");
  if (py::isinstance<py::str>(config) || py::isinstance(config, os.attr("PathLike")))
    return Config::from_file(py::str(os.attr("fspath")(config)).cast<std::string>());
  fail_argument(function, "config",
                "a dict with the TOML's [section] structure, or a path to a TOML file");
}

}  // namespace logz::python
