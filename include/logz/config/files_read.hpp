// The files a run reads (weights, data, schedules: every file a config names), each with its
// fingerprint, its size and SHA-256, taken when the config first names it. A checkpoint keeps
// them, and a resume refuses a file that changed: a run must not mix two models or data sets.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace logz {

struct FileFingerprint {
  std::string path;  // as resolved from the config (absolute where the config's path was)
  std::uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex digits
  bool operator==(const FileFingerprint&) const = default;
};

// The fingerprint of the file at `path` now; InputError naming it when it cannot be read.
FileFingerprint fingerprint_file(const std::string& path);

class FilesRead {
 public:
  FilesRead() = default;
  explicit FilesRead(std::vector<FileFingerprint> files) : files_(std::move(files)) {}
  // A file the run is about to read: fingerprinted unless already known. Thread-safe.
  void add(const std::string& path);
  std::vector<FileFingerprint> files() const;
  // InputError naming the first file that is missing or differs from its fingerprint, and
  // `checkpoint`, the file that recorded it.
  void check_unchanged(const std::string& checkpoint) const;

 private:
  mutable std::mutex mutex_;
  std::vector<FileFingerprint> files_;
};

}  // namespace logz
