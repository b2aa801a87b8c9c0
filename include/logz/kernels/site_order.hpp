// The order in which single-site lattice kernels visit sites: "random" (a
// uniformly random site per step; every step is reversible) or "checkerboard"
// (one step is a full sweep, colour 0 then colour 1, in increasing site order;
// its time reversal visits the same sites in exactly the opposite order).
#pragma once

#include <string>

namespace logz {

enum class SiteOrder { random, checkerboard };

SiteOrder parse_site_order(const std::string& name);  // throws InvalidArgument
std::string to_string(SiteOrder order);

}  // namespace logz
