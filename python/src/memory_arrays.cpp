#include "memory_arrays.hpp"

#include <pybind11/numpy.h>

#include <map>
#include <string>

#include "logz/core/error.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

io::Array to_io_array(const py::handle& value, const std::string& where, const char* function) {
  using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
  const Doubles a = Doubles::ensure(value);  // null (error cleared) when numpy cannot convert it
  if (!a) fail_argument(function, where, "an array of numbers");
  std::vector<std::size_t> shape(static_cast<std::size_t>(a.ndim()));
  for (py::ssize_t i = 0; i < a.ndim(); ++i)
    shape[static_cast<std::size_t>(i)] = static_cast<std::size_t>(a.shape(i));
  return io::Array(std::move(shape), std::vector<double>(a.data(), a.data() + a.size()));
}

}  // namespace

HeldArrays::HeldArrays(const py::object& arrays, const char* function) {
  if (arrays.is_none()) return;
  if (!py::isinstance<py::dict>(arrays))
    fail_argument(function, "arrays", "a dict {name: {key: array}}");
  for (const auto& [name, members] : arrays.cast<py::dict>()) {
    const std::string n = py::str(name);
    if (!py::isinstance<py::dict>(members))
      fail_argument(function, "arrays[" + n + "]", "a dict {key: array}");
    std::map<std::string, io::Array> held;
    for (const auto& [key, value] : members.cast<py::dict>()) {
      const std::string k = py::str(key);
      held.emplace(k, to_io_array(value, "arrays[" + n + "][" + k + "]", function));
    }
    archives_.push_back(std::make_unique<io::MemoryArchive>(n, std::move(held)));
  }
}

}  // namespace logz::python
