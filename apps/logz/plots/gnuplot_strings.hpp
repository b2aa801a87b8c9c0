// Strings we did not write ourselves (names and values read from result files and configs,
// file names) made safe for gnuplot scripts, data files and one-line errors. gnuplot runs
// every line of a script, substitutes `backquoted` commands and @macros on it, and misreads ''
// after a quote in single-quoted strings (5.4): such strings go into double-quoted ones with
// every ASCII character but letters, digits, the space and . _ - / , : + = ( ) as an octal
// escape (\0047 for '), so that no quote, backquote, @, #, $ or brace is ever on the line, and
// without line breaks or other control characters.
#pragma once

#include <string>
#include <string_view>

namespace logz::plots {

// One line of valid UTF-8: control characters written as escapes (\n, \t, \x1b, \u0085),
// bytes that are not UTF-8 as U+FFFD. For data-file comments and error messages.
std::string one_line(std::string_view text);

// one_line(text) as a double-quoted gnuplot string of escapes: "it\0047s" for it's.
std::string gnuplot_string(std::string_view text);

// Shown text (a title, a label, a legend entry): gnuplot_string(text) marked `noenhanced`, so
// that it appears as written on enhanced-text terminals too, where _ ^ @ & ~ { } and \ are
// markup with rules that differ between labels and legends.
std::string gnuplot_text(std::string_view text);

// A file name as gnuplot_string writes it, with ./ before every relative name (gnuplot reads
// one starting with < or | as a pipe, - or + as stdin, $ as a datablock). An InputError
// "where: expected ..." for a control character, which gnuplot cannot open as written.
std::string gnuplot_file_name(std::string_view name, std::string_view where);

// `text` as part of a file name: control characters become '_'.
std::string file_name_part(std::string_view text);

// A number for a script or a data file: "NaN" (the scripts' missing value) unless finite.
std::string gnuplot_number(double x);

}  // namespace logz::plots
