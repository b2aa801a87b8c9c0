#include "logz/services/run_budget.hpp"

#include <fmt/format.h>

namespace logz {

namespace {

// "1 path", "1000 paths", "1 chain-sweep".
std::string counted(std::uint64_t n, const std::string& plural) {
  const bool singular = n == 1 && plural.size() > 1 && plural.back() == 's';
  return fmt::format("{} {}", n, singular ? plural.substr(0, plural.size() - 1) : plural);
}

}  // namespace

double PlannedBudget::total() const {
  double t = 1;
  for (const auto& f : factors) t *= static_cast<double>(f.count);
  return t;
}

std::string PlannedBudget::text() const {
  std::string s;
  for (const auto& f : factors) s += (s.empty() ? "" : " x ") + counted(f.count, f.what);
  const double t = total();
  const std::string unit_text =
      t == 1 && !unit.empty() && unit.back() == 's' ? unit.substr(0, unit.size() - 1) : unit;
  s += fmt::format(" = {:.3g} {}", t, unit_text);
  if (!note.empty()) s += ", " + note;
  return s;
}

}  // namespace logz
