#include "particle_arrays.hpp"

#include <cstring>

namespace py = pybind11;

namespace logz::python {

namespace {

// Free arrays kept per target: one per thread in a call at a time and per batch size (full
// chunks, the last chunk); the oldest goes first beyond this.
constexpr std::size_t kMaxFree = 8;

bool has_shape(const py::array& a, py::ssize_t rows, py::ssize_t cols) {
  const auto* proxy = py::detail::array_proxy(a.ptr());
  return proxy->dimensions[0] == rows && proxy->dimensions[1] == cols;
}

// Whether logz's reference is the only way to the array: no other reference (a numpy view keeps
// its base array, a memoryview or any buffer keeps its exporter: both count here) and no weak
// reference, which would otherwise see the array's next values.
bool only_logz_holds(const py::array& a) {
  PyObject* o = a.ptr();
  if (Py_REFCNT(o) != 1) return false;
  const Py_ssize_t offset = Py_TYPE(o)->tp_weaklistoffset;
  return offset <= 0 ||
         *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(o) + offset) == nullptr;
}

// Whether the array is still as take() made it: float64, C order, two dimensions. Numpy lets the
// user change these in place on an array that owns its memory (X.dtype = ..., X.shape = ...).
bool as_made(const py::array& a) {
  const auto* proxy = py::detail::array_proxy(a.ptr());
  constexpr auto item = static_cast<py::ssize_t>(sizeof(double));
  return proxy->nd == 2 && proxy->strides[1] == item &&
         proxy->strides[0] == proxy->dimensions[1] * item && a.dtype().is(py::dtype::of<double>());
}

}  // namespace

ParticleArrays::ParticleArrays() { free_.reserve(kMaxFree); }

py::array ParticleArrays::take(const Eigen::MatrixXd& X) {
  const py::ssize_t d = X.rows(), p = X.cols();
  auto it = free_.end();
  while (it != free_.begin() && !has_shape(*(it - 1), p, d)) --it;  // the newest of that shape
  const bool found = it != free_.begin();
  py::array a = found ? std::move(*(it - 1))
                      : py::array(py::array_t<double>({p, d}));  // C order, numpy's memory
  if (found) free_.erase(it - 1);
  auto* proxy = py::detail::array_proxy(a.ptr());
  std::memcpy(proxy->data, X.data(), sizeof(double) * static_cast<std::size_t>(p * d));
  proxy->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;  // again: the user may have set it
  return a;
}

void ParticleArrays::give_back(py::array a) noexcept {
  try {
    if (!only_logz_holds(a) || !as_made(a))
      return;  // `a` drops logz's reference; the user keeps theirs
    if (free_.size() == kMaxFree) free_.erase(free_.begin());
    free_.push_back(std::move(a));
  } catch (...) {  // numpy failed: the array is only not reused
  }
}

}  // namespace logz::python
