// The element types an io::Array can hold: the NumPy dtypes float64, float32, int8-64,
// uint8-64 and bool, each tied to its C++ type by one list (Elements) so that the enum, the
// storage variant of io::Array and the .npy descriptors cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace logz::io {

// NumPy's bool: one byte, 0 or 1. Its own type so that a bool array is not a uint8 array.
struct Bool {
  std::uint8_t value = 0;
  bool operator==(const Bool&) const = default;
};

// The C++ element types, in the order of Dtype.
using Elements = std::tuple<double, float, std::int64_t, std::int32_t, std::int16_t, std::int8_t,
                            std::uint64_t, std::uint32_t, std::uint16_t, std::uint8_t, Bool>;

enum class Dtype {
  float64,
  float32,
  int64,
  int32,
  int16,
  int8,
  uint64,
  uint32,
  uint16,
  uint8,
  boolean
};

inline constexpr std::size_t kNumDtypes = std::tuple_size_v<Elements>;

namespace detail {
template <typename T, std::size_t I = 0>
constexpr std::size_t element_index() {
  if constexpr (I == kNumDtypes) {
    return I;
  } else if constexpr (std::is_same_v<T, std::tuple_element_t<I, Elements>>) {
    return I;
  } else {
    return element_index<T, I + 1>();
  }
}

// Calls f(std::type_identity<T>{}) with the element type T of dtype.
template <std::size_t I = 0, typename F>
decltype(auto) with_element_type(Dtype dtype, F&& f) {
  if constexpr (I + 1 == kNumDtypes) {
    return f(std::type_identity<std::tuple_element_t<I, Elements>>{});
  } else {
    if (static_cast<std::size_t>(dtype) == I) {
      return f(std::type_identity<std::tuple_element_t<I, Elements>>{});
    }
    return with_element_type<I + 1>(dtype, std::forward<F>(f));
  }
}
}  // namespace detail

// A type an Array can hold.
template <typename T>
concept Element = detail::element_index<T>()
< kNumDtypes;

// The dtype of element type T, and the element type of dtype D.
template <Element T>
inline constexpr Dtype dtype_of = static_cast<Dtype>(detail::element_index<T>());
template <Dtype D>
using element_t = std::tuple_element_t<static_cast<std::size_t>(D), Elements>;

// "float64", "uint8", "bool", ... as NumPy names them.
std::string_view dtype_name(Dtype dtype);

// Bytes per element: 8 for float64, 1 for uint8 and bool, ...
std::size_t dtype_size(Dtype dtype);

}  // namespace logz::io
