// Reading user work files: a list of finite numbers from a .npy array or from text with one
// number per line. Text may carry blank lines, '#' comments, CRLF line endings and, as in a
// one-column CSV, a single non-numeric header line before the first number.
#pragma once

#include <string>
#include <vector>

namespace logz::io {

// Reads the numbers in path. A file ending in ".npy" (or starting with the .npy magic) must
// hold a 1-D array, or a 2-D array with one row or one column. Any other file is text: every
// non-blank, non-comment line after the optional header must parse completely as a finite
// number. Throws InputError such as "works.txt:17: expected a finite number, got 'abc'", and
// for an unreadable file or one holding no numbers.
std::vector<double> read_numbers(const std::string& path);

}  // namespace logz::io
