// logz.anneal, logz.temper and logz.smc on a logz.Target: the continuous models' services (the
// [base], [kernel], [schedule], [run], [tempering] and [estimators] readers, the pilot, forward and
// reverse annealing, simulated tempering, the estimators) run on the user's Python functions.
// python/logz/__init__.py builds the config from anneal's and temper's arguments.
#include <chrono>

#include "bindings.hpp"
#include "config_dict.hpp"
#include "interrupt.hpp"
#include "logz/services/results.hpp"
#include "progress.hpp"
#include "python_target.hpp"
#include "services/families/continuous_family.hpp"

namespace py = pybind11;

namespace logz::python {

void bind_anneal(py::module_& m) {
  bind_target(m);
  m.def(
      "_run_target",
      [](const PythonTarget& target, const py::dict& config, const py::object& progress,
         const std::string& function) {
        Config c = load_config(config, function);
        Record desc{{"type", "python"}, {"dim", target.dim()}};
        auto result = std::make_shared<RunResult>();
        {
          const InterruptGuard ctrl_c;
          const RunContext context{.progress = progress_function(progress), .stop = ctrl_c.stop()};
          py::gil_scoped_release release;
          const auto start = std::chrono::steady_clock::now();
          *result = continuous::analysis_experiment(
              c, target, std::move(desc), continuous::DataSampler{},
              "a logz.Target has no exact sampler", "geometric: (1 - t) U_base + t U_target",
              "exact_log_z of the Target", context);
          result->runtime_s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          result->config = c.resolved();
        }
        return result;
      },
      py::arg("target"), py::arg("config"), py::arg("progress") = py::none(),
      py::arg("function") = "logz.anneal",
      "Annealing, tempering or SMC on a logz.Target from a config dict (see logz.anneal, "
      "logz.temper and logz.smc).");
}

}  // namespace logz::python
