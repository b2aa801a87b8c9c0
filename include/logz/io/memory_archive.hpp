// Arrays a front end holds in memory (numpy arrays handed to the Python module) under a name,
// read wherever a config names an .npz or .npy file: the path "memory:NAME.npz" is an archive
// of named arrays, "memory:NAME.npy" one array. So every model of the registry that reads its
// parameters or data from files takes them from memory too, through the same readers and
// checks. The names are process-wide and live as long as their MemoryArchive.
#pragma once

#include <map>
#include <string>

#include "logz/io/array.hpp"

namespace logz::io {

// Registers `arrays` as "memory:name" for its lifetime (an .npy name holds one array, under any
// key). InvalidArgument if the name is taken or does not end in .npz or .npy.
class MemoryArchive {
 public:
  MemoryArchive(std::string name, std::map<std::string, Array> arrays);
  ~MemoryArchive();
  MemoryArchive(const MemoryArchive&) = delete;
  MemoryArchive& operator=(const MemoryArchive&) = delete;

  // "memory:" + name: the path a config gives.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whether path starts with "memory:".
bool is_memory_path(const std::string& path);

// The arrays of a registered memory path (a copy); InputError naming the path when none is.
std::map<std::string, Array> read_memory_archive(const std::string& path);
// One array of it (a copy): `key` of an .npz name, the one array of an .npy name (key unused).
// InputError naming the path and key, listing the keys present, when there is no such array.
Array read_memory_array(const std::string& path, const std::string& key);

}  // namespace logz::io
