// The strings of the command-line tool's gnuplot scripts (apps/logz/plots/gnuplot_strings.hpp):
// text from files cannot end a script line, substitute a command or open a pipe, and shows
// as it was written.
#include "plots/gnuplot_strings.hpp"

#include <gtest/gtest.h>

#include "logz/core/error.hpp"

namespace {

using logz::plots::file_name_part;
using logz::plots::gnuplot_file_name;
using logz::plots::gnuplot_string;
using logz::plots::gnuplot_text;
using logz::plots::one_line;

TEST(GnuplotStrings, OneLineShowsControlCharactersAsEscapesAndBadBytesAsReplacement) {
  EXPECT_EQ(one_line("a\nb\r\tc"), "a\\nb\\r\\tc");
  EXPECT_EQ(one_line(std::string("x\0y\x1b\x7f", 5)), "x\\x00y\\x1b\\x7f");
  EXPECT_EQ(one_line("\xC2\x85"), "\\u0085");  // NEL, a C1 control
  EXPECT_EQ(one_line("β ± →"), "β ± →");       // UTF-8 stays
  // A lone continuation byte, a truncated sequence, an overlong '/', a surrogate.
  EXPECT_EQ(one_line("a\x80"
                     "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(one_line("\xE2\x86"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(one_line("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(one_line("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(GnuplotStrings, TextIsDoubleQuotedWithEscapesAndNotEnhanced) {
  // Every quote, backquote, backslash, @, # and brace is an octal escape (\0 and three digits:
  // a digit after it is not read into it): nothing for gnuplot's line scanners to act on.
  EXPECT_EQ(gnuplot_string("it's `touch x` \\"), "\"it\\0047s \\0140touch x\\0140 \\0134\"");
  // A line break would end the script line: shown as \n.
  EXPECT_EQ(gnuplot_string("x\nsystem 'touch y'"), "\"x\\0134nsystem \\0047touch y\\0047\"");
  // '' after a quote, which gnuplot 5.4 misreads in a single-quoted string.
  EXPECT_EQ(gnuplot_string("''a''"), "\"\\0047\\0047a\\0047\\0047\"");
  EXPECT_EQ(gnuplot_string("@m #c $d \"q\" =1"), "\"\\0100m \\0043c \\0044d \\0042q\\0042 =1\"");
  EXPECT_EQ(gnuplot_string("β ± 1.5e-3 (x/y), a_b:c+d"), "\"β ± 1.5e-3 (x/y), a_b:c+d\"");
  // Enhanced-text markup is shown as written.
  EXPECT_EQ(gnuplot_text("a_b^c@d&e~f{g}"),
            "\"a_b\\0136c\\0100d\\0046e\\0176f\\0173g\\0175\" noenhanced");
}

TEST(GnuplotStrings, FileNamesAreQuotedAndNeverAPipe) {
  // A relative name always starts with ./: never a pipe (< |), stdin (- +) or a datablock ($).
  EXPECT_EQ(gnuplot_file_name("work_histograms", "w.gp"), "\"./work_histograms\"");
  EXPECT_EQ(gnuplot_file_name("/data/q'`x`.csv", "w.gp"), "\"/data/q\\0047\\0140x\\0140.csv\"");
  EXPECT_EQ(gnuplot_file_name("<touch x", "w.gp"), "\"./\\0074touch x\"");
  EXPECT_EQ(gnuplot_file_name("|touch x", "w.gp"), "\"./\\0174touch x\"");
  EXPECT_EQ(gnuplot_file_name("-", "w.gp"), "\"./-\"");
  EXPECT_EQ(gnuplot_file_name("$r_work_histograms", "w.gp"), "\"./\\0044r_work_histograms\"");
  try {
    gnuplot_file_name("a\nb.csv", "train.toml: tracking.csv");
    FAIL() << "a line break in a file name was accepted";
  } catch (const logz::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "train.toml: tracking.csv: expected a file name without control characters, for "
              "gnuplot to read "
              "(got \"a\\nb.csv\")");
  }
  EXPECT_EQ(file_name_part("a\nb\x01"), "a_b_");
}

}  // namespace
