// Maximum-likelihood training of a binary RBM, E(v, h) = -(a.v + b.h + v.W.h), by contrastive
// divergence (CD-k, Hinton 2002) or persistent contrastive divergence (PCD, Tieleman 2008) on
// minibatches, with momentum and L2 weight decay:
//   dW <- momentum dW + lr ((V0 P0^T - Vk Pk^T) / B - wd W),  W <- W + dW
// (da, db alike without decay), where V0 is the minibatch, P0 = p(h = 1 | V0), Vk the binary
// visible states after k Gibbs sweeps and Pk = p(h = 1 | Vk): hidden statistics are
// probabilities, visible ones are states. Data and chains are matrices with one example per
// column. Single-threaded with Eigen's GEMMs and counter-based streams, so a run depends on the
// seed and the options only.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "logz/core/stop_request.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/random/default_seed.hpp"

namespace logz {

enum class RbmTrainingMethod { cd, pcd };

struct RbmTrainingOptions {
  int num_hidden = 25;
  RbmTrainingMethod method = RbmTrainingMethod::cd;
  int k = 1;             // Gibbs sweeps (h then v) per parameter update
  int batch_size = 100;  // examples per update; PCD keeps batch_size persistent chains
  double learning_rate = 0.05;
  double momentum = 0.5;       // in [0, 1)
  double weight_decay = 2e-4;  // L2 coefficient on W only
  int epochs = 10;
  double init_sd = 0.01;  // W starts N(0, init_sd^2); a = logit of smoothed data marginals; b = 0
  std::uint64_t seed = kDefaultSeed;
  StopToken stop;  // the caller's stop request (core/stop_request.hpp): Stopped before an update
};

// Monitoring after each epoch (the log-likelihood itself needs log Z: see docs/training.md).
struct RbmEpochStats {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int epoch = 0;                                  // 1-based
  double reconstruction_error = kNaN;             // training set, see rbm_reconstruction_error
  double validation_reconstruction_error = kNaN;  // NaN without validation data
  // mean F(validation) - mean F(first num_validation training examples): grows when the model
  // overfits (Hinton 2010, A practical guide to training RBMs, section 6). NaN without
  // validation data.
  double free_energy_gap = kNaN;
  double seconds = 0.0;  // wall time of the epoch's updates and monitoring
};

struct RbmTrainingResult {
  RbmParameters rbm;
  std::vector<RbmEpochStats> history;
};

// Where training stands after its last complete epoch: all it needs to go on with the bits of
// an uninterrupted run (a checkpoint of `logz train rbm` holds it).
struct RbmTrainerState {
  int epochs_done = 0;
  std::uint32_t updates = 0;  // parameter updates so far (they number the Gibbs streams)
  RbmParameters rbm;
  Eigen::MatrixXd dW;  // momentum terms
  Eigen::VectorXd da, db;
  Eigen::MatrixXd persistent;  // PCD's chains (no columns before the first update, or for CD)
  std::vector<RbmEpochStats> history;
};

// Called after each epoch with its statistics and the current parameters.
using RbmEpochCallback = std::function<void(const RbmEpochStats&, const RbmParameters&)>;
// Called after every parameter update (numbered from 1) with the new parameters.
using RbmUpdateCallback = std::function<void(std::uint64_t update, const RbmParameters&)>;

// The starting point: W ~ N(0, init_sd^2) (row i from its own stream), a_i = log(p_i / (1 - p_i))
// with the smoothed marginal p_i = (count_i + 1) / (N + 2) of the training data, b = 0.
RbmParameters initial_rbm(const Eigen::MatrixXd& train, int num_hidden, double init_sd,
                          std::uint64_t seed);

// Free energy of each column v: F(v) = -a.v - sum_j log(1 + exp(b_j + (W^T v)_j)), so that
// p(v) = exp(-F(v)) / Z.
Eigen::VectorXd rbm_free_energy(const RbmParameters& rbm, const Eigen::MatrixXd& v);

// Mean over columns of sum_i (v_i - r_i)^2 with the mean-field reconstruction
// r = sigmoid(a + W sigmoid(b + W^T v)) (deterministic, so it can be compared across epochs).
double rbm_reconstruction_error(const RbmParameters& rbm, const Eigen::MatrixXd& v);

// Trains on `train` (M x N, values 0 or 1, one example per column); `validation` (M x N_v, may
// have no columns) is only monitored. Throws InvalidArgument for bad options or data and
// NumericalError if the parameters become non-finite (learning rate too large). The epoch's
// `seconds` include the time spent in on_update. With `state`: training continues from it when
// it has epochs done (InvalidArgument when its shapes do not fit the data and options), and it
// is brought up to date after every epoch, before on_epoch is called.
RbmTrainingResult train_rbm(const Eigen::MatrixXd& train, const Eigen::MatrixXd& validation,
                            const RbmTrainingOptions& options,
                            const RbmEpochCallback& on_epoch = {},
                            const RbmUpdateCallback& on_update = {},
                            RbmTrainerState* state = nullptr);

}  // namespace logz
