#include "logz/io/npz_eigen.hpp"

#include <limits>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/io/npz.hpp"

namespace logz::io {

namespace {

// A dimension Eigen can index (a member of 0 rows may claim any number of columns).
void check_dims(const std::string& path, const std::string& key,
                const std::vector<std::size_t>& shape) {
  for (const std::size_t n : shape)
    if (n > static_cast<std::size_t>(std::numeric_limits<Eigen::Index>::max()))
      fail_input(path, key, "dimensions below 2^63, got " + shape_to_string(shape));
}

}  // namespace

// Both read the member straight into the Eigen storage (io::read_npz_doubles): the data are held
// once, where a read into an Array and a copy into Eigen held them twice (2.06 GB for 1 GiB).
Eigen::MatrixXd read_npz_matrix(const std::string& path, const std::string& key,
                                const std::string& expected, const ShapeCheck& check) {
  Eigen::MatrixXd m;
  read_npz_doubles(
      path, key,
      [&](const std::vector<std::size_t>& shape) {
        if (shape.size() != 2)
          fail_input(path, key, "a 2-D array (" + expected + "), got " + shape_to_string(shape));
        check_dims(path, key, shape);
        if (check) check(shape);
      },
      [&](const std::vector<std::size_t>& shape) {
        m.resize(static_cast<Eigen::Index>(shape[0]), static_cast<Eigen::Index>(shape[1]));
        return DoublesPlace{{m.data(), static_cast<std::size_t>(m.size())}, true};
      });
  return m;
}

Eigen::VectorXd read_npz_vector(const std::string& path, const std::string& key,
                                const std::string& expected, const ShapeCheck& check) {
  Eigen::VectorXd v;
  read_npz_doubles(
      path, key,
      [&](const std::vector<std::size_t>& shape) {
        if (shape.size() != 1 && !(shape.size() == 2 && shape[1] == 1))
          fail_input(path, key, "a 1-D array (" + expected + "), got " + shape_to_string(shape));
        check_dims(path, key, shape);
        if (check) check(shape);
      },
      [&](const std::vector<std::size_t>& shape) {
        v.resize(static_cast<Eigen::Index>(shape[0]));
        return DoublesPlace{{v.data(), static_cast<std::size_t>(v.size())}, true};
      });
  return v;
}

std::string matrix_shape(const Eigen::MatrixXd& m) {
  return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
}

}  // namespace logz::io
