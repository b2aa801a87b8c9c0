#include "logz/io/memory_archive.hpp"

#include <mutex>

#include "logz/core/error.hpp"

namespace logz::io {

namespace {

constexpr std::string_view kPrefix = "memory:";

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, Array>> archives;  // by path
};

Registry& registry() {
  static Registry r;
  return r;
}

bool ends_with(const std::string& s, std::string_view end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

MemoryArchive::MemoryArchive(std::string name, std::map<std::string, Array> arrays)
    : path_(std::string(kPrefix) + name) {
  if (!ends_with(name, ".npz") && !ends_with(name, ".npy"))
    fail_argument("logz::io::MemoryArchive", "name",
                  "a name ending in .npz or .npy, got \"" + name + "\"");
  if (ends_with(name, ".npy") && arrays.size() != 1)
    fail_argument("logz::io::MemoryArchive", "arrays", "one array for an .npy name");
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.archives.emplace(path_, std::move(arrays)).second)
    fail_argument("logz::io::MemoryArchive", "name", "a name not in use, got \"" + name + "\"");
}

MemoryArchive::~MemoryArchive() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.archives.erase(path_);
}

bool is_memory_path(const std::string& path) { return path.starts_with(kPrefix); }

namespace {

const std::map<std::string, Array>& find(const Registry& r, const std::string& path) {
  const auto it = r.archives.find(path);
  if (it == r.archives.end())
    fail_input(path, "", "arrays held in memory by the front end, but none have that name");
  return it->second;
}

}  // namespace

std::map<std::string, Array> read_memory_archive(const std::string& path) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return find(r, path);
}

Array read_memory_array(const std::string& path, const std::string& key) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto& arrays = find(r, path);
  if (ends_with(path, ".npy")) return arrays.begin()->second;
  if (const auto it = arrays.find(key); it != arrays.end()) return it->second;
  std::string keys;
  for (const auto& [k, a] : arrays) keys += (keys.empty() ? "" : ", ") + k;
  fail_input(path, key, "an array named '" + key + "', got only the keys " + keys);
}

}  // namespace logz::io
