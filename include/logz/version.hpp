// The library's version ("major.minor.patch"), as configured by CMake.
#pragma once

namespace logz {
const char* version();
}
