#include "logz/io/dtype.hpp"

#include <array>

namespace logz::io {

std::string_view dtype_name(Dtype dtype) {
  static constexpr std::array<std::string_view, kNumDtypes> kNames = {
      "float64", "float32", "int64",  "int32", "int16", "int8",
      "uint64",  "uint32",  "uint16", "uint8", "bool"};
  return kNames[static_cast<std::size_t>(dtype)];
}

std::size_t dtype_size(Dtype dtype) {
  return detail::with_element_type(dtype,
                                   []<typename T>(std::type_identity<T>) { return sizeof(T); });
}

}  // namespace logz::io
