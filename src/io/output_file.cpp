#include "logz/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "logz/core/error.hpp"

namespace logz::io {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& expectation) {
  throw InputError(path + ": expected " + expectation);
}

[[noreturn]] void fail_call(const std::string& path, const char* call, int err) {
  fail(path, std::string("a writable file (") + call + ": " + std::strerror(err) +
                 "; nothing was written under this name)");
}

// Every byte written, retrying short writes and EINTR; false with errno set on failure.
bool write_all(int fd, std::span<const unsigned char> bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A device or pipe (-o /dev/stdout): written in place, each write and the close checked.
void write_in_place(const std::string& path, std::span<const unsigned char> bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail_call(path, "open", errno);
  if (!write_all(fd, bytes)) {
    const int err = errno;
    ::close(fd);
    fail(path,
         std::string("a device or pipe that takes the output (write: ") + std::strerror(err) + ")");
  }
  if (::close(fd) != 0)
    fail(path, std::string("a device or pipe that takes the output (close: ") +
                   std::strerror(errno) + ")");
}

// The process's umask, read once (umask() can only be read by setting it).
mode_t file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

void write_replacing(const std::string& path, std::span<const unsigned char> bytes) {
  // mkostemp creates the file with O_CREAT | O_EXCL, which never follows a link.
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail_call(path, "creating a temporary file in its folder", errno);
  auto undo = [&](const char* call) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail_call(path, call, err);
  };
  if (::fchmod(fd, file_mode()) != 0) undo("fchmod");
  if (!write_all(fd, bytes)) undo("write");
  if (::fsync(fd) != 0) undo("fsync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail_call(path, "close", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail_call(path, "rename", err);
  }
  // The rename itself reaches the disk with the folder.
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

bool is_stream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

// A standard stream named explicitly (-o /dev/stdout > file): written in place whatever it is.
bool names_a_stream(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.starts_with("/dev/fd/") ||
         path.starts_with("/proc/self/fd/");
}

// How the destination is written: replaced, written in place, or refused (InputError).
enum class Write { replace, in_place };

Write check_destination(const std::string& path, OutputKind kind) {
  if (path.empty()) fail("\"\"", "a file name");
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) fail_call(path, "lstat", errno);
    return Write::replace;  // a new file
  }
  if (S_ISREG(link.st_mode)) return Write::replace;
  if (S_ISDIR(link.st_mode)) fail(path, "a file name, not a folder");
  const bool result = kind == OutputKind::result;
  if (S_ISLNK(link.st_mode)) {
    struct stat target {};
    if (result &&
        ((::stat(path.c_str(), &target) == 0 && is_stream(target.st_mode)) || names_a_stream(path)))
      return Write::in_place;
    fail(path,
         std::string("a regular file or a new name, not a symbolic link (logz replaces the ") +
             (result ? "file" : "checkpoint") + " it writes and never writes through a link)");
  }
  if (result && is_stream(link.st_mode)) return Write::in_place;
  fail(path, result
                 ? "a regular file, a device or a pipe"
                 : "a regular file (a checkpoint never replaces a device or anything but a file)");
}

}  // namespace

void check_output_file(const std::string& path, OutputKind kind) { check_destination(path, kind); }

void write_output_file(const std::string& path, std::span<const unsigned char> bytes,
                       OutputKind kind) {
  if (check_destination(path, kind) == Write::in_place) return write_in_place(path, bytes);
  write_replacing(path, bytes);
}

}  // namespace logz::io
