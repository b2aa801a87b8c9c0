// How a type opts into an optional fast path: it declares `static constexpr bool NAME = true;`.
// declared<T>(flag) reads the flag through `flag`, a generic lambda
// []<class U>() -> decltype(U::NAME) { return U::NAME; }, and is false when T has no member NAME.
// A flag of any other type than bool is a compile error, so a typo in its type cannot silently
// turn the fast path off; each concept's header checks the members its flag promises.
#pragma once

#include <type_traits>

namespace logz {

template <class T, class Flag>
consteval bool declared(Flag flag) {
  if constexpr (requires { flag.template operator()<T>(); }) {
    static_assert(std::is_same_v<decltype(flag.template operator()<T>()), bool>,
                  "an opt-in flag must be declared `static constexpr bool NAME = ...;`");
    return flag.template operator()<T>();
  } else {
    return false;
  }
}

}  // namespace logz
