#include "logz/models/torus_lattice.hpp"

#include "logz/core/error.hpp"

namespace logz {

TorusLattice::TorusLattice(int rows, int cols) : rows_(rows), cols_(cols) {
  if (rows < 1) fail_argument("logz::TorusLattice", "rows", "at least 1");
  if (cols < 1) fail_argument("logz::TorusLattice", "cols", "at least 1");
  if (static_cast<long long>(rows) * cols > (1LL << 30))
    fail_argument("logz::TorusLattice", "rows * cols", "at most 2^30 sites");
  neighbours_.resize(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int right = r * cols + (c + 1) % cols;
      const int down = ((r + 1) % rows) * cols + c;
      const int left = r * cols + (c + cols - 1) % cols;
      const int up = ((r + rows - 1) % rows) * cols + c;
      neighbours_[r * cols + c] = {right, down, left, up};
      by_colour_[(r + c) & 1].push_back(r * cols + c);
    }
}

}  // namespace logz
