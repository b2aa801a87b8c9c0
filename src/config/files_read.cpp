#include "logz/config/files_read.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "logz/core/error.hpp"

namespace logz {

FileFingerprint fingerprint_file(const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (!file)
    throw InputError(fmt::format("{}: expected a readable file ({})", path, std::strerror(errno)));
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> sha(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!sha || EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr) != 1)
    throw InputError(fmt::format("{}: cannot compute its SHA-256 (OpenSSL)", path));
  FileFingerprint f{.path = path};
  std::vector<unsigned char> buffer(1 << 20);
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get())) {
    EVP_DigestUpdate(sha.get(), buffer.data(), n);
    f.size += n;
  }
  if (std::ferror(file.get()))
    throw InputError(fmt::format("{}: expected a readable file (read failed)", path));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(sha.get(), digest, &length);
  for (unsigned int i = 0; i < length; ++i) f.sha256 += fmt::format("{:02x}", digest[i]);
  return f;
}

void FilesRead::add(const std::string& path) {
  {
    const std::lock_guard lock(mutex_);
    if (std::any_of(files_.begin(), files_.end(), [&](const auto& f) { return f.path == path; }))
      return;
  }
  FileFingerprint f;
  try {
    f = fingerprint_file(path);
  } catch (const InputError&) {
    return;  // a file that cannot be read: its reader says so, naming the key
  }
  const std::lock_guard lock(mutex_);
  if (std::none_of(files_.begin(), files_.end(), [&](const auto& g) { return g.path == path; }))
    files_.push_back(std::move(f));
}

std::vector<FileFingerprint> FilesRead::files() const {
  const std::lock_guard lock(mutex_);
  return files_;
}

void FilesRead::check_unchanged(const std::string& checkpoint) const {
  for (const FileFingerprint& then : files()) {
    FileFingerprint now;
    try {
      now = fingerprint_file(then.path);
    } catch (const InputError&) {
      throw InputError(fmt::format(
          "{}: expected the file that the run saved in {} read (it is gone or unreadable "
          "now); restore it, or start the run again without --resume",
          then.path, checkpoint));
    }
    if (now != then)
      throw InputError(fmt::format(
          "{}: changed since the run saved in {} read it ({} bytes, SHA-256 {}..., now {} "
          "bytes, {}...): expected the same file; restore it, or start the run again "
          "without --resume",
          then.path, checkpoint, then.size, then.sha256.substr(0, 12), now.size,
          now.sha256.substr(0, 12)));
  }
}

}  // namespace logz
