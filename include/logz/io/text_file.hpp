// Writing a whole text file (results, CSVs, plot scripts); a failure is an InputError naming it.
#pragma once

#include <string>

namespace logz::io {

void write_text_file(const std::string& path, const std::string& text);

}  // namespace logz::io
