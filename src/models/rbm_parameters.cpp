#include "logz/models/rbm_parameters.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"

namespace logz {

namespace {

void require_finite(const std::string& source, const std::string& key, const double* data,
                    Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(data[i]))
      fail_input(source, key, fmt::format("finite values, got {} at flat index {}", data[i], i));
}

}  // namespace

void RbmParameters::validate(const std::string& source, const RbmKeys& keys) const {
  if (W.rows() < 1 || W.cols() < 1) fail_input(source, keys.weights, "a non-empty M x J matrix");
  if (a.size() != W.rows())
    fail_input(source, keys.visible_bias,
               fmt::format("{} visible biases (W is {} x {}), got {}", W.rows(), W.rows(), W.cols(),
                           a.size()));
  if (b.size() != W.cols())
    fail_input(source, keys.hidden_bias,
               fmt::format("{} hidden biases (W is {} x {}), got {}", W.cols(), W.rows(), W.cols(),
                           b.size()));
  require_finite(source, keys.weights, W.data(), W.size());
  require_finite(source, keys.visible_bias, a.data(), a.size());
  require_finite(source, keys.hidden_bias, b.data(), b.size());
  // |E(v, h)| <= sum |W| + sum |a| + sum |b|: beyond 1e300 energies and their sums overflow, and
  // the estimates (bounds included) silently lose their meaning.
  const double scale = W.cwiseAbs().sum() + a.cwiseAbs().sum() + b.cwiseAbs().sum();
  if (!(scale <= 1e300))
    fail_input(source, keys.weights,
               fmt::format("parameters whose energies stay finite: sum |W| + sum |a| + sum |b| = "
                           "{:g}, at most 1e300",
                           scale));
}

RbmParameters load_rbm(const std::string& path, const RbmKeys& keys) {
  // Shapes are checked from each member's header, before its data are inflated.
  const auto matrix = [&](const std::vector<std::size_t>& shape) {
    if (shape.size() != 2)
      fail_input(path, keys.weights,
                 "a 2-D array (visible x hidden), got shape " + io::shape_to_string(shape));
  };
  const auto vector_of = [&](const std::string& key) {
    return [&path, key](const std::vector<std::size_t>& shape) {
      if (shape.size() == 2 && (shape[0] == 1 || shape[1] == 1)) return;  // row or column vector
      if (shape.size() != 1)
        fail_input(path, key, "a 1-D array, got shape " + io::shape_to_string(shape));
    };
  };
  const io::Array w = io::read_npz_array(path, keys.weights, matrix).to_float64();
  const io::Array a =
      io::read_npz_array(path, keys.visible_bias, vector_of(keys.visible_bias)).to_float64();
  const io::Array b =
      io::read_npz_array(path, keys.hidden_bias, vector_of(keys.hidden_bias)).to_float64();
  RbmParameters p;
  const auto m = static_cast<Eigen::Index>(w.shape[0]), j = static_cast<Eigen::Index>(w.shape[1]);
  // io::Array is row-major.
  p.W = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      w.doubles().data(), m, j);
  p.a = Eigen::Map<const Eigen::VectorXd>(a.doubles().data(), static_cast<Eigen::Index>(a.size()));
  p.b = Eigen::Map<const Eigen::VectorXd>(b.doubles().data(), static_cast<Eigen::Index>(b.size()));
  p.validate(path, keys);
  return p;
}

void save_rbm(const std::string& path, const RbmParameters& rbm, const RbmKeys& keys) {
  rbm.validate(path, keys);
  std::map<std::string, io::Array> arrays;
  io::Array w;
  w.shape = {static_cast<std::size_t>(rbm.W.rows()), static_cast<std::size_t>(rbm.W.cols())};
  w.doubles().resize(rbm.W.size());
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      w.doubles().data(), rbm.W.rows(), rbm.W.cols()) = rbm.W;
  arrays[keys.weights] = std::move(w);
  arrays[keys.visible_bias] =
      io::Array{{static_cast<std::size_t>(rbm.a.size())},
                std::vector<double>(rbm.a.data(), rbm.a.data() + rbm.a.size())};
  arrays[keys.hidden_bias] =
      io::Array{{static_cast<std::size_t>(rbm.b.size())},
                std::vector<double>(rbm.b.data(), rbm.b.data() + rbm.b.size())};
  io::write_npz(path, arrays);
}

}  // namespace logz
