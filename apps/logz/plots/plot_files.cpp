#include "plot_files.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "gnuplot_process.hpp"
#include "gnuplot_strings.hpp"
#include "logz/core/error.hpp"
#include "logz/io/output_file.hpp"
#include "logz/version.hpp"

namespace logz::plots {

namespace fs = std::filesystem;

std::vector<std::string> parse_plot_formats(const std::string& list) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    std::string f = list.substr(begin, comma - begin);
    f.erase(0, f.find_first_not_of(' '));
    f.erase(f.find_last_not_of(' ') + 1);
    if (f != "png" && f != "svg" && f != "pdf")
      fail_argument(
          "plots", "formats",
          fmt::format("a comma-separated list of png, svg, pdf (got \"{}\")", one_line(f)));
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    begin = comma + 1;
  }
  return out;
}

void make_plot_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    fail_input(one_line(dir), "", "a folder that can be created for the plots");
}

std::string script_head(const std::string& name, const std::string& what,
                        const PlotOptions& options) {
  std::string formats;
  for (const auto& f : options.formats) formats += (formats.empty() ? "" : " ") + f;
  return fmt::format(
      "# {}: written by logz {} from a result JSON.\n"
      "# Redraw (after editing) with:  gnuplot {}.gp   in this folder.\n"
      "set encoding utf8\n"
      "formats = \"{}\"   # any of png svg pdf\n"
      "name = {}\n",
      what, version(), one_line(name), formats, gnuplot_file_name(name, name + ".gp"));
}

std::string plot_command(const std::vector<std::string>& items) {
  std::string plot = "  plot \\\n";
  for (std::size_t i = 0; i < items.size(); ++i)
    plot += items[i] + (i + 1 < items.size() ? ", \\\n" : "\n");
  return plot;
}

std::string script_loop(const std::string& plot) {
  return "do for [fmt in formats] {\n"
         "  if (fmt eq \"svg\") {\n"
         "    set terminal svg size 1100,680 dynamic enhanced font \"Sans,15\" background rgb "
         "\"white\"\n"
         "  } else {\n"
         "    if (fmt eq \"pdf\") {\n"
         "      set terminal pdfcairo size 11in,6.8in enhanced font \"Sans,12\"\n"
         "    } else {\n"
         "      if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "        set terminal pngcairo size 1100,680 enhanced font \"Sans,12\"\n"
         "      } else {\n"
         "        set terminal png size 1100,680 enhanced\n"
         "      }\n"
         "    }\n"
         "  }\n"
         "  set output name.\".\".fmt\n" +
         plot +
         "  unset output\n"
         "}\n";
}

namespace {

// A folder of its own inside `dir`, removed with everything in it when this goes out of scope.
class PrivateFolder {
 public:
  explicit PrivateFolder(const std::string& dir) {
    std::string name = (fs::path(dir) / ".logz-plot-XXXXXX").string();
    if (mkdtemp(name.data()) == nullptr)
      throw InputError(fmt::format("{}: expected a folder where plots can be written ({})",
                                   one_line(dir), std::strerror(errno)));
    path_ = name;
  }
  ~PrivateFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<unsigned char> bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

// gnuplot draws in a private folder beside the plots, on links to the script and its data, and
// each image is then written into place by the one writer (io/output_file.hpp): an image is
// complete or absent, like every file logz writes, even when gnuplot fails half way.
std::vector<std::string> draw_plot(const std::string& dir, const std::string& name,
                                   const std::string& data, const std::string& script,
                                   const PlotOptions& options) {
  const auto path = [&](const std::string& file) { return (fs::path(dir) / file).string(); };
  std::vector<std::string> inputs = {name + ".gp"};
  if (!data.empty())
    io::write_text_file(path(name + ".dat"), data), inputs.push_back(name + ".dat");
  io::write_text_file(path(name + ".gp"), script);
  const PrivateFolder work(dir);
  for (const std::string& file : inputs) {
    std::error_code ec;
    fs::create_hard_link(path(file), work.path() / file, ec);
    if (ec) fs::copy_file(path(file), work.path() / file);
  }
  run_gnuplot(work.path().string(), name + ".gp", path(name + ".gp"));
  std::vector<std::string> written;
  for (const auto& f : options.formats) {
    const fs::path drawn = work.path() / (name + "." + f);
    const std::string image = path(name + "." + f);
    if (!fs::exists(drawn) || fs::file_size(drawn) == 0)
      throw std::runtime_error(fmt::format("gnuplot ran {} but wrote no {}",
                                           one_line(path(name + ".gp")), one_line(image)));
    io::write_output_file(image, bytes_of(drawn));
    written.push_back(image);
  }
  return written;
}

}  // namespace logz::plots
