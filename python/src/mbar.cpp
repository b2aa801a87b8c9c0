// MBAR on pymbar's inputs: logz.mbar(u_kn, N_k) -> logz.MbarResult.
#include "logz/estimators/mbar.hpp"

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "estimate_class.hpp"
#include "logz/core/error.hpp"
#include "logz/estimators/mbar_expectation_sums.hpp"
#include "python_messages.hpp"
#include "result_state.hpp"

namespace py = pybind11;

namespace logz::python {

namespace {

struct PyMbar {
  MbarResult result;
  std::vector<std::string> flags;
};

// N_k as pymbar means it: whole, non-negative counts adding up to the N columns of u_kn, one of
// them > 0. Checked here so that the error names N_k, not the library's num_samples.
void check_counts(const DoubleArray& n, py::ssize_t num_samples) {
  double total = 0.0, largest = 0.0;
  for (py::ssize_t k = 0; k < n.shape(0); ++k) {
    const double v = n.data()[k];
    if (!(v >= 0.0) || std::floor(v) != v || !std::isfinite(v))
      fail_argument("logz.mbar", "N_k",
                    "whole numbers >= 0 (samples per state), got " +
                        std::string(py::str(py::float_(v))) + " at [" + std::to_string(k) + "]");
    total += v;
    largest = std::max(largest, v);
  }
  if (total != static_cast<double>(num_samples))
    fail_argument("logz.mbar", "N_k",
                  "counts that add up to the columns of u_kn (" + std::to_string(num_samples) +
                      "), got " + std::to_string(static_cast<long long>(total)));
  if (!(largest > 0.0))
    fail_argument("logz.mbar", "N_k", "at least one sampled state (a count > 0)");
}

// "MbarResult(K=3, log_z=[0, -0.346574 ± 0.0101, ...], converged=True)": the first three states
// and the last two where there are more than six.
std::string mbar_repr(const PyMbar& p) {
  const MbarResult& r = p.result;
  const std::size_t num_states = r.log_z.size();
  std::string values;
  for (std::size_t k = 0; k < num_states; ++k) {
    if (num_states > 6 && k == 3) {
      values += ", ...";
      k = num_states - 3;
      continue;
    }
    values += (k ? ", " : "") + format_number(r.log_z[k]);
    if (k > 0) values += " ± " + format_number(r.std_error[k]);  // state 0 is the reference
  }
  std::string s = "MbarResult(K=" + std::to_string(num_states) + ", log_z=[" + values +
                  "], converged=" + (r.converged ? "True" : "False");
  if (!r.disconnected.empty())
    s += ", disconnected=" + std::string(py::str(py::cast(r.disconnected)));
  if (!p.flags.empty()) s += ", flags=" + std::string(py::repr(py::cast(p.flags)));
  return s + ")";
}

// Delta log Z_ij = log Z_j - log Z_i and its standard error from the covariance of f = -log Z,
// var_ij = C_ii + C_jj - 2 C_ij: pymbar's Delta_f_ij with the sign of log Z. NaN where a state is
// disconnected, and the errors NaN when Newton did not converge.
Eigen::MatrixXd delta_log_z(const MbarResult& r) {
  const auto k = static_cast<Eigen::Index>(r.log_z.size());
  Eigen::MatrixXd d(k, k);
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index j = 0; j < k; ++j)
      d(i, j) = r.log_z[static_cast<std::size_t>(j)] - r.log_z[static_cast<std::size_t>(i)];
  return d;
}

Eigen::MatrixXd delta_std_error(const MbarResult& r) {
  const Eigen::MatrixXd& c = r.covariance;
  Eigen::MatrixXd d(c.rows(), c.cols());
  for (Eigen::Index i = 0; i < c.rows(); ++i)
    for (Eigen::Index j = 0; j < c.cols(); ++j)
      d(i, j) = !r.converged ? std::nan("")
                : i == j     ? 0.0
                             : std::sqrt(std::max(c(i, i) + c(j, j) - 2 * c(i, j), 0.0));
  return d;
}

// The overlap matrix's eigenvalues, largest first (the first is 1; 1 - the second is the
// spectral gap pymbar calls the overlap scalar).
Eigen::VectorXd overlap_eigenvalues(const MbarResult& r) {
  Eigen::VectorXd values = r.overlap.eigenvalues().real();
  std::sort(values.data(), values.data() + values.size(), std::greater<>());
  return values;
}

py::dict mbar_dict(const PyMbar& p) {
  const MbarResult& r = p.result;
  py::dict d;
  d["log_z"] = r.log_z;
  d["std_error"] = r.std_error;
  d["overlap"] = py::cast(r.overlap).attr("tolist")();
  d["covariance"] = py::cast(r.covariance).attr("tolist")();
  d["delta_log_z"] = py::cast(delta_log_z(r)).attr("tolist")();
  d["delta_std_error"] = py::cast(delta_std_error(r)).attr("tolist")();
  d["overlap_eigenvalues"] = py::cast(overlap_eigenvalues(r)).attr("tolist")();
  d["converged"] = r.converged;
  d["iterations"] = r.iterations;
  d["disconnected"] = r.disconnected;
  d["flags"] = p.flags;
  return d;
}

}  // namespace

void bind_mbar(py::module_& m) {
  py::class_<PyMbar>(m, "MbarResult", "The answer of logz.mbar.")
      .def_property_readonly(
          "log_z", [](const PyMbar& p) { return to_numpy(p.result.log_z); },
          "log Z_k - log Z_0, shape (K,) (log_z[0] == 0); pymbar's -f_k")
      .def_property_readonly(
          "std_error", [](const PyMbar& p) { return to_numpy(p.result.std_error); },
          "standard errors of log_z, shape (K,) (pymbar's svd-ew covariance)")
      .def_property_readonly(
          "overlap", [](const PyMbar& p) { return p.result.overlap; },
          "the overlap matrix O = W^T W diag(N_k), shape (K, K), as pymbar's computeOverlap")
      .def_property_readonly(
          "covariance", [](const PyMbar& p) { return p.result.covariance; },
          "the asymptotic covariance of f = -log Z, shape (K, K)")
      .def_property_readonly(
          "delta_log_z", [](const PyMbar& p) { return delta_log_z(p.result); },
          "log Z_j - log Z_i for every pair, shape (K, K) (pymbar's -Delta_f_ij)")
      .def_property_readonly(
          "delta_std_error", [](const PyMbar& p) { return delta_std_error(p.result); },
          "the standard errors of delta_log_z, shape (K, K) (pymbar's dDelta_f_ij); NaN for a "
          "disconnected state, and everywhere when Newton did not converge")
      .def_property_readonly(
          "overlap_eigenvalues", [](const PyMbar& p) { return overlap_eigenvalues(p.result); },
          "the overlap matrix's eigenvalues, largest (1) first; 1 - the second is the overlap "
          "scalar")
      .def_property_readonly(
          "converged", [](const PyMbar& p) { return p.result.converged; },
          "whether Newton's iterations met the tolerance")
      .def_property_readonly(
          "iterations", [](const PyMbar& p) { return p.result.iterations; },
          "the solver's iterations")
      .def_property_readonly(
          "disconnected", [](const PyMbar& p) { return p.result.disconnected; },
          "the states with no overlap path to state 0, whose log_z and std_error are NaN")
      .def_property_readonly(
          "flags", [](const PyMbar& p) { return p.flags; },
          "'not_converged' when Newton stopped short; 'disconnected' when some state has no "
          "overlap path to state 0; 'poor_overlap' when some state is linked to state 0 only "
          "through pairs of states with O_kl + O_lk < 0.06 (its error may be understated)")
      .def("to_dict", &mbar_dict,
           "The result as a dict: log_z, std_error, overlap, covariance, delta_log_z, "
           "delta_std_error, overlap_eigenvalues (lists), converged, "
           "iterations, disconnected and flags.")
      .def(py::pickle(
          [](const PyMbar& p) { return py::bytes(mbar_result_state(p.result, p.flags)); },
          [](const py::bytes& state) {
            auto [result, flags] = mbar_result_from_state(std::string_view(state));
            return PyMbar{std::move(result), std::move(flags)};
          }))
      .def("__repr__", &mbar_repr);
  m.def(
      "mbar",
      [](const py::object& u_kn, const py::object& N_k, double tolerance, int max_iterations,
         const py::object& initial_log_z) {
        const DoubleArray u = as_array(u_kn, 2, "mbar", "u_kn", "(K, N)");
        const DoubleArray n = as_array(N_k, 1, "mbar", "N_k", "(K,)");
        if (n.shape(0) != u.shape(0))
          fail_argument("logz.mbar", "N_k",
                        "one count per row of u_kn (" + std::to_string(u.shape(0)) + "), got " +
                            std::to_string(n.shape(0)));
        check_counts(n, u.shape(1));
        if (!(tolerance > 0.0)) fail_argument("logz.mbar", "tolerance", "a number > 0");
        if (max_iterations < 1) fail_argument("logz.mbar", "max_iterations", "at least 1");
        MbarOptions options;
        options.tolerance = tolerance;
        options.max_iterations = max_iterations;
        if (!initial_log_z.is_none()) {
          const DoubleArray init = as_array(initial_log_z, 1, "mbar", "initial_log_z", "(K,)");
          if (init.shape(0) != u.shape(0))
            fail_argument("logz.mbar", "initial_log_z",
                          "one value per row of u_kn (" + std::to_string(u.shape(0)) + "), got " +
                              std::to_string(init.shape(0)));
          for (py::ssize_t k = 0; k < init.shape(0); ++k)
            if (!std::isfinite(init.data()[k]))
              fail_argument("logz.mbar", "initial_log_z",
                            "finite values, got " +
                                std::string(py::str(py::float_(init.data()[k]))) + " at [" +
                                std::to_string(k) + "]");
          options.initial_log_z.assign(init.data(), init.data() + init.size());
        }
        // The (K, N) C-order array read in place, state by state: no copy of u_kn.
        PyMbar out;
        try {
          py::gil_scoped_release release;
          out.result = mbar_state_major({u.data(), static_cast<std::size_t>(u.size())},
                                        static_cast<std::size_t>(u.shape(0)), view(n), options);
        } catch (const InvalidArgument&
                     e) {  // the library's check of u_kn's values, under logz.mbar's name
          throw InvalidArgument(python_message(e.what(), "logz.mbar"));
        }
        if (!out.result.converged) out.flags.push_back("not_converged");
        if (!out.result.disconnected.empty()) out.flags.push_back("disconnected");
        if (out.result.poor_overlap) out.flags.push_back("poor_overlap");
        return out;
      },
      py::arg("u_kn"), py::arg("N_k"), py::kw_only(),
      py::arg("tolerance") = MbarOptions{}.tolerance,
      py::arg("max_iterations") = MbarOptions{}.max_iterations,
      py::arg("initial_log_z") = py::none(),
      R"(MBAR (Shirts & Chodera 2008) on pymbar's inputs.

u_kn: reduced energies u_k(x_n), shape (K, N), of the N pooled samples in every state k;
N_k: how many samples came from each state, shape (K,), in the order of u_kn's columns as
pymbar expects. Returns a logz.MbarResult with log_z[k] = log Z_k - log Z_0 (pymbar's
-f_k) and its standard errors; NaN for a state with no overlap path to state 0, listed
in disconnected and flagged "disconnected". Reduced energies may be +inf (probability 0 in
that state: hard walls, restraints, bins) as long as each state's own N_k samples are finite
in it; NaN and -inf are refused with their [k, n]. delta_log_z and delta_std_error give
every pair. initial_log_z: a warm start, finite values. A float64 C-order u_kn is read in
place, never copied, also
a memory map (np.load(path, mmap_mode="r")) of a file larger than memory; other dtypes and
orders are converted once. The GIL is released while it solves.

>>> import numpy as np, logz
>>> u = np.array([[0.0, 0.5, 1.0], [0.2, 0.1, 0.4]])
>>> logz.mbar(u, np.array([2, 1])).log_z.shape
(2,))");
  // logz.mbar_analysis.expectations' sums (estimators/mbar_expectation_sums.hpp): arrays
  // converted to C order once, read in place, the GIL released.
  m.def(
      "_mbar_expectation_sums",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& log_w,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& log_shifted,
         const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& observable,
         const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& column) {
        if (log_w.ndim() != 2 || log_shifted.ndim() != 2 || observable.ndim() != 1 ||
            column.ndim() != 1)
          fail_argument("logz.mbar_analysis", "log_w_nk",
                        "(N, C) weights, (I, N) observables and (S,) indices");
        const auto n = static_cast<std::size_t>(log_w.shape(0));
        const auto c = static_cast<std::size_t>(log_w.shape(1));
        const auto i = static_cast<std::size_t>(log_shifted.shape(0));
        MbarExpectationSums sums;
        {
          py::gil_scoped_release release;
          sums = mbar_expectation_sums(
              {log_w.data(), n * c}, n, c, {log_shifted.data(), log_shifted.size() * 1ul}, i,
              {observable.data(), static_cast<std::size_t>(observable.size())},
              {column.data(), static_cast<std::size_t>(column.size())});
        }
        return py::make_tuple(py::array(py::cast(sums.log_shifted_mean)), sums.gram);
      },
      py::arg("log_w"), py::arg("log_shifted"), py::arg("observable"), py::arg("column"));
}

}  // namespace logz::python
