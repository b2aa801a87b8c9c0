#include "callback_answer.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "arrays.hpp"
#include "logz/core/error.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The value allowed besides finite ones, and what the error says the values are.
bool allowed(AnswerValues kind, double v) {
  if (std::isfinite(v)) return true;
  switch (kind) {
    case AnswerValues::energies:
      return v == kInf;
    case AnswerValues::log_densities:
      return v == -kInf;
    case AnswerValues::gradients:
      return false;
  }
  return false;
}

std::string value_error(AnswerValues kind, double v) {
  switch (kind) {
    case AnswerValues::energies:
      return "energy " + std::to_string(v) +
             " (an energy is -log of the unnormalised density: finite, or +inf outside the "
             "support)";
    case AnswerValues::log_densities:
      return "value " + std::to_string(v) + " (a log density is finite, or -inf where it is 0)";
    case AnswerValues::gradients:
      break;
  }
  return "non-finite value " + std::to_string(v);
}

}  // namespace

void copy_answer(const py::handle& answer, py::ssize_t rows, py::ssize_t cols,
                 std::string_view function, AnswerValues values, double* out, RowValues rows_of,
                 std::vector<py::ssize_t>* non_finite_rows) {
  // The messages' strings are made only for an error: this runs once per call of the user's
  // function, thousands of times a run.
  auto shape = [&] {
    return cols == 0 ? "(" + std::to_string(rows) + ",)"
                     : "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
  };
  const int ndim = cols == 0 ? 1 : 2;
  DoubleArray a = DoubleArray::ensure(answer);
  if (!a || a.ndim() != ndim) {
    std::string_view unprefixed = function;  // as_array adds "logz."
    if (unprefixed.starts_with("logz.")) unprefixed.remove_prefix(5);
    a = as_array(answer, ndim, std::string(unprefixed).c_str(), "return value", shape().c_str());
  }
  if (a.shape(0) != rows || (cols != 0 && a.shape(1) != cols))
    fail_argument(function, "return value",
                  "an array of shape " + shape() + " (one row per particle)");
  const py::ssize_t per_row = cols == 0 ? 1 : cols, size = rows * per_row;
  // One pass copies and finds whether any value is non-finite (an inf or NaN has every exponent
  // bit set); only then the search for which, and whether it is allowed.
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ull;
  std::uint64_t non_finite = 0;
  const double* v = a.data();
  for (py::ssize_t i = 0; i < size; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, v + i, sizeof bits);
    non_finite |= (bits & kExponent) == kExponent;
    out[i] = v[i];
  }
  auto skipped = [&](py::ssize_t i) {
    return rows_of.values && rows_of.values[i / per_row] == rows_of.zero_density;
  };
  // Rows at zero density are zeroed a row at a time (a division per value cost as much as the
  // copy).
  if (rows_of.values)
    for (py::ssize_t row = 0; row < rows; ++row)
      if (rows_of.values[row] == rows_of.zero_density)
        std::fill_n(out + row * per_row, per_row, 0.0);
  if (!non_finite) return;
  if (non_finite_rows) {
    for (py::ssize_t i = 0; i < size; ++i)
      if (!skipped(i) && !allowed(values, v[i]) &&
          (non_finite_rows->empty() || non_finite_rows->back() != i / per_row))
        non_finite_rows->push_back(i / per_row);
    return;
  }
  for (py::ssize_t i = 0; i < size; ++i)
    if (!skipped(i) && !allowed(values, v[i]))
      throw NumericalError(std::string(function) + ": particle " + std::to_string(i / per_row) +
                           " of a batch of " + std::to_string(rows) + ": " +
                           value_error(values, v[i]));
}

void copy_gradient_alone(
    const py::handle& answer, const Eigen::MatrixXd& X, std::string_view function,
    double zero_density,
    const std::function<void(const Eigen::MatrixXd& rows, Eigen::VectorXd& values)>& values_at,
    Eigen::MatrixXd& G) {
  G.resize(X.rows(), X.cols());  // (P, d) row-major = d x P column-major
  std::vector<py::ssize_t> non_finite;
  copy_answer(answer, X.cols(), X.rows(), function, AnswerValues::gradients, G.data(), {},
              &non_finite);
  if (non_finite.empty()) return;
  Eigen::MatrixXd rows(X.rows(), static_cast<Eigen::Index>(non_finite.size()));
  for (std::size_t i = 0; i < non_finite.size(); ++i)
    rows.col(static_cast<Eigen::Index>(i)) = X.col(non_finite[i]);
  Eigen::VectorXd some;
  values_at(rows, some);
  Eigen::VectorXd values = Eigen::VectorXd::Zero(X.cols());  // 0: not a zero density
  for (std::size_t i = 0; i < non_finite.size(); ++i)
    values(non_finite[i]) = some(static_cast<Eigen::Index>(i));
  copy_answer(answer, X.cols(), X.rows(), function, AnswerValues::gradients, G.data(),
              {values.data(), zero_density});
}

}  // namespace logz::python
