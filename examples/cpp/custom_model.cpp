// A model that logz does not ship, in one file: the "banana" (a twisted Gaussian, Haario et al.
// 1999) in d dimensions,
//   U(x) = x_1^2 / (2 s^2) + (x_2 + b (x_1^2 - s^2))^2 / 2 + sum_{i>2} x_i^2 / 2,
// whose map x -> (x_1, x_2 + b (x_1^2 - s^2), x_3, ...) has Jacobian 1, so that
// Z = (2 pi)^(d/2) s exactly and exact draws are a Gaussian pushed back through the map.
// It is annealed from N(0, 2^2 I) by Hamiltonian AIS forward and in reverse (from exact draws),
// and the estimators' answers are written as `logz run --output` writes them.
//
//   custom_model [--output FILE] [--paths M] [--steps K] [--seed S]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <logz/logz.hpp>
#include <logz/report/json.hpp>
#include <logz/report/tables.hpp>
#include <numbers>
#include <string>

namespace {

class Banana {
 public:
  Banana(int dim, double s, double b) : dim_(dim), s_(s), b_(b) {}

  // The continuous-target interface (logz/models/continuous_target.hpp): a d x P batch.
  int dim() const { return dim_; }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    e.resize(X.cols());
    for (Eigen::Index p = 0; p < X.cols(); ++p) e(p) = energy_of(X.col(p));
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    energy(X, e);
    G = X;  // the Gaussian coordinates x_3 ... x_d have gradient x_i
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      const double x1 = X(0, p), twist = X(1, p) + b_ * (x1 * x1 - s_ * s_);
      G(0, p) = x1 / (s_ * s_) + twist * 2.0 * b_ * x1;
      G(1, p) = twist;
    }
  }

  double exact_log_z() const {
    return 0.5 * dim_ * std::log(2.0 * std::numbers::pi) + std::log(s_);
  }

  // Exact draws: y ~ N(0, diag(s^2, 1, ..., 1)), then x_2 = y_2 - b (y_1^2 - s^2).
  void sample(Eigen::MatrixXd& X, const logz::BatchRandom& random) const {
    for (Eigen::Index p = 0; p < X.cols(); ++p) {
      logz::RandomStream rng = random.stream(static_cast<std::size_t>(p));
      for (int i = 0; i < dim_; ++i) X(i, p) = rng.normal();
      X(0, p) *= s_;
      X(1, p) -= b_ * (X(0, p) * X(0, p) - s_ * s_);
    }
  }

 private:
  double energy_of(const Eigen::Ref<const Eigen::VectorXd>& x) const {
    const double twist = x(1) + b_ * (x(0) * x(0) - s_ * s_);
    return 0.5 * x(0) * x(0) / (s_ * s_) + 0.5 * twist * twist +
           0.5 * x.tail(dim_ - 2).squaredNorm();
  }

  int dim_;
  double s_, b_;
};

static_assert(logz::ContinuousTarget<Banana>);

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  std::size_t paths = 200, steps = 2000;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--output")
      output = value;
    else if (flag == "--paths")
      paths = std::stoul(value);
    else if (flag == "--steps")
      steps = std::stoul(value);
    else if (flag == "--seed")
      seed = std::stoull(value);
    else {
      std::cerr << "custom_model: " << flag << ": expected --output, --paths, --steps or --seed\n";
      return 2;
    }
  }

  const Banana banana(4, 1.5, 0.5);
  const logz::GaussianBase base = logz::GaussianBase::isotropic(banana.dim(), 2.0);
  const logz::GeometricPath<logz::GaussianBase, Banana> path(base, banana);
  const logz::Hais kernel(0.2, logz::Hais::half_life_refresh(0.2, 1, 1.0), 1);
  const logz::Schedule schedule = logz::linear_schedule(steps);
  logz::AnnealOptions options;
  options.num_paths = paths;
  options.seed = seed;

  logz::RunResult result;
  result.forward = logz::anneal_forward(path, kernel, schedule, options);
  // Reverse runs start from exact draws of the target: the driver hands each chunk its
  // streams; substream 0 for the positions, 1 for the momenta.
  auto exact_start = [&](logz::ContinuousBatch& batch, const logz::ChunkStreams& streams) {
    banana.sample(batch.X, streams.random(0));
    path.sample_momentum(batch, streams.random(1));
    batch.parts.invalidate();
  };
  result.reverse = logz::anneal_reverse(path, kernel, schedule, exact_start, options);

  const auto& wf = result.forward->works;
  const auto& wr = result.reverse->works;
  result.estimates = {logz::ais(wf), logz::raise(wr), logz::lower_bound(wf), logz::upper_bound(wr),
                      logz::bar(wf, wr)};
  result.base_log_z = base.log_z();
  result.reference = logz::Reference{banana.exact_log_z(), "exact (the twist has Jacobian 1)"};
  result.model = {{"type", "banana"}, {"dim", banana.dim()}, {"s", 1.5}, {"b", 0.5}};
  result.kernel = {{"type", "hais"}, {"step_size", 0.2}, {"leapfrog_steps", 1}};

  std::cout << logz::report::result_table(result);
  if (!output.empty())
    std::ofstream(output) << logz::report::result_to_json(result).dump(2) << "\n";
  return 0;
}
