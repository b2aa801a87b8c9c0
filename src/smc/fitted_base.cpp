#include "logz/smc/fitted_base.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/math/gaussian_mixture_em.hpp"
#include "logz/math/separated_clusters.hpp"
#include "logz/smc/adaptive_smc.hpp"

namespace logz {

namespace {

// The mass of the one-Gaussian component of a shape mixture with ShapeTails::defended.
constexpr double kDefensiveMass = 0.2;
// The most dimensions a shape mixture is fitted in. At d = 5 its components (21 parameters
// each, 5 particles a parameter) were fitted loosely enough that on a Student t posterior the
// run from them read its error bar about 20% low (RMS z 1.2-1.25 over 30-40 seeds, coverage
// 0.90-0.93); at d <= 3 (at most 10 parameters a component) the mixtures are as well
// calibrated as one Gaussian was (docs/evidence.md, "A mixture for the shape").
constexpr Eigen::Index kShapeMixtureMaxDim = 3;

// The particles' weights, normalised.
Eigen::VectorXd normalised_weights(const SmcResult& run) {
  Eigen::VectorXd w(run.particles.cols());
  for (Eigen::Index i = 0; i < w.size(); ++i)
    w(i) = std::exp(run.log_weights[static_cast<std::size_t>(i)]);
  return w / w.sum();
}

// The weighted covariance of the centred particles (1 / (1 - sum W^2) normalisation), every
// variance at least 1e-12 of the mean one, the whole times widening^2.
Eigen::MatrixXd weighted_covariance(const Eigen::MatrixXd& centred, const Eigen::VectorXd& w,
                                    double widening) {
  const double norm = 1.0 - w.squaredNorm();
  Eigen::MatrixXd cov = centred * w.asDiagonal() * centred.transpose() / (norm > 0 ? norm : 1.0);
  // A coordinate the particles did not spread keeps a scale.
  const double floor = 1e-12 * std::max(cov.trace() / static_cast<double>(centred.rows()), 1e-300);
  cov.diagonal() = cov.diagonal().cwiseMax(floor);
  return cov * (widening * widening);
}

// The particles' weighted mean and covariance (weighted_covariance).
void weighted_moments(const SmcResult& run, double widening, Eigen::VectorXd& mean,
                      Eigen::MatrixXd& cov) {
  const Eigen::VectorXd w = normalised_weights(run);
  mean = run.particles * w;
  cov = weighted_covariance(run.particles.colwise() - mean, w, widening);
}

// The number of distinct columns of X (repeated ones counted once): those first at their
// position among the copy groups SMC's moves already make.
std::size_t distinct_columns(const Eigen::MatrixXd& X) {
  const std::vector<std::size_t> group = detail::copy_groups(X);
  std::size_t distinct = 0;
  for (std::size_t p = 0; p < group.size(); ++p) distinct += group[p] == p ? 1 : 0;
  return distinct;
}

// The Cholesky factor exists, or the diagonal alone.
Eigen::MatrixXd definite_or_diagonal(Eigen::MatrixXd cov) {
  if (Eigen::LLT<Eigen::MatrixXd>(cov).info() != Eigen::Success)
    cov = Eigen::MatrixXd(cov.diagonal().asDiagonal());
  return cov;
}

}  // namespace

GaussianBase fit_gaussian_base(const SmcResult& run, double widening) {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
  weighted_moments(run, widening, mean, cov);
  return GaussianBase(mean, definite_or_diagonal(std::move(cov)));
}

std::optional<GaussianMixture> fit_gaussian_mixture_base(const SmcResult& run, double widening,
                                                         double min_mass) {
  const Eigen::MatrixXd& X = run.particles;
  const Eigen::VectorXd w = normalised_weights(run);
  const SeparatedClusters modes = separated_clusters(X, w);
  const int k = modes.size();
  if (k < 2) return std::nullopt;
  Eigen::MatrixXd centred = X;
  for (Eigen::Index i = 0; i < X.cols(); ++i)
    centred.col(i) -= modes.means.col(modes.labels[static_cast<std::size_t>(i)]);
  const Eigen::MatrixXd cov = definite_or_diagonal(weighted_covariance(centred, w, widening));
  std::vector<Eigen::VectorXd> means;
  std::vector<double> mass;
  for (int l = 0; l < k; ++l) {
    means.emplace_back(modes.means.col(l));
    mass.push_back(std::max(modes.weights(l), min_mass));
  }
  const double total = std::accumulate(mass.begin(), mass.end(), 0.0);
  for (double& m : mass) m /= total;
  return GaussianMixture(std::move(mass), std::move(means),
                         std::vector<Eigen::MatrixXd>(static_cast<std::size_t>(k), cov),
                         "logz::fit_gaussian_mixture_base");
}

std::optional<GaussianMixture> fit_shape_mixture_base(const SmcResult& run, double widening,
                                                      ShapeTails tails, double min_mass) {
  const Eigen::MatrixXd& X = run.particles;
  if (X.rows() > kShapeMixtureMaxDim || X.cols() == 0 || !X.allFinite()) return std::nullopt;
  const Eigen::VectorXd w = normalised_weights(run);
  // The weights' effective sample size, times the fraction of the particles that are distinct
  // (a resampled particle whose moves were all refused repeats its ancestor).
  const double effective =
      static_cast<double>(distinct_columns(X)) / static_cast<double>(X.cols()) / w.squaredNorm();
  if (!(effective >= 1.0)) return std::nullopt;
  const GaussianMixtureFit fit = fit_gaussian_mixture_bic(X, w, effective);
  if (fit.size() < 2) return std::nullopt;
  std::vector<double> mass;
  std::vector<Eigen::MatrixXd> covs;
  for (int j = 0; j < fit.size(); ++j) {
    mass.push_back(std::max(fit.weights[static_cast<std::size_t>(j)], min_mass));
    covs.push_back(
        definite_or_diagonal(fit.covariances[static_cast<std::size_t>(j)] * (widening * widening)));
  }
  const double total = std::accumulate(mass.begin(), mass.end(), 0.0);
  std::vector<Eigen::VectorXd> means = fit.means;
  const double defensive = tails == ShapeTails::defended ? kDefensiveMass : 0.0;
  for (double& m : mass) m *= (1.0 - defensive) / total;
  if (defensive > 0.0) {
    // Defensive importance sampling (Hesterberg 1995): the one Gaussian of fit_gaussian_base
    // as a component too, so that the base is nowhere below kDefensiveMass times it where the
    // target's tails are heavier than the components' (a Student t posterior).
    Eigen::VectorXd mean;
    Eigen::MatrixXd cov;
    weighted_moments(run, widening, mean, cov);
    means.push_back(std::move(mean));
    covs.push_back(definite_or_diagonal(std::move(cov)));
    mass.push_back(defensive);
  }
  return GaussianMixture(std::move(mass), std::move(means), std::move(covs),
                         "logz::fit_shape_mixture_base");
}

TruncatedGaussianBase fit_truncated_gaussian_base(const SmcResult& run, double widening,
                                                  const Eigen::VectorXd& low,
                                                  const Eigen::VectorXd& high) {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
  weighted_moments(run, widening, mean, cov);
  // The weighted mean of particles inside a box is inside it, up to rounding.
  mean = mean.cwiseMax(low).cwiseMin(high);
  return TruncatedGaussianBase(mean, cov.diagonal().cwiseSqrt(), low, high);
}

bool run_disagrees_with_pilot(double pilot, double se_pilot, double run, double se_run) {
  const double m = 4.0 * std::hypot(se_pilot, se_run) + 0.05, above = run - pilot;
  return !(above >= -m && above <= 2.0 * m);
}

}  // namespace logz
