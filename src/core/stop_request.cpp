#include "logz/core/stop_request.hpp"

namespace logz {

Stopped::Stopped() : Error("the run was stopped on request (interrupt)") {}

StopSource& process_stop_source() noexcept {
  // Constant-initialized (constexpr atomic constructor), so a signal never sees it half built.
  static constinit StopSource source;
  return source;
}

}  // namespace logz
