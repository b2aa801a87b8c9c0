#include "logz/io/array.hpp"

namespace logz::io {

std::string shape_to_string(std::span<const std::size_t> shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += " x ";
    s += std::to_string(shape[i]);
  }
  return s;
}

}  // namespace logz::io
