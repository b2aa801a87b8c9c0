#include "arrays.hpp"

#include <algorithm>

#include "logz/core/error.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(a.shape(i));
  }
  return s + (a.ndim() == 1 ? ",)" : ")");
}

}  // namespace

DoubleArray as_array(const py::handle& value, int ndim, const char* function, const char* argument,
                     const char* shape) {
  auto where = [&] { return std::string("logz.") + function; };
  const DoubleArray a =
      DoubleArray::ensure(value);  // empty (error cleared) if numpy cannot convert
  if (!a)
    fail_argument(where(), argument,
                  std::string("an array of numbers of shape ") + shape + ", got a " +
                      std::string(py::str(py::type::of(value).attr("__name__"))));
  if (a.ndim() != ndim)
    fail_argument(where(), argument,
                  std::string("an array of shape ") + shape + ", got shape " + shape_text(a));
  return a;
}

py::array_t<double> to_numpy(const std::vector<double>& values) {
  py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace logz::python
