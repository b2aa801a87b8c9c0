// Errors raised by logz. Every message is one line naming where the problem is
// (function and argument, or file, key and line) and what was expected.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace logz {

// Base of every error logz throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A library function was called with an argument outside its contract.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// User input (a config file, a work file, a weight file) is malformed.
class InputError : public Error {
 public:
  using Error::Error;
};

// A computation produced a non-finite value (energy, work, weight).
class NumericalError : public Error {
 public:
  using Error::Error;
};

// Throws InvalidArgument("function: argument: expected ...").
[[noreturn]] void fail_argument(std::string_view function, std::string_view argument,
                                std::string_view expectation);

// Throws InputError("source: key: expected ...") where source is a file name
// (optionally with ":line") and key names the entry inside it.
[[noreturn]] void fail_input(std::string_view source, std::string_view key,
                             std::string_view expectation);

}  // namespace logz
