#include "lattice_size.hpp"

#include "logz/config/memory_guard.hpp"

namespace logz {

namespace {
const Key kRows = Key::integer("rows", Computed{"size"}, 1, 32768, "rows of the torus (or size)");
const Key kCols =
    Key::integer("cols", Computed{"size"}, 1, 32768, "columns of the torus (or size)");
const Key kSize =
    Key::integer("size", Computed{"none: rows and cols"}, 1, 32768, "L for an L x L torus");
}  // namespace

const Key& lattice_rows_key() { return kRows; }
const Key& lattice_cols_key() { return kCols; }
const Key& lattice_size_key() { return kSize; }

LatticeSize read_lattice_size(ConfigSection& m) {
  LatticeSize s;
  if (m.has(kSize)) {
    if (m.has(kRows) || m.has(kCols)) m.fail(kSize, "either size or rows and cols, not both");
    s.rows = s.cols = static_cast<int>(m.get_int(kSize.with_default(required)));
  } else {
    s.rows = static_cast<int>(m.get_int(kRows.with_default(required)));
    s.cols = static_cast<int>(m.get_int(kCols.with_default(required)));
  }
  // The neighbour and colour tables (20 bytes a site) and the particles in flight.
  check_fits_in_memory(m, m.has(kSize) ? kSize : kRows, 64.0 * s.rows * static_cast<double>(s.cols),
                       "the lattice and its particles");
  return s;
}

}  // namespace logz
