#include "logz/io/array.hpp"

#include <limits>

#include "logz/core/error.hpp"

namespace logz::io {

Array Array::zeros(Dtype dtype, std::vector<std::size_t> shape) {
  const std::optional<std::size_t> count = element_count(shape);
  if (!count) fail_argument("Array::zeros", "shape", "a shape whose size fits in memory");
  return detail::with_element_type(dtype, [&]<typename T>(std::type_identity<T>) {
    return Array(std::move(shape), std::vector<T>(*count));
  });
}

std::size_t Array::size() const {
  return std::visit([](const auto& v) { return v.size(); }, values);
}

std::vector<double> Array::to_doubles() const {
  return std::visit(
      []<typename T>(const std::vector<T>& v) {
        std::vector<double> out(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
          if constexpr (std::is_same_v<T, Bool>) {
            out[i] = v[i].value != 0 ? 1.0 : 0.0;
          } else {
            out[i] = static_cast<double>(v[i]);
          }
        }
        return out;
      },
      values);
}

Array Array::to_float64() && {
  if (dtype() == Dtype::float64) return std::move(*this);
  return Array(std::move(shape), to_doubles());
}

std::span<const std::byte> Array::bytes() const {
  return std::visit([](const auto& v) { return std::as_bytes(std::span(v)); }, values);
}

std::span<std::byte> Array::bytes() {
  return std::visit([](auto& v) { return std::as_writable_bytes(std::span(v)); }, values);
}

void Array::fail_dtype(Dtype wanted) const {
  fail_argument("io::Array", "values",
                std::string(dtype_name(wanted)) + " elements, got " +
                    std::string(dtype_name(dtype())) + " elements");
}

std::string shape_to_string(std::span<const std::size_t> shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += " x ";
    s += std::to_string(shape[i]);
  }
  return s;
}

std::optional<std::size_t> element_count(std::span<const std::size_t> shape) {
  std::size_t count = 1;
  bool overflow = false;
  for (std::size_t n : shape) {
    if (n == 0) return 0;  // a zero dimension empties the array, however large the others
    if (count > std::numeric_limits<std::size_t>::max() / n) overflow = true;
    count *= n;
  }
  if (overflow) return std::nullopt;
  return count;
}

}  // namespace logz::io
