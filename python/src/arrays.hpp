// numpy arrays in and out: float64 C-contiguous input is viewed without a copy, anything else
// that numpy can convert (lists, other dtypes, strided views) is converted once; a wrong shape
// is an InvalidArgument naming the argument and the expected shape.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <span>
#include <string>
#include <vector>

namespace logz::python {

using DoubleArray =
    pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>;

// `value` as a float64 C-contiguous array of `ndim` dimensions (converted once if need be).
// `function`, `argument` and `shape` ("(N,)", "(K, N)") name it in errors.
DoubleArray as_array(const pybind11::handle& value, int ndim, const char* function,
                     const char* argument, const char* shape);

// A 1-D array's values, viewed (the array must outlive the span).
inline std::span<const double> view(const DoubleArray& a) {
  return {a.data(), static_cast<std::size_t>(a.size())};
}

// A copy of `values` as a new 1-D numpy array.
pybind11::array_t<double> to_numpy(const std::vector<double>& values);

}  // namespace logz::python
