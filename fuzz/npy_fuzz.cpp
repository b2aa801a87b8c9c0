// .npy files: io::parse_npy on the bytes, io::read_npy on the same bytes as a file (its
// streaming path, sized by fstat), and, for an accepted file, the round trip through
// io::encode_npy: re-encoding what was read must give the same image again. The same file through
// io::NpyColumnReader (`logz estimate --u-kn`, column blocks read on demand): whatever it accepts
// read_npy accepts too, as the same 2-D float64 values.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npy_columns.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  const std::span<const unsigned char> bytes(data, size);
  io::Array parsed;
  const bool ok = fuzz::accepts([&] { parsed = io::parse_npy(bytes, "fuzz.npy"); });

  const fuzz::TempFile file("npy", ".npy", data, size);
  io::Array read;
  const bool read_ok = fuzz::accepts([&] { read = io::read_npy(file.path()); });
  fuzz::check(ok == read_ok, "parse_npy and read_npy agree on accepting a file");

  std::vector<double> columns;  // column by column, as the reader gives them
  std::size_t rows = 0, cols = 0;
  const bool columns_ok = fuzz::accepts([&] {
    io::NpyColumnReader reader(file.path(), 5);  // a tiny read-ahead: blocks cross its ends
    rows = reader.rows();
    cols = reader.cols();
    columns.resize(rows * cols);
    for (std::size_t j = 0; j < cols; j += 3)
      reader.read(j, std::min<std::size_t>(3, cols - j), columns.data() + j * rows);
  });
  if (columns_ok) {
    fuzz::check(ok && read.dtype() == io::Dtype::float64 &&
                    read.shape == std::vector<std::size_t>{rows, cols},
                "NpyColumnReader accepts only what read_npy reads as a 2-D float64 array");
    for (std::size_t j = 0; j < cols; ++j)
      for (std::size_t r = 0; r < rows; ++r)
        fuzz::check(
            std::memcmp(&columns[j * rows + r], &read.doubles()[r * cols + j], sizeof(double)) == 0,
            "NpyColumnReader reads read_npy's values");
  }
  if (!ok) return 0;
  fuzz::check(parsed.shape == read.shape && parsed.dtype() == read.dtype(),
              "parse_npy and read_npy read the same shape and dtype");

  const std::vector<unsigned char> image = io::encode_npy(parsed);
  fuzz::check(io::encode_npy(read) == image, "parse_npy and read_npy read the same data");
  const io::Array again = io::parse_npy(image, "round-trip.npy");  // must not throw
  fuzz::check(io::encode_npy(again) == image,
              "encode_npy(parse_npy(encode_npy(a))) == encode_npy(a)");
  (void)parsed.to_doubles();
  return 0;
}
