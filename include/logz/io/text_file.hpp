// Writing a whole text file (results, CSVs, plot scripts); a failure is an InputError naming it.
#pragma once

#include <string>

namespace logz::io {

void write_text_file(const std::string& path, const std::string& text);

// The same through PATH.tmp in the same folder: written, synced to disk, renamed over path, the
// folder synced; a kill at any moment leaves the old file or the new one, never a mix (for
// files a later run reads back, such as checkpoints). Needs a path that can be renamed over
// (not /dev/stdout).
void write_text_file_atomically(const std::string& path, const std::string& text);

}  // namespace logz::io
