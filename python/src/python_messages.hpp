// The library's one-line errors as the Python call that led to them should read: the Python
// function in place of the library function that raised it, and the Python names of arguments
// where the library's differ (logz.mbar's N_k for num_samples, logz.estimate's forward for
// forward_works).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace logz::python {

using ArgumentRename =
    std::pair<std::string_view, std::string_view>;  // {library name, Python name}

// message = "library_function: argument: expected ...": `function` replaces the text before the
// first ": ", and each rename's library name its Python name in the argument part (up to the next
// ": "; a name followed by "[" or ", " included).
std::string python_message(std::string_view message, std::string_view function,
                           std::initializer_list<ArgumentRename> renames = {});

}  // namespace logz::python
