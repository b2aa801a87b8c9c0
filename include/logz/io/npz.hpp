// NumPy .npz archives: ZIP files whose members "key.npy" are .npy images. Reading walks the
// central directory, accepts stored and deflated members (including the ZIP64 records NumPy
// writes) and verifies every CRC-32; writing produces a plain ZIP that numpy.load reads.
#pragma once

#include <map>
#include <string>

#include "logz/io/array.hpp"

namespace logz::io {

// Reads every .npy member of an .npz archive, keyed by member name without ".npy". Members
// whose names do not end in ".npy" (and directories) are skipped. Throws InputError naming the
// file (and the member) when the archive or a member is malformed or fails its CRC check.
std::map<std::string, Array> read_npz(const std::string& path);

// Reads the one member "key.npy" (or "key") of an .npz archive. A missing key is an InputError
// naming the file and the key and listing the keys present.
Array read_npz_array(const std::string& path, const std::string& key);

// Writes arrays as "key.npy" members ('<f8', C order), deflated when compress is true, else
// stored; ZIP64 records are added only where sizes or offsets need them (4 GiB and beyond).
// Throws InvalidArgument for an empty key or a malformed Array, InputError if path cannot be
// written.
void write_npz(const std::string& path, const std::map<std::string, Array>& arrays,
               bool compress = false);

}  // namespace logz::io
