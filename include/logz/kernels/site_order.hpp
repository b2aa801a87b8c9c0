// The order in which single-site lattice kernels visit sites: "random" (a
// uniformly random site per step; every step is reversible) or "checkerboard"
// (one step is a full sweep, colour 0 then colour 1, in increasing site order;
// its time reversal visits the same sites in exactly the opposite order).
#pragma once

#include "logz/core/enum_names.hpp"

namespace logz {

LOGZ_NAMED_ENUM(SiteOrder, random, checkerboard);

}  // namespace logz
