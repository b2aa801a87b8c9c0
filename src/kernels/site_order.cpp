#include "logz/kernels/site_order.hpp"

#include "logz/core/error.hpp"

namespace logz {

SiteOrder parse_site_order(const std::string& name) {
  if (name == "random") return SiteOrder::random;
  if (name == "checkerboard") return SiteOrder::checkerboard;
  fail_argument("logz::parse_site_order", "site_order",
                "\"random\" or \"checkerboard\", got \"" + name + "\"");
}

std::string to_string(SiteOrder order) {
  return order == SiteOrder::random ? "random" : "checkerboard";
}

}  // namespace logz
