// The R x C square lattice with periodic boundaries shared by the lattice
// models. Site i = r * C + c; each site owns two bonds, to its right and down
// neighbours, so there are exactly 2 R C bonds (on a 2-wide torus both bonds
// between a pair count, on a 1-wide one the "down" bond joins a site to itself).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace logz {

class TorusLattice {
 public:
  TorusLattice(int rows, int cols);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int num_sites() const { return rows_ * cols_; }
  int num_bonds() const { return 2 * rows_ * cols_; }
  // Neighbours of site i: right, down, left, up.
  const std::array<std::int32_t, 4>& neighbours(int i) const { return neighbours_[i]; }
  // 0 or 1: the checkerboard colour of site i ((r + c) mod 2). On a torus with an
  // odd side two neighbours can share a colour; see is_bipartite().
  int colour(int i) const { return ((i / cols_) + (i % cols_)) & 1; }
  // True when no bond joins two sites of the same colour (both sides even).
  bool is_bipartite() const { return rows_ % 2 == 0 && cols_ % 2 == 0; }
  // The sites of one colour in increasing order (checkerboard sweeps).
  const std::vector<std::int32_t>& sites_of_colour(int colour) const { return by_colour_[colour]; }

 private:
  int rows_, cols_;
  std::vector<std::array<std::int32_t, 4>> neighbours_;
  std::array<std::vector<std::int32_t>, 2> by_colour_;
};

}  // namespace logz
