#include "logz/models/gaussian_mixture_in_box.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/models/box_constraints.hpp"
#include "logz/models/sample_columns.hpp"

namespace logz {

namespace {

constexpr const char* kSource = "logz::GaussianMixtureInBox";
constexpr double kInf = std::numeric_limits<double>::infinity();
// With at least half of the draws inside, 1000 misses in a row have probability 2^-1000.
constexpr int kMaxTries = 1000;

}  // namespace

GaussianMixtureInBox::GaussianMixtureInBox(GaussianMixture mixture, Eigen::VectorXd low,
                                           Eigen::VectorXd high)
    : mixture_(std::move(mixture)), low_(std::move(low)), high_(std::move(high)) {
  const Eigen::Index d = mixture_.dim();
  if (low_.size() != d || high_.size() != d || low_.array().isNaN().any() ||
      high_.array().isNaN().any() || !(low_.array() < high_.array()).all())
    fail_argument(kSource, "high", "low < high in every coordinate, as many as the mixture's");
  constraints_ = box_constraints(low_, high_);
}

std::optional<GaussianMixtureInBox> GaussianMixtureInBox::measured(
    GaussianMixture mixture, const Eigen::VectorXd& low, const Eigen::VectorXd& high,
    const BatchRandom& random, std::size_t draws, double min_inside) {
  if (draws < 1) fail_argument(kSource, "draws", "at least 1");
  GaussianMixtureInBox box(std::move(mixture), low, high);
  Eigen::VectorXd x(box.dim());
  std::size_t in = 0;
  for (std::size_t p = 0; p < draws; ++p) {
    RandomStream s = random.stream(p);
    box.mixture_.sample_one(s, x);
    in += box.inside(x) ? 1 : 0;
  }
  const double f = static_cast<double>(in) / static_cast<double>(draws);
  if (!(f >= min_inside) || in == 0) return std::nullopt;
  box.fraction_inside_ = f;
  box.log_z_ = box.mixture_.log_z() + std::log(f);
  box.log_z_std_error_ = std::sqrt((1.0 - f) / (f * static_cast<double>(draws)));
  return box;
}

bool GaussianMixtureInBox::inside(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return (x.array() >= low_.array()).all() && (x.array() <= high_.array()).all();
}

void GaussianMixtureInBox::energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
  mixture_.energy(X, e);
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    if (!inside(X.col(p))) e(p) = kInf;
}

void GaussianMixtureInBox::energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                           Eigen::MatrixXd& G) const {
  mixture_.energy_and_grad(X, e, G);
  for (Eigen::Index p = 0; p < X.cols(); ++p)
    if (!inside(X.col(p))) e(p) = kInf;
}

void GaussianMixtureInBox::sample(Eigen::MatrixXd& X, const BatchRandom& random) const {
  sample_columns(*this, X, random);
}

void GaussianMixtureInBox::sample_one(RandomStream& stream, Eigen::Ref<Eigen::VectorXd> x) const {
  for (int t = 0; t < kMaxTries; ++t) {
    mixture_.sample_one(stream, x);
    if (inside(x)) return;
  }
  fail_argument(kSource, "sample_one", "a box that holds the mixture's draws now and then");
}

}  // namespace logz
