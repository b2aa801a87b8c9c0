// The one writer of every file logz writes: results, works CSVs, plot scripts, trained weights,
// samples, caches and checkpoints. A file is complete or absent: the bytes go to a temporary
// file created exclusively (never through a link) in the destination's folder, are written,
// synced and checked, then renamed over the destination; a failure removes the temporary file
// and leaves whatever was at the destination as it was.
//
// An existing destination must be a regular file. A result may also go to a device or pipe
// (-o /dev/stdout, a FIFO), written in place with every write checked; a checkpoint may not
// (`--checkpoint /dev/null` must not replace the device). A link is never followed to replace
// the file it names: only a link to a device or pipe, or a standard stream named as such
// (/dev/stdout, /dev/fd/N), is written through.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace logz::io {

enum class OutputKind {
  result,     // a regular file, or a device or pipe written in place
  checkpoint  // a regular file only
};

// Writes `bytes` as the whole file `path`; InputError naming the file and the reason (the
// destination's kind, or the call that failed and errno's message) on any failure.
void write_output_file(const std::string& path, std::span<const unsigned char> bytes,
                       OutputKind kind = OutputKind::result);

// The same checks of the destination, writing nothing (before a long run that writes there).
void check_output_file(const std::string& path, OutputKind kind = OutputKind::result);

inline void write_text_file(const std::string& path, std::string_view text,
                            OutputKind kind = OutputKind::result) {
  write_output_file(path, {reinterpret_cast<const unsigned char*>(text.data()), text.size()}, kind);
}

}  // namespace logz::io
