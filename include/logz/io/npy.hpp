// NumPy .npy files (format versions 1.0, 2.0 and 3.0). Reading accepts float64, float32,
// int8-64, uint8-64 and bool in any byte order and either memory order, and gives a C-order
// Array of the file's dtype; writing produces the Array's dtype, little-endian, C order,
// version 1.0 (what numpy.save writes).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "logz/io/array.hpp"

namespace logz::io {

// Reads and parses a .npy file. Throws InputError naming the file when it cannot be read or is
// malformed (bad magic, truncated header or data, unsupported dtype, a key repeated in the
// header, shape/size mismatch); a shape claiming more data than the file holds is refused
// before anything is allocated for it. A little-endian C-order file is read straight into the
// Array's storage.
Array read_npy(const std::string& path);

// Parses the bytes of a .npy file; source_name prefixes every error message.
Array parse_npy(std::span<const unsigned char> bytes, const std::string& source_name);

// Encodes a as a version 1.0 little-endian C-order .npy image of its dtype ('<f8' for float64,
// '|u1' for uint8, ...), header padded with spaces and a newline to a multiple of 64 bytes as
// NumPy does. Throws InvalidArgument if a.size() is not the product of a.shape.
std::vector<unsigned char> encode_npy(const Array& a);

// Writes encode_npy(a) to path; throws InputError if the file cannot be written.
void write_npy(const std::string& path, const Array& a);

// Whole-file helpers shared by the io readers and writers. Errors are InputError
// "path: expected a readable file (reason)" / "path: expected a writable file (reason)".
std::vector<unsigned char> read_file_bytes(const std::string& path);
void write_file_bytes(const std::string& path, std::span<const unsigned char> bytes);

}  // namespace logz::io
