#include "python_messages.hpp"

namespace logz::python {

std::string python_message(std::string_view message, std::string_view function,
                           std::initializer_list<ArgumentRename> renames) {
  const std::size_t end_of_function = message.find(": ");
  if (end_of_function == std::string_view::npos)
    return std::string(function) + ": " + std::string(message);
  std::string rest(message.substr(end_of_function + 2));
  const std::size_t end_of_argument = rest.find(": ");
  std::string argument = rest.substr(0, end_of_argument);
  for (const auto& [from, to] : renames) {
    std::size_t at = argument.find(from);
    while (at != std::string::npos) {
      const std::size_t after = at + from.size();
      const bool whole =
          (at == 0 || (at >= 2 && argument.compare(at - 2, 2, ", ") == 0)) &&
          (after == argument.size() || argument[after] == '[' || argument[after] == ',');
      if (whole) argument.replace(at, from.size(), to);
      at = argument.find(from, at + (whole ? to.size() : 1));
    }
  }
  return std::string(function) + ": " + argument +
         (end_of_argument == std::string::npos ? "" : rest.substr(end_of_argument));
}

}  // namespace logz::python
