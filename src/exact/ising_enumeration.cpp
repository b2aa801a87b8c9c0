#include "logz/exact/ising_enumeration.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exact/energy_levels.hpp"
#include "logz/core/error.hpp"

namespace logz::exact {
namespace {

void check_arguments(std::string_view function, int rows, int cols, double beta, double coupling) {
  if (rows < 1) fail_argument(function, "rows", ">= 1, got " + std::to_string(rows));
  if (cols < 1) fail_argument(function, "cols", ">= 1, got " + std::to_string(cols));
  if (static_cast<long long>(rows) * cols > kIsingEnumerationMaxSites) {
    fail_argument(function, "rows*cols",
                  "<= " + std::to_string(kIsingEnumerationMaxSites) + " sites, got " +
                      std::to_string(static_cast<long long>(rows) * cols));
  }
  if (!std::isfinite(beta) || beta < 0.0) {
    fail_argument(function, "beta", "a finite number >= 0, got " + std::to_string(beta));
  }
  if (!std::isfinite(coupling)) {
    fail_argument(function, "coupling", "a finite number, got " + std::to_string(coupling));
  }
}

// counts[k] = number of configurations with exactly k unsatisfied bonds (s_i != s_j), over
// the 2*R*C bonds (i, right(i)) and (i, down(i)). Self-bonds (R or C = 1) are always
// satisfied. Walks all 2^N configurations in Gray-code order, updating k at each flip.
std::vector<std::uint64_t> unsatisfied_bond_histogram(int rows, int cols) {
  const int n = rows * cols;
  // For each site, the other ends of its four bond slots (right, left, down, up). With R or C = 2
  // the same neighbour is the other end of two distinct bonds and appears twice. A self-bond slot
  // (R or C = 1) points at the site itself: it never changes and is left out of the degree.
  std::vector<std::array<int, 4>> ends(n);
  std::vector<int> degree(n, 0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int i = r * cols + c;
      ends[i] = {r * cols + (c + 1) % cols, r * cols + (c + cols - 1) % cols,
                 ((r + 1) % rows) * cols + c, ((r + rows - 1) % rows) * cols + c};
      for (int j : ends[i]) degree[i] += j != i ? 1 : 0;
    }
  }
  std::vector<std::uint64_t> counts(2 * n + 1, 0);
  std::uint32_t bits = 0;  // bit i set <=> s_i = -1; start: all +1, no unsatisfied bond
  int unsatisfied = 0;
  counts[0] = 1;
  const std::uint64_t total = std::uint64_t{1} << n;
  for (std::uint64_t step = 1; step < total; ++step) {
    const int k = std::countr_zero(step);
    // Bonds to neighbours whose spin differs from s_k (before the flip) become satisfied, the
    // others become unsatisfied. differ has bit j set iff s_j != s_k (never for j = k).
    const std::uint32_t differ = bits ^ (0u - ((bits >> k) & 1u));
    const std::array<int, 4>& e = ends[k];
    const int d = static_cast<int>(((differ >> e[0]) & 1u) + ((differ >> e[1]) & 1u) +
                                   ((differ >> e[2]) & 1u) + ((differ >> e[3]) & 1u));
    unsatisfied += degree[k] - 2 * d;
    bits ^= std::uint32_t{1} << k;
    ++counts[unsatisfied];
  }
  return counts;
}

LogZAndEnergy enumerate(int rows, int cols, double beta, double coupling) {
  const int n = rows * cols;
  const int bonds = 2 * n;
  const std::vector<std::uint64_t> counts = unsatisfied_bond_histogram(rows, cols);
  // E_k = -J (bonds - 2k); log weight of level k: log(count_k) - beta E_k.
  std::vector<double> log_w(counts.size());
  std::vector<double> energy(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) {
    energy[k] = -coupling * (bonds - 2.0 * static_cast<double>(k));
    log_w[k] =
        counts[k] == 0 ? -INFINITY : std::log(static_cast<double>(counts[k])) - beta * energy[k];
  }
  return sum_energy_levels(log_w, energy);
}

}  // namespace

double ising_log_z_enumeration(int rows, int cols, double beta, double coupling) {
  check_arguments("ising_log_z_enumeration", rows, cols, beta, coupling);
  return enumerate(rows, cols, beta, coupling).log_z;
}

double ising_mean_energy_enumeration(int rows, int cols, double beta, double coupling) {
  check_arguments("ising_mean_energy_enumeration", rows, cols, beta, coupling);
  return enumerate(rows, cols, beta, coupling).mean_energy;
}

}  // namespace logz::exact
