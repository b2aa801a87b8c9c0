// The GIL for a call into Python from a driver's thread. pybind11 gives a thread Python never
// saw (a worker of a run on several threads) a new thread state at every acquisition and deletes
// it at the release: per call of a Target's function, an mmap and an munmap of the state's frame
// stack, and each munmap interrupts the run's other threads to flush their address translations.
// Such a thread's state is kept instead, from its first call until the thread ends, where it is
// deleted. Threads that had a state (the one that called logz) are left as pybind11 treats them.
#pragma once

#include <pybind11/pybind11.h>

namespace logz::python {

class WorkerGil {
 public:
  WorkerGil();
  WorkerGil(const WorkerGil&) = delete;
  WorkerGil& operator=(const WorkerGil&) = delete;

 private:
  bool new_thread_;  // initialised first: whether this thread had no Python state before
  pybind11::gil_scoped_acquire gil_;
};

}  // namespace logz::python
