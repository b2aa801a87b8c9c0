// A small owned N-dimensional array of doubles, the common currency of the .npy/.npz readers
// and writers. Data are always held as double in row-major (C) order, whatever the element
// type and memory order of the file they came from.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace logz::io {

struct Array {
  std::vector<std::size_t> shape;  // empty for a 0-D (scalar) array
  std::vector<double> data;        // row-major (C order); size() == product of shape

  // Number of elements (data.size()).
  std::size_t size() const { return data.size(); }
  // Number of dimensions (shape.size()).
  std::size_t ndim() const { return shape.size(); }
  // Leading dimension: shape[0]; 1 for a 0-D array. A 1-D array of length n is n x 1.
  std::size_t rows() const { return shape.empty() ? 1 : shape[0]; }
  // Product of the trailing dimensions shape[1..]; 1 for 0-D and 1-D arrays.
  std::size_t cols() const {
    std::size_t c = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) c *= shape[i];
    return c;
  }

  bool operator==(const Array&) const = default;
};

// "784 x 500" for shape (784, 500), "3" for (3,), "scalar" for (); for error messages.
std::string shape_to_string(std::span<const std::size_t> shape);

}  // namespace logz::io
