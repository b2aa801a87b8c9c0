// RBM training on a tiny problem where everything is enumerable: data drawn exactly from a
// known 6-3 RBM, and the exact average log-likelihood of the trained model (2^6 x 2^3 states,
// computed here by brute force, sharing no code with the trainer) must close most of the gap
// between the starting point and the true model, for CD-1, CD-5 and PCD.
#include "logz/training/rbm_trainer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/random/philox.hpp"

namespace {

using logz::RbmParameters;

constexpr int kVisible = 6, kHidden = 3;

// -E(v, h) = a.v + b.h + v.W.h by explicit loops over the bits.
double minus_energy(const RbmParameters& r, int v, int h) {
  double s = 0.0;
  for (int i = 0; i < r.num_visible(); ++i) {
    if (!(v >> i & 1)) continue;
    s += r.a[i];
    for (int j = 0; j < r.num_hidden(); ++j)
      if (h >> j & 1) s += r.W(i, j);
  }
  for (int j = 0; j < r.num_hidden(); ++j)
    if (h >> j & 1) s += r.b[j];
  return s;
}

// log p(v) for every visible state v, by summing exp(-E) over all (v, h).
std::vector<double> exact_log_marginals(const RbmParameters& r) {
  const int nv = 1 << r.num_visible(), nh = 1 << r.num_hidden();
  std::vector<double> log_pv(nv);
  double z = 0.0;
  for (int v = 0; v < nv; ++v) {
    double s = 0.0;
    for (int h = 0; h < nh; ++h) s += std::exp(minus_energy(r, v, h));
    log_pv[v] = std::log(s);
    z += s;
  }
  for (double& x : log_pv) x -= std::log(z);
  return log_pv;
}

RbmParameters true_rbm() {
  RbmParameters t;
  t.W.resize(kVisible, kHidden);
  // Three overlapping "features", each switching on two visible units and off two others.
  t.W << 3, -2, 0, 3, 0, -2, -2, 3, 0, 0, 3, -2, -2, 0, 3, 0, -2, 3;
  t.a = Eigen::VectorXd::Constant(kVisible, -1.0);
  t.b = Eigen::VectorXd::Constant(kHidden, -1.5);
  return t;
}

struct TinyData {
  Eigen::MatrixXd x;       // 6 x N, one example per column
  std::vector<int> state;  // the visible state of each example as bits
};

// N exact draws from the true RBM's marginal by inverse CDF over the 64 visible states.
TinyData draw_data(int n, std::uint64_t seed) {
  const std::vector<double> log_pv = exact_log_marginals(true_rbm());
  std::vector<double> cdf(log_pv.size());
  double c = 0.0;
  for (std::size_t v = 0; v < log_pv.size(); ++v) cdf[v] = c += std::exp(log_pv[v]);
  TinyData d;
  d.x.resize(kVisible, n);
  for (int e = 0; e < n; ++e) {
    logz::RandomStream s(seed, static_cast<std::uint64_t>(e), logz::Purpose::test, 0);
    const double u = s.uniform();
    int v = 0;
    while (v < 63 && cdf[v] < u) ++v;
    d.state.push_back(v);
    for (int i = 0; i < kVisible; ++i) d.x(i, e) = v >> i & 1;
  }
  return d;
}

double mean_log_likelihood(const RbmParameters& r, const TinyData& d) {
  const std::vector<double> log_pv = exact_log_marginals(r);
  double s = 0.0;
  for (int v : d.state) s += log_pv[v];
  return s / static_cast<double>(d.state.size());
}

logz::RbmTrainingOptions tiny_options(logz::RbmTrainingMethod method, int k) {
  logz::RbmTrainingOptions o;
  o.num_hidden = kHidden;
  o.method = method;
  o.k = k;
  o.batch_size = 20;
  o.learning_rate = 0.02;
  o.momentum = 0.5;
  o.weight_decay = 0.0;
  o.epochs = 100;
  o.init_sd = 0.1;
  o.seed = 3;
  return o;
}

TEST(RbmTrainer, FreeEnergyMatchesEnumerationOverHiddenStates) {
  const RbmParameters t = true_rbm();
  Eigen::MatrixXd v(kVisible, 64);
  for (int s = 0; s < 64; ++s)
    for (int i = 0; i < kVisible; ++i) v(i, s) = s >> i & 1;
  const Eigen::VectorXd f = logz::rbm_free_energy(t, v);
  for (int s = 0; s < 64; ++s) {
    double z = 0.0;
    for (int h = 0; h < 8; ++h) z += std::exp(minus_energy(t, s, h));
    EXPECT_NEAR(f[s], -std::log(z), 1e-12) << s;
  }
}

TEST(RbmTrainer, InitialisationUsesSmoothedMarginalsAndSmallWeights) {
  Eigen::MatrixXd x(3, 4);
  x << 1, 1, 1, 1,  // always on
      0, 0, 0, 0,   // never on
      1, 0, 1, 0;   // half
  const RbmParameters r = logz::initial_rbm(x, 200, 0.01, 9);
  EXPECT_NEAR(r.a[0], std::log(5.0 / 1.0), 1e-12);  // p = 5/6
  EXPECT_NEAR(r.a[1], std::log(1.0 / 5.0), 1e-12);  // p = 1/6
  EXPECT_NEAR(r.a[2], 0.0, 1e-12);
  EXPECT_TRUE(r.b.isZero());
  const double sd = std::sqrt(r.W.squaredNorm() / static_cast<double>(r.W.size()));
  EXPECT_NEAR(sd, 0.01, 0.002);  // 600 normal draws: sd within ~7 standard errors
  EXPECT_NEAR(r.W.mean(), 0.0, 0.002);
}

TEST(RbmTrainer, CdAndPcdApproachTheTrueModel) {
  const TinyData d = draw_data(2000, 7);
  const double truth = mean_log_likelihood(true_rbm(), d);
  const RbmParameters start = logz::initial_rbm(d.x, kHidden, 0.1, 3);
  const double initial = mean_log_likelihood(start, d);
  // The independent-pixel start is far from the true model; an RBM with 3 hidden units can
  // match it (up to sampling noise in 2000 draws, a few 0.001 nats).
  ASSERT_GT(truth - initial, 0.4);
  for (auto [method, k] :
       {std::pair{logz::RbmTrainingMethod::cd, 1}, std::pair{logz::RbmTrainingMethod::cd, 5},
        std::pair{logz::RbmTrainingMethod::pcd, 1}}) {
    std::vector<double> recon;
    const auto result = logz::train_rbm(d.x, Eigen::MatrixXd(kVisible, 0), tiny_options(method, k),
                                        [&](const logz::RbmEpochStats& s, const RbmParameters&) {
                                          recon.push_back(s.reconstruction_error);
                                          EXPECT_TRUE(std::isnan(s.free_energy_gap));
                                        });
    const double trained = mean_log_likelihood(result.rbm, d);
    SCOPED_TRACE(::testing::Message()
                 << "method " << (method == logz::RbmTrainingMethod::cd ? "cd" : "pcd") << " k "
                 << k << ": initial " << initial << " trained " << trained << " true " << truth);
    // Within 0.06 nats of the truth: at least 90% of the gap closed (0.01-0.02 seen).
    EXPECT_GT(trained, truth - 0.06);
    ASSERT_EQ(result.history.size(), 100u);
    EXPECT_LT(recon.back(), 0.9 * recon.front());
  }
}

TEST(RbmTrainer, SameSeedSameParametersAndValidationIsMonitored) {
  const TinyData d = draw_data(300, 11), v = draw_data(100, 12);
  auto o = tiny_options(logz::RbmTrainingMethod::pcd, 2);
  o.epochs = 5;
  const auto a = logz::train_rbm(d.x, v.x, o), b = logz::train_rbm(d.x, v.x, o);
  EXPECT_EQ(a.rbm.W, b.rbm.W);
  EXPECT_EQ(a.rbm.a, b.rbm.a);
  EXPECT_EQ(a.rbm.b, b.rbm.b);
  EXPECT_TRUE(std::isfinite(a.history.back().free_energy_gap));
  EXPECT_TRUE(std::isfinite(a.history.back().validation_reconstruction_error));
  o.seed = 4;
  EXPECT_NE(logz::train_rbm(d.x, v.x, o).rbm.W, a.rbm.W);
}

// A training stopped after 2 epochs and continued from its state ends with the bits of 5 epochs
// in one go (PCD: the persistent chains and the update count that numbers the streams are state).
TEST(RbmTrainer, TrainingContinuedFromItsStateMatchesOneRun) {
  const TinyData d = draw_data(300, 11);
  for (auto method : {logz::RbmTrainingMethod::pcd, logz::RbmTrainingMethod::cd}) {
    auto o = tiny_options(method, 2);
    o.epochs = 5;
    const auto whole = logz::train_rbm(d.x, Eigen::MatrixXd(kVisible, 0), o);
    logz::RbmTrainerState state;
    int seen = 0;
    try {
      logz::train_rbm(
          d.x, Eigen::MatrixXd(kVisible, 0), o,
          [&](const logz::RbmEpochStats&, const logz::RbmParameters&) {
            if (++seen == 2) throw std::runtime_error("stop after 2 epochs");
          },
          {}, &state);
    } catch (const std::runtime_error&) {
    }
    ASSERT_EQ(state.epochs_done, 2);
    const auto resumed = logz::train_rbm(d.x, Eigen::MatrixXd(kVisible, 0), o, {}, {}, &state);
    EXPECT_EQ(resumed.rbm.W, whole.rbm.W);
    EXPECT_EQ(resumed.rbm.a, whole.rbm.a);
    EXPECT_EQ(resumed.rbm.b, whole.rbm.b);
    ASSERT_EQ(resumed.history.size(), 5u);
    EXPECT_EQ(resumed.history[4].reconstruction_error, whole.history[4].reconstruction_error);
    EXPECT_EQ(state.epochs_done, 5);
    logz::RbmTrainerState wrong = state;
    wrong.dW.resize(1, 1);
    EXPECT_THROW(logz::train_rbm(d.x, Eigen::MatrixXd(kVisible, 0), o, {}, {}, &wrong),
                 logz::InvalidArgument);
  }
}

TEST(RbmTrainer, BadOptionsAndDataAreRejected) {
  const TinyData d = draw_data(50, 1);
  const Eigen::MatrixXd none(kVisible, 0);
  auto o = tiny_options(logz::RbmTrainingMethod::cd, 1);
  o.k = 0;
  EXPECT_THROW(logz::train_rbm(d.x, none, o), logz::InvalidArgument);
  o = tiny_options(logz::RbmTrainingMethod::cd, 1);
  o.momentum = 1.0;
  EXPECT_THROW(logz::train_rbm(d.x, none, o), logz::InvalidArgument);
  Eigen::MatrixXd grey = d.x;
  grey(0, 0) = 0.5;
  EXPECT_THROW(logz::train_rbm(grey, none, tiny_options(logz::RbmTrainingMethod::cd, 1)),
               logz::InvalidArgument);
  EXPECT_THROW(logz::train_rbm(d.x, Eigen::MatrixXd::Zero(5, 3),
                               tiny_options(logz::RbmTrainingMethod::cd, 1)),
               logz::InvalidArgument);
  // Settings that diverge drive the parameters to infinity: a NumericalError, not NaN output.
  o = tiny_options(logz::RbmTrainingMethod::cd, 1);
  o.learning_rate = 1e10;
  o.weight_decay = 1e300;
  o.epochs = 3;
  EXPECT_THROW(logz::train_rbm(d.x, none, o), logz::NumericalError);
}

}  // namespace
