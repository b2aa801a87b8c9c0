// A batch's particles as bytes, for checkpoints of runs that keep chain states between sweeps
// (simulated tempering). A batch opts in by naming the arrays that hold its state:
//
//   template <class F> void for_each_state_array(F&& f);  // f(std::span<T>) per array, T
//   arithmetic void state_restored();                                 // optional: drop caches
//   computed from them
//
// Caches left out must be recomputed from the state with the same bits (the same function of
// the same particle at the same batch size); those kept up to date by sums are state.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace logz {

namespace detail {
struct StateArrayProbe {
  template <class T>
  void operator()(std::span<T>) const {}
};
}  // namespace detail

template <class Batch>
concept CheckpointableBatch = requires(Batch& b) {
  b.for_each_state_array(detail::StateArrayProbe{});
};

// The bytes of every state array, in order. (The visitor only reads: a batch has one visitor,
// not a const one beside it.)
template <CheckpointableBatch Batch>
std::string batch_state_bytes(const Batch& batch) {
  std::string out;
  const_cast<Batch&>(batch).for_each_state_array([&](auto array) {
    out.append(reinterpret_cast<const char*>(array.data()), array.size_bytes());
  });
  return out;
}

// Overwrites the state of `batch` (made with the shape of the one saved) with `bytes`; false,
// changing nothing, when their length is not the batch's.
template <CheckpointableBatch Batch>
bool restore_batch_state(Batch& batch, std::string_view bytes) {
  std::size_t total = 0;
  batch.for_each_state_array([&](auto array) { total += array.size_bytes(); });
  if (total != bytes.size()) return false;
  std::size_t at = 0;
  batch.for_each_state_array([&](auto array) {
    if (array.size_bytes() > 0) std::memcpy(array.data(), bytes.data() + at, array.size_bytes());
    at += array.size_bytes();
  });
  if constexpr (requires { batch.state_restored(); }) batch.state_restored();
  return true;
}

}  // namespace logz
