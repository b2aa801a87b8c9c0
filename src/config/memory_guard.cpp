#include "logz/config/memory_guard.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "logz/core/error.hpp"

namespace logz {

double usable_memory_bytes() {
  double bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (rlimit limit{}; getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = std::min(bytes, static_cast<double>(limit.rlim_cur));
  // LOGZ_MEMORY_LIMIT (bytes, or with a K, M or G suffix): a cap of one's own, on a shared machine.
  if (const char* env = std::getenv("LOGZ_MEMORY_LIMIT"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    double cap = std::strtod(env, &end);
    const std::string unit(end);
    if (unit == "K" || unit == "k")
      cap *= 1024.0;
    else if (unit == "M" || unit == "m")
      cap *= 1024.0 * 1024;
    else if (unit == "G" || unit == "g")
      cap *= 1024.0 * 1024 * 1024;
    else if (!unit.empty())
      cap = -1.0;
    if (!(cap > 0.0) || !std::isfinite(cap))
      throw InputError(fmt::format(
          "LOGZ_MEMORY_LIMIT={}: expected a number of bytes > 0, optionally with K, M or G", env));
    bytes = std::min(bytes, cap);
  }
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  if (std::string max; cgroup >> max && max != "max") {
    try {
      bytes = std::min(bytes, std::stod(max));
    } catch (const std::exception&) {
    }
  }
  return bytes;
}

std::string describe_bytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.3g} GiB", bytes / (1024.0 * 1024 * 1024));
  return fmt::format("{:.3g} MiB", bytes / (1024.0 * 1024));
}

double memory_budget_bytes() { return 0.8 * usable_memory_bytes(); }

namespace {

// The expectation of the errors below, or "" when `bytes` fits.
std::string too_big(double bytes, const std::string& what) {
  const double usable = usable_memory_bytes();
  if (bytes <= memory_budget_bytes()) return "";
  return fmt::format(
      "a value that fits in memory ({} would need about {}; this process may use {})", what,
      describe_bytes(bytes), describe_bytes(usable));
}

}  // namespace

void check_fits_in_memory(const std::string& where, double bytes, const std::string& what) {
  if (const std::string e = too_big(bytes, what); !e.empty())
    throw InputError(fmt::format("{}: expected {}", where, e));
}

void check_fits_in_memory(const ConfigSection& section, const std::string& key, double bytes,
                          const std::string& what) {
  if (const std::string e = too_big(bytes, what); !e.empty()) section.fail(key, e);
}

void check_fits_in_memory(const ConfigSection& section, const Key& key, double bytes,
                          const std::string& what) {
  check_fits_in_memory(section, key.name(), bytes, what);
}

}  // namespace logz
