#include "logz/io/npy_columns.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include "logz/core/error.hpp"
#include "logz/math/transpose_block.hpp"
#include "npy_stream.hpp"

namespace logz::io {

NpyColumnReader::NpyColumnReader(const std::string& path, std::size_t cache_values)
    : path_(path), file_(nullptr, &std::fclose) {
  errno = 0;
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) fail_input(path, "", std::string("a readable file (") + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(::fileno(file_.get()), &st) != 0 || !S_ISREG(st.st_mode))
    fail_input(path, "", "a regular .npy file (read in blocks, so not a pipe or a device)");
  const ByteSource source = [&](std::span<std::byte> dst) {
    errno = 0;
    const std::size_t got = std::fread(dst.data(), 1, dst.size(), file_.get());
    if (got < dst.size() && std::ferror(file_.get()))
      fail_input(path, "",
                 std::string("a readable file (") + std::strerror(errno != 0 ? errno : EIO) + ")");
    return got;
  };
  const NpyLayout layout =
      read_npy_layout({static_cast<std::uint64_t>(st.st_size), source, path, "file"});
  const bool host_order = layout.big_endian == (std::endian::native == std::endian::big);
  if (layout.dtype != Dtype::float64 || !host_order)
    fail_input(path, "descr",
               std::string("float64 in this machine's byte order ('") +
                   (std::endian::native == std::endian::big ? ">f8" : "<f8") + "')");
  if (layout.shape.size() != 2 || layout.shape[0] == 0 || layout.shape[1] == 0)
    fail_input(path, "shape", "a 2-D array (states, samples) with at least one of each");
  rows_ = layout.shape[0];
  cols_ = layout.shape[1];
  fortran_order_ = layout.fortran_order;
  data_offset_ = layout.data_offset;
  if (!fortran_order_ && rows_ > 0) cache_cols_ = std::max<std::size_t>(cache_values / rows_, 1);
}

void NpyColumnReader::read_at(std::uint64_t offset, void* to, std::size_t bytes) {
  auto* p = static_cast<char*>(to);
  while (bytes > 0) {
    const ssize_t got = ::pread(::fileno(file_.get()), p, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      fail_input(path_, "data",
                 got < 0 ? std::string("a readable file (") + std::strerror(errno) + ")"
                         : std::string("the data the header promised (the file shrank)"));
    p += got;
    offset += static_cast<std::uint64_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
}

void NpyColumnReader::check_finite(const double* values, std::size_t count, std::size_t row,
                                   std::size_t col, std::size_t row_step,
                                   std::size_t col_step) const {
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      fail_input(path_, "data",
                 "finite values, got " + std::to_string(values[i]) + " at row " +
                     std::to_string(row + i * row_step) + ", column " +
                     std::to_string(col + i * col_step));
}

void NpyColumnReader::fill_cache(std::size_t first) {
  cache_first_ = first;
  cache_count_ = std::min(cache_cols_, cols_ - first);
  cache_.resize(rows_ * cache_count_);
  for (std::size_t k = 0; k < rows_; ++k) {
    double* row = cache_.data() + k * cache_count_;
    read_at(data_offset_ + (static_cast<std::uint64_t>(k) * cols_ + first) * sizeof(double), row,
            cache_count_ * sizeof(double));
    check_finite(row, cache_count_, k, first, 0, 1);
  }
}

void NpyColumnReader::read(std::size_t first, std::size_t count, double* out) {
  if (first > cols_ || count > cols_ - first)
    fail_argument("logz::io::NpyColumnReader::read", "first, count", "columns inside the array");
  if (fortran_order_) {  // columns are contiguous: one read
    read_at(data_offset_ + static_cast<std::uint64_t>(first) * rows_ * sizeof(double), out,
            count * rows_ * sizeof(double));
    for (std::size_t j = 0; j < count; ++j)
      check_finite(out + j * rows_, rows_, 0, first + j, 1, 0);
    return;
  }
  for (std::size_t done = 0; done < count;) {
    const std::size_t col = first + done;
    if (col < cache_first_ || col >= cache_first_ + cache_count_) fill_cache(col);
    const std::size_t take = std::min(count - done, cache_first_ + cache_count_ - col);
    transpose_block(cache_.data() + (col - cache_first_), cache_count_, rows_, take,
                    out + done * rows_);
    done += take;
  }
}

}  // namespace logz::io
