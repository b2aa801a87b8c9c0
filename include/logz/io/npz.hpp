// NumPy .npz archives: ZIP files whose members "key.npy" are .npy images, read and written
// through libzip. Reading accepts stored and deflated members (ZIP64 records included, and
// ZIP data preceded by other bytes, as in a self-extracting archive or one archive after
// another, whether its offsets count from the file's start or from its own: the archive of
// the last end record, as Python's zipfile and numpy.load read it),
// checks each member's sizes and .npy header against what the archive can hold before
// inflating anything, reads the data straight into the Array, and verifies every CRC-32;
// writing produces the archive numpy.savez (or savez_compressed) would.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "logz/io/array.hpp"

namespace logz::io {

// Reads every .npy member of an .npz archive, keyed by member name without ".npy", each in its
// own dtype. Members whose names do not end in ".npy" (and directories) are skipped. Throws a
// one-line InputError naming the file (and the member) when the archive or a member is
// malformed, fails its CRC check, appears twice (numpy.load would take the last), or claims
// more data than deflate can produce from its compressed size: such a claim is refused
// before anything is inflated or allocated.
std::map<std::string, Array> read_npz(const std::string& path);

// What a reader expects of a member's shape: called with the shape its .npy header declares,
// before the data are inflated or allocated; throws (an InputError naming the file and key)
// for a shape the reader cannot use, so that a wrong member costs nothing to refuse.
using ShapeCheck = std::function<void(const std::vector<std::size_t>& shape)>;

// Reads the one member "key.npy" (or "key") of an .npz archive. A missing key is an InputError
// naming the file and the key and listing the keys present.
Array read_npz_array(const std::string& path, const std::string& key, const ShapeCheck& check = {});

// Where read_npz_doubles puts a member's values: as many doubles as its shape holds, in C
// (row-major) order, or in Fortran (column-major, Eigen's) order when column_major.
struct DoublesPlace {
  std::span<double> values;
  bool column_major = false;
};
using DoublesTarget = std::function<DoublesPlace(const std::vector<std::size_t>& shape)>;

// The member `key` (as read_npz_array finds it) converted to float64 and read straight into
// the storage that target(shape) gives, called once the header's shape has passed `check` and
// matches the member's size: the data are held once, in that storage (an Eigen matrix of any
// dtype's member, in either memory order), not in an Array and then a copy.
void read_npz_doubles(const std::string& path, const std::string& key, const ShapeCheck& check,
                      const DoublesTarget& target);

// Writes arrays as "key.npy" members (each in its dtype, little-endian, C order), deflated
// when compress is true, else stored; libzip adds ZIP64 records only where sizes or offsets
// need them. The archive is written to a temporary file beside path and renamed into place,
// so a reader never sees half an archive (an empty map gives the 22-byte empty archive,
// written directly). Throws InvalidArgument for an empty key or a malformed Array (before
// anything is written), InputError if path cannot be written.
void write_npz(const std::string& path, const std::map<std::string, Array>& arrays,
               bool compress = false);

}  // namespace logz::io
