#include "logz/version.hpp"

namespace logz {
const char* version() { return LOGZ_VERSION_STRING; }
}  // namespace logz
