// Refusing, before it starts, a run whose config asks for more memory than the machine has
// (a key in range can still ask for gigabytes: 2^31 paths, 10^8 temperatures, a 32768^2
// lattice): one error naming the key, not a std::bad_alloc after minutes of work.
#pragma once

#include <cstdint>
#include <string>

#include "logz/config/config.hpp"

namespace logz {

// The memory this process may use, in bytes: the machine's physical memory, or less under a
// `ulimit -v` (RLIMIT_AS), a cgroup v2 limit (memory.max) or the environment variable
// LOGZ_MEMORY_LIMIT (bytes, or a number with K, M or G: "8G").
double usable_memory_bytes();
// The most a run may plan to use: 80% of usable_memory_bytes() (the rest for what it does not
// count: the process, libraries, small buffers).
double memory_budget_bytes();

// What the works estimators keep per histogram bin (counts, edges, weights, their posterior
// state) and per kept draw of histogram_posterior (the draw and its sorted copy).
inline constexpr double kBytesPerHistogramBin = 64.0;
inline constexpr double kBytesPerPosteriorDraw = 16.0;

// Throws InputError "<where>: expected ..." as check_fits_in_memory below, for options that
// are not config keys (`logz estimate --histogram-bins`).
void check_fits_in_memory(const std::string& where, double bytes, const std::string& what);

// "1.5 GiB", "300 MiB".
std::string describe_bytes(double bytes);

// Fails on `key` of `section` ("<source>: [section] key: expected a value whose <what> fits in
// memory ...") when `bytes`, the memory the key's value makes a run need, is over
// memory_budget_bytes().
void check_fits_in_memory(const ConfigSection& section, const Key& key, double bytes,
                          const std::string& what);
void check_fits_in_memory(const ConfigSection& section, const std::string& key, double bytes,
                          const std::string& what);

}  // namespace logz
