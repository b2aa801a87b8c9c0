// A transient write failure on demand, for the tests of what logz writes: preloaded
// (LD_PRELOAD) into the tool, it makes fsync fail with EIO on every LOGZ_FAIL_FSYNC_EVERY-th
// call (default 2) whose file's path contains LOGZ_FAIL_FSYNC_MATCH, as a full disk or a lost
// NFS server would.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int fsync(int fd) {
  static auto* const real = reinterpret_cast<int (*)(int)>(dlsym(RTLD_NEXT, "fsync"));
  static std::atomic<long> calls{0};
  const char* match = getenv("LOGZ_FAIL_FSYNC_MATCH");
  if (match != nullptr && *match != '\0') {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0) {
      path[n] = '\0';
      const char* every_text = getenv("LOGZ_FAIL_FSYNC_EVERY");
      const long every = every_text != nullptr && atol(every_text) > 0 ? atol(every_text) : 2;
      if (strstr(path, match) != nullptr && ++calls % every == 0) {
        errno = EIO;
        return -1;
      }
    }
  }
  return real(fd);
}
