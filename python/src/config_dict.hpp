// Configs from Python: a dict with the TOML's [section] structure (numbers, strings, booleans,
// lists, dicts; numpy arrays through their tolist()) or the path of a TOML file.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "logz/config/config.hpp"

namespace logz::python {

// `function` ("logz.run") names the caller in errors, and a dict config in the config's own
// errors ("logz.run config: [model] type: expected ...").
Config load_config(const pybind11::object& config, const std::string& function);

}  // namespace logz::python
