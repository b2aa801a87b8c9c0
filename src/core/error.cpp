#include "logz/core/error.hpp"

#include <string>

namespace logz {

void fail_argument(std::string_view function, std::string_view argument,
                   std::string_view expectation) {
  std::string msg;
  msg.append(function).append(": ").append(argument).append(": expected ").append(expectation);
  throw InvalidArgument(msg);
}

void fail_input(std::string_view source, std::string_view key, std::string_view expectation) {
  std::string msg;
  msg.append(source);
  if (!key.empty()) msg.append(": ").append(key);
  msg.append(": expected ").append(expectation);
  throw InputError(msg);
}

}  // namespace logz
