#include "progress.hpp"

#include <memory>

#include "worker_gil.hpp"

namespace py = pybind11;

namespace logz::python {

ProgressFn progress_function(const py::object& progress) {
  if (progress.is_none()) return {};
  auto held = std::make_shared<py::object>(progress);
  return [held](const std::string& stage, std::size_t done, std::size_t total) {
    const WorkerGil gil;
    (*held)(stage, done, total);
  };
}

}  // namespace logz::python
