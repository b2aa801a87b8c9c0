// The continuous kernels a config, Python and `logz list` can name, in the order they are
// shown. A kernel is its header (the move, and beside it its name, summary, the
// ContinuousKernelOptions it reads as kOptions, from_options and describe) plus one line here;
// the services find it by name (services/families/continuous_family.hpp) and nothing else lists
// them.
#pragma once

#include <string_view>
#include <type_traits>

#include "logz/kernels/barker.hpp"
#include "logz/kernels/hais.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/kernels/mala.hpp"
#include "logz/kernels/random_walk_metropolis.hpp"

namespace logz {

template <class... K>
struct ContinuousKernelList {
  // f(std::type_identity<K>{}) for every kernel, in order.
  template <class F>
  static void for_each(F&& f) {
    (f(std::type_identity<K>{}), ...);
  }
  // f(std::type_identity<K>{}) for the kernel named `name`; false when there is none.
  template <class F>
  static bool visit(std::string_view name, F&& f) {
    return ((name == K::kName ? (f(std::type_identity<K>{}), true) : false) || ...);
  }
};

using ContinuousKernels = ContinuousKernelList<Hais, Hmc, RandomWalkMetropolis, Mala, Barker>;

}  // namespace logz
