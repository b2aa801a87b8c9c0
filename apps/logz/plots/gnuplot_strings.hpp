// Strings we did not write ourselves (names and values read from result files and configs,
// file names) made safe for gnuplot scripts, data files and one-line errors. gnuplot runs
// every line of a script and substitutes `backquoted` commands inside double-quoted strings,
// so such strings only ever go into single-quoted ones (no substitution, no escapes), without
// line breaks or other control characters.
#pragma once

#include <string>
#include <string_view>

namespace logz::plots {

// One line of valid UTF-8: control characters written as escapes (\n, \t, \x1b, \u0085),
// bytes that are not UTF-8 as U+FFFD. For data-file comments and error messages.
std::string one_line(std::string_view text);

// one_line(text) as a single-quoted gnuplot string: '' is its only escape.
std::string gnuplot_string(std::string_view text);

// Shown text (a title, a label, a legend entry): gnuplot_string(text) marked `noenhanced`, so
// that it appears as written on enhanced-text terminals too, where _ ^ @ & ~ { } and \ are
// markup with rules that differ between labels and legends.
std::string gnuplot_text(std::string_view text);

// A file name as a single-quoted gnuplot string, with ./ before a name gnuplot would read as a
// pipe or as stdin (< | - +). An InputError "where: expected ..." for a control character,
// which a single-quoted string cannot hold.
std::string gnuplot_file_name(std::string_view name, std::string_view where);

// `text` as part of a file name: control characters become '_'.
std::string file_name_part(std::string_view text);

// A number for a script or a data file: "NaN" (the scripts' missing value) unless finite.
std::string gnuplot_number(double x);

}  // namespace logz::plots
