// The parameters of a binary restricted Boltzmann machine,
// E(v, h) = -(a.v + b.h + v.W.h) with v in {0,1}^M, h in {0,1}^J, and their
// .npz files: W (M x J), a (M), b (J) by default, key names configurable.
#pragma once

#include <Eigen/Core>
#include <string>

namespace logz {

struct RbmKeys {
  std::string weights = "W", visible_bias = "a", hidden_bias = "b";
};

struct RbmParameters {
  Eigen::MatrixXd W;  // M x J couplings
  Eigen::VectorXd a;  // visible biases (M)
  Eigen::VectorXd b;  // hidden biases (J)

  int num_visible() const { return static_cast<int>(W.rows()); }
  int num_hidden() const { return static_cast<int>(W.cols()); }
  // Shapes agree and every value is finite; errors name source and key.
  void validate(const std::string& source, const RbmKeys& keys = {}) const;
};

// Reads and validates; one-line InputError naming the file and key on any problem.
RbmParameters load_rbm(const std::string& path, const RbmKeys& keys = {});
void save_rbm(const std::string& path, const RbmParameters& rbm, const RbmKeys& keys = {});

}  // namespace logz
