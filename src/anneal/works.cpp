#include "logz/anneal/works.hpp"

namespace logz {

std::string to_string(Direction d) { return d == Direction::forward ? "forward" : "reverse"; }

}  // namespace logz
