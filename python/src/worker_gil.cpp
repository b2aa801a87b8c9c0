#include "worker_gil.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

// The reference a worker thread keeps on its thread state, given back when the thread ends
// (its run's threads are joined before the run returns, so the interpreter is alive).
struct KeptThreadState {
  bool kept = false;
  ~KeptThreadState() {
    if (!kept) return;
    py::gil_scoped_acquire gil;
    gil.dec_ref();  // the kept reference: gil's own release now deletes the state
  }
};

thread_local KeptThreadState kept_state;

// True on the first call in a thread that has no Python thread state yet.
bool first_call_without_state() {
  thread_local bool seen = false;
  if (seen) return false;
  seen = true;
  return PyGILState_GetThisThreadState() == nullptr;
}

}  // namespace

WorkerGil::WorkerGil() : new_thread_(first_call_without_state()) {
  if (new_thread_) {
    gil_.inc_ref();
    kept_state.kept = true;
  }
}

}  // namespace logz::python
