#include "logz/exact/potts_enumeration.hpp"

#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include "exact/energy_levels.hpp"
#include "logz/core/error.hpp"

namespace logz::exact {
namespace {

void check_lattice(std::string_view function, int rows, int cols, int q) {
  if (rows < 1) fail_argument(function, "rows", ">= 1, got " + std::to_string(rows));
  if (cols < 1) fail_argument(function, "cols", ">= 1, got " + std::to_string(cols));
  if (q < 2 || q > 255)
    fail_argument(function, "q", "an integer in 2..255, got " + std::to_string(q));
  const double states = std::pow(static_cast<double>(q), static_cast<double>(rows) * cols - 1.0);
  if (static_cast<long long>(rows) * cols > 64 || states > kPottsEnumerationMaxStates)
    fail_argument(function, "rows*cols",
                  "q^(rows*cols - 1) <= 2e8 configurations, got " + std::to_string(q) + "^(" +
                      std::to_string(static_cast<long long>(rows) * cols) + " - 1)");
}

void check_temperature(std::string_view function, double beta, double coupling) {
  if (!std::isfinite(beta) || beta < 0.0)
    fail_argument(function, "beta", "a finite number >= 0, got " + std::to_string(beta));
  if (!std::isfinite(coupling))
    fail_argument(function, "coupling", "a finite number, got " + std::to_string(coupling));
}

LogZAndEnergy sum_levels(const std::vector<std::uint64_t>& counts, double beta, double coupling) {
  // Level n has energy -J n and log weight log(count_n) + beta J n; shift by the top one.
  std::vector<double> log_w(counts.size(), -INFINITY), energy(counts.size());
  for (std::size_t n = 0; n < counts.size(); ++n) {
    energy[n] = -coupling * static_cast<double>(n);
    if (counts[n] != 0)
      log_w[n] =
          std::log(static_cast<double>(counts[n])) + beta * coupling * static_cast<double>(n);
  }
  return sum_energy_levels(log_w, energy);
}

std::vector<std::uint64_t> equal_bond_counts(int rows, int cols, int q) {
  const int n = rows * cols;
  // The bonds, each site's right and down one; a self-bond (1-wide torus) is
  // always equal and is counted once up front instead of being walked.
  // ends[i] lists the other end of every bond at site i (a neighbour joined by
  // two bonds, on a 2-wide torus, appears twice).
  std::vector<std::array<int, 4>> ends(n);
  std::vector<int> degree(n, 0);
  int self_bonds = 0;
  auto add_bond = [&](int a, int b) {
    if (a == b) {
      ++self_bonds;
      return;
    }
    ends[a][degree[a]++] = b;
    ends[b][degree[b]++] = a;
  };
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      add_bond(r * cols + c, r * cols + (c + 1) % cols);
      add_bond(r * cols + c, ((r + 1) % rows) * cols + c);
    }
  std::vector<std::uint64_t> counts(2 * n + 1, 0);
  // An odometer over sites 1..n-1 (site 0 stays colour 0), keeping the number
  // of equal bonds up to date as each digit changes. All colours 0 to start.
  std::vector<int> x(n, 0);
  int equal = 2 * n - self_bonds;  // every non-self bond is equal
  auto local_equal = [&](int i, int colour) {
    int e = 0;
    for (int k = 0; k < degree[i]; ++k) e += x[ends[i][k]] == colour;
    return e;
  };
  for (;;) {
    ++counts[equal + self_bonds];
    int i = n - 1;
    // Advance the odometer: digits at q - 1 wrap to 0, the next one goes up.
    for (; i >= 1; --i) {
      const int from = x[i], to = from + 1 == q ? 0 : from + 1;
      equal += local_equal(i, to) - local_equal(i, from);
      x[i] = to;
      if (to != 0) break;
    }
    if (i < 1) break;
  }
  for (auto& c : counts) c *= static_cast<std::uint64_t>(q);
  return counts;
}

}  // namespace

std::vector<std::uint64_t> potts_equal_bond_counts(int rows, int cols, int q) {
  check_lattice("potts_equal_bond_counts", rows, cols, q);
  return equal_bond_counts(rows, cols, q);
}

double potts_log_z_enumeration(int rows, int cols, int q, double beta, double coupling) {
  check_lattice("potts_log_z_enumeration", rows, cols, q);
  check_temperature("potts_log_z_enumeration", beta, coupling);
  return sum_levels(equal_bond_counts(rows, cols, q), beta, coupling).log_z;
}

double potts_mean_energy_enumeration(int rows, int cols, int q, double beta, double coupling) {
  check_lattice("potts_mean_energy_enumeration", rows, cols, q);
  check_temperature("potts_mean_energy_enumeration", beta, coupling);
  return sum_levels(equal_bond_counts(rows, cols, q), beta, coupling).mean_energy;
}

}  // namespace logz::exact
