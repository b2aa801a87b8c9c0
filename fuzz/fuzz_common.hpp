// Shared by the libFuzzer harnesses (fuzz/*_fuzz.cpp, docs/fuzzing.md). A harness feeds one
// input to a parser of untrusted input; a logz::Error (InputError, InvalidArgument,
// NumericalError) is the parser's one-line rejection and is expected. Anything else escapes to
// libFuzzer and is a finding: another exception (std::bad_alloc, std::length_error,
// nlohmann::json's or toml++'s own), a crash, a hang, an allocation beyond -malloc_limit_mb, a
// leak or a sanitizer report.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "logz/core/error.hpp"

namespace logz::fuzz {

// Runs f, swallowing logz::Error only. Returns whether f returned normally.
template <class F>
bool accepts(F&& f) {
  try {
    std::forward<F>(f)();
    return true;
  } catch (const logz::Error&) {
    return false;
  }
}

// A property the harness checks beyond "no crash" (a round trip, an invariant): a violation
// aborts, which libFuzzer reports as a crash with the input that caused it.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "logz fuzz: property violated: %s\n", what);
    std::abort();
  }
}

// The input as a file, for the readers that take a path: written under the temporary folder
// ($TMPDIR or /tmp) with the process id in its name, so that parallel fuzzers never share one,
// and removed when the run is over.
class TempFile {
 public:
  TempFile(std::string_view tag, std::string_view suffix, const std::uint8_t* data,
           std::size_t size)
      : path_((std::filesystem::temp_directory_path() /
               ("logz-fuzz-" + std::to_string(::getpid()) + "-" + std::string(tag) +
                std::string(suffix)))
                  .string()) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) {
      std::perror(path_.c_str());
      std::abort();  // the harness cannot run: not a finding of the parser, but loud
    }
    if (size > 0 && std::fwrite(data, 1, size, f) != size) {
      std::perror(path_.c_str());
      std::abort();
    }
    std::fclose(f);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace logz::fuzz
