// The size of a torus lattice in [model]: rows and cols, or size for a square one.
#pragma once

#include "logz/config/config.hpp"

namespace logz {

const Key& lattice_rows_key();
const Key& lattice_cols_key();
const Key& lattice_size_key();

struct LatticeSize {
  int rows = 0, cols = 0;
};

LatticeSize read_lattice_size(ConfigSection& model);

}  // namespace logz
