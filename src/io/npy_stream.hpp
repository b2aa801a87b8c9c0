// The streaming core of the .npy reader and the header half of the .npy writer, shared by
// npy.cpp and npz.cpp: an .npz member is read straight from libzip's inflate stream into the
// Array's storage, and written from it, with no intermediate copy of the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "logz/io/array.hpp"

namespace logz::io {

// Fills up to dst.size() bytes and says how many it filled: fewer only at the end of the
// stream. Throws InputError naming the source on a read error.
using ByteSource = std::function<std::size_t(std::span<std::byte> dst)>;

// A .npy image of `size` bytes (what a file's size or an archive's directory says) to be read
// from `read`; `container` names what was sized ("file", "archive member") in messages.
struct NpyStream {
  std::uint64_t size = 0;
  ByteSource read;
  std::string source;
  std::string container = "file";
  std::function<void(const std::vector<std::size_t>& shape)>
      check;  // if set: the header's shape, before the data
};

// What a .npy header says of its data: dtype, byte and memory order, shape, and where the
// data start and how many bytes they take.
struct NpyLayout {
  Dtype dtype = Dtype::float64;
  bool big_endian = false, fortran_order = false;
  std::vector<std::size_t> shape;
  std::uint64_t data_offset = 0, data_bytes = 0;
};

// Reads a .npy image's magic, version and header from `stream`, and checks the data size they
// imply against stream.size (InputError as read_npy_stream), leaving the stream at the data.
NpyLayout read_npy_layout(const NpyStream& stream);

// Reads a .npy image. The header is parsed and the data size it implies checked against
// stream.size before anything is allocated for the data, which are then read straight into
// the Array's storage (no conversion for a little-endian C-order file on this host). One byte
// more is then asked for: a stream longer than its size is refused (and libzip checks a
// member's CRC-32 on reaching its end).
Array read_npy_stream(const NpyStream& stream);

// Reads the data of a .npy image whose header read_npy_layout has just read, converted to
// float64, into dst (as many values as layout.shape holds: InvalidArgument otherwise): in C
// order, or in Fortran (column-major, Eigen's) order when column_major, whatever the file's
// order, dtype and byte order. The data pass through a buffer of 1 MiB: no other copy of them
// is made. The end of the stream is checked as by read_npy_stream.
void read_npy_doubles(const NpyStream& stream, const NpyLayout& layout, std::span<double> dst,
                      bool column_major);

// Magic, version, header length and header dict of the .npy image of a, in its dtype,
// version 1.0 unless the dict needs more, padded to 64 bytes as NumPy does. Throws
// InvalidArgument if a.size() is not the product of a.shape.
std::vector<unsigned char> encode_npy_header(const Array& a);

}  // namespace logz::io
