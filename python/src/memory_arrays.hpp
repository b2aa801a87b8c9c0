// numpy arrays that a config dict names as "memory:NAME.npz" (an archive of named arrays) or
// "memory:NAME.npy" (one array), held as io::MemoryArchives for the length of one call: the
// registry's models read them through the same .npz/.npy readers and checks as files
// (io/memory_archive.hpp). logz.models builds such configs from the user's arrays.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "logz/io/memory_archive.hpp"

namespace logz::python {

class HeldArrays {
 public:
  // arrays: None, or a dict {name: {key: array}}; each array converted once to float64.
  // `function` names the caller in errors.
  HeldArrays(const pybind11::object& arrays, const char* function);

 private:
  std::vector<std::unique_ptr<io::MemoryArchive>> archives_;
};

}  // namespace logz::python
