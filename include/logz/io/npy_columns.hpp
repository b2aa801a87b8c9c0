// Column blocks of a 2-D float64 .npy file, read on demand: MBAR's u_kn (states x samples) from
// disk, a block of samples at a time, so that an array larger than memory can be used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace logz::io {

class NpyColumnReader {
 public:
  // Opens path and reads its header. InputError naming the file unless it holds a 2-D float64
  // array ('<f8' on a little-endian host, '>f8' on a big-endian one; either memory order) whose
  // size the header and the file agree on. cache_values: the read-ahead of a C-order file (at
  // least one column's values are read at a time).
  explicit NpyColumnReader(const std::string& path,
                           std::size_t cache_values = std::size_t{1} << 20);

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }

  // Columns first .. first + count - 1 as a rows() x count column-major block in out. A C-order
  // file is read cache_values / rows() columns ahead, row by row (8 MB by default).
  // InputError naming the file, the row and the column of a value that is not finite (each
  // value is checked as it is first read), or on a read error.
  void read(std::size_t first, std::size_t count, double* out);

 private:
  void fill_cache(std::size_t first);
  void check_finite(const double* values, std::size_t count, std::size_t row, std::size_t col,
                    std::size_t row_step, std::size_t col_step) const;
  void read_at(std::uint64_t offset, void* to, std::size_t bytes);

  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::size_t rows_ = 0, cols_ = 0;
  bool fortran_order_ = false;
  std::uint64_t data_offset_ = 0;
  std::vector<double>
      cache_;  // C order: rows_ x cache_cols_ of columns cache_first_ ..., row-major
  std::size_t cache_first_ = 0, cache_count_ = 0, cache_cols_ = 0;
};

}  // namespace logz::io
