#include "logz/io/text_file.hpp"

#include <fstream>

#include "logz/core/error.hpp"

namespace logz::io {

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": expected a writable output file");
  out << text;
  if (!out) throw InputError(path + ": expected a writable output file (write failed)");
}

}  // namespace logz::io
