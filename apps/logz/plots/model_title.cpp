#include "model_title.hpp"

#include <fmt/format.h>

namespace logz::plots {

namespace {

// `s` cut to at most `max` bytes without splitting a UTF-8 sequence, "..." marking a cut.
std::string shortened(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t end = max - 3;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "...";
}

}  // namespace

std::string model_title(const ResultFile& r) {
  const nlohmann::json* m = find_key(r.json, "model");
  if (!m || !m->is_object()) return "";
  std::string title =
      m->contains("type") && (*m)["type"].is_string() ? (*m)["type"].get<std::string>() : "model";
  // Lattices read as "32x32" rather than as two keys.
  const bool lattice = m->contains("rows") && m->contains("cols");
  if (lattice) title += " " + (*m)["rows"].dump() + "x" + (*m)["cols"].dump();
  std::string details;
  for (const auto& [k, v] : m->items()) {
    if (k == "type" || k == "base" || k == "num_sites" || k.rfind("exact_", 0) == 0 ||
        (lattice && (k == "rows" || k == "cols")) || !v.is_primitive())
      continue;
    const std::string value = v.is_string()         ? v.get<std::string>()
                              : v.is_number_float() ? fmt::format("{:.4g}", v.get<double>())
                                                    : v.dump();
    details += (details.empty() ? "" : ", ") + k + "=" + value;
  }
  // Titles are centred over the plot, not the canvas: keep them short enough to fit.
  details = shortened(details, 64);
  return details.empty() ? title : title + " (" + details + ")";
}

}  // namespace logz::plots
