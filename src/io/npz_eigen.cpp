#include "logz/io/npz_eigen.hpp"

#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"

namespace logz::io {

Eigen::MatrixXd read_npz_matrix(const std::string& path, const std::string& key, const std::string& expected) {
  const Array a = read_npz_array(path, key, [&](const std::vector<std::size_t>& shape) {
                    if (shape.size() != 2)
                      fail_input(path, key, "a 2-D array (" + expected + "), got " + shape_to_string(shape));
                  }).to_float64();
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(a.doubles().data(), static_cast<Eigen::Index>(a.rows()),
                                    static_cast<Eigen::Index>(a.cols()));
}

Eigen::VectorXd read_npz_vector(const std::string& path, const std::string& key, const std::string& expected) {
  const Array a = read_npz_array(path, key, [&](const std::vector<std::size_t>& shape) {
                    if (shape.size() != 1 && !(shape.size() == 2 && shape[1] == 1))
                      fail_input(path, key, "a 1-D array (" + expected + "), got " + shape_to_string(shape));
                  }).to_float64();
  return Eigen::Map<const Eigen::VectorXd>(a.doubles().data(), static_cast<Eigen::Index>(a.size()));
}

std::string matrix_shape(const Eigen::MatrixXd& m) {
  return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

}  // namespace logz::io
