// A small owned N-dimensional array, the common currency of the .npy/.npz readers and writers.
// It keeps the element type of the file it came from (a '<f4' file gives a float32 array, a
// '|u1' file a uint8 one) in row-major (C) order, whatever the byte and memory order of the
// file. Callers that want doubles convert explicitly: to_float64() moves a float64 array's
// storage as it is (a '<f8' file is read without any conversion or copy), to_doubles() copies.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "logz/io/dtype.hpp"

namespace logz::io {

namespace detail {
template <typename Tuple>
struct VectorsOf;
template <typename... Ts>
struct VectorsOf<std::tuple<Ts...>> {
  using type = std::variant<std::vector<Ts>...>;
};
}  // namespace detail

struct Array {
  // One alternative per Dtype, in the same order: values.index() is the dtype.
  using Values = detail::VectorsOf<Elements>::type;

  std::vector<std::size_t> shape;  // empty for a 0-D (scalar) array
  Values values;                   // row-major (C order); size() == product of shape

  Array() = default;
  // The element type follows the vector; a braced list of numbers makes a float64 array:
  // Array{{2, 2}, {1, 2, 3, 4}}.
  template <Element T = double>
  Array(std::vector<std::size_t> shape_, std::vector<T> values_)
      : shape(std::move(shape_)), values(std::move(values_)) {}

  // An array of the given dtype and shape with every element zero.
  static Array zeros(Dtype dtype, std::vector<std::size_t> shape);

  Dtype dtype() const { return static_cast<Dtype>(values.index()); }

  // Number of elements.
  std::size_t size() const;
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

  // The stored elements, which must be of type T: InvalidArgument naming both dtypes otherwise.
  template <Element T>
  const std::vector<T>& elements() const {
    if (const auto* v = std::get_if<std::vector<T>>(&values)) return *v;
    fail_dtype(dtype_of<T>);
  }
  template <Element T>
  std::vector<T>& elements() {
    if (auto* v = std::get_if<std::vector<T>>(&values)) return *v;
    fail_dtype(dtype_of<T>);
  }
  // elements<double>(): the elements of a float64 array, without a copy.
  const std::vector<double>& doubles() const { return elements<double>(); }
  std::vector<double>& doubles() { return elements<double>(); }

  // Every element converted to double (64-bit integers beyond 2^53 rounded to nearest, bool as
  // 0 or 1); a copy even for a float64 array.
  std::vector<double> to_doubles() const;
  // This array as float64: its own storage, moved, when it already is float64; else converted.
  Array to_float64() &&;

  // The elements' bytes in host byte order.
  std::span<const std::byte> bytes() const;
  std::span<std::byte> bytes();

  bool operator==(const Array&) const = default;

 private:
  [[noreturn]] void fail_dtype(Dtype wanted) const;
};

// "784 x 500" for shape (784, 500), "3" for (3,), "scalar" for (); for error messages.
std::string shape_to_string(std::span<const std::size_t> shape);

// The number of elements of shape (1 for a 0-D shape); nullopt when it overflows size_t.
std::optional<std::size_t> element_count(std::span<const std::size_t> shape);

}  // namespace logz::io
