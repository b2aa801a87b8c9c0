// Members of .npz archives as Eigen matrices and vectors (converted to float64; numpy's C order
// read into Eigen's column-major storage): the models' parameter files.
#pragma once

#include <Eigen/Core>
#include <string>

#include "logz/io/npz.hpp"

namespace logz::io {

// The 2-D member `key` as a matrix, read straight into it (the data are held once, whatever
// the member's dtype and memory order). Any other rank is an InputError naming the file and
// key, "a 2-D array (<expected>), got <shape>", raised before the member's data are read, as is
// whatever `check` (given the header's shape) throws: a caller that knows the dimensions it
// needs refuses a wrong member without reading it.
Eigen::MatrixXd read_npz_matrix(const std::string& path, const std::string& key,
                                const std::string& expected, const ShapeCheck& check = {});

// The 1-D member `key` (or an n x 1 one) as a vector; otherwise "a 1-D array (<expected>), ...".
Eigen::VectorXd read_npz_vector(const std::string& path, const std::string& key,
                                const std::string& expected, const ShapeCheck& check = {});

// "rows x cols", for messages about a matrix's shape.
std::string matrix_shape(const Eigen::MatrixXd& m);

}  // namespace logz::io
