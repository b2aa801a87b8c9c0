#include "logz/training/rbm_trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "logz/core/error.hpp"
#include "logz/io/mnist.hpp"

namespace logz {

namespace {

// Role words of the trainer's streams (data preparation uses 1 and 2; see io/mnist.hpp).
constexpr std::uint32_t kRoleInit = 16, kRoleShuffle = 17, kRoleGibbs = 18;

// Largest number of columns the per-epoch monitoring looks at (keeps it cheap on 60,000 images).
constexpr Eigen::Index kMonitorColumns = 10000;

// 1 / (1 + exp(-x)): exp(-x) = inf gives exactly 0, never NaN.
Eigen::MatrixXd sigmoid(const Eigen::MatrixXd& x) {
  return (1.0 + (-x.array()).exp()).inverse().matrix();
}

// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), finite for any finite x.
Eigen::ArrayXXd softplus_elementwise(const Eigen::ArrayXXd& x) {
  return x.max(0.0) + (-x.abs()).exp().log1p();
}

// Hidden probabilities p(h = 1 | v) for the columns of v.
Eigen::MatrixXd hidden_probabilities(const RbmParameters& rbm, const Eigen::MatrixXd& v) {
  Eigen::MatrixXd x = rbm.W.transpose() * v;
  x.colwise() += rbm.b;
  return sigmoid(x);
}

Eigen::MatrixXd visible_probabilities(const RbmParameters& rbm, const Eigen::MatrixXd& h) {
  Eigen::MatrixXd x = rbm.W * h;
  x.colwise() += rbm.a;
  return sigmoid(x);
}

// Column c's units drawn from streams[c], in row order: the numbers a chain uses depend only on
// its own stream, never on the other columns.
void sample_into(const Eigen::MatrixXd& p, std::vector<RandomStream>& streams,
                 Eigen::MatrixXd& out) {
  out.resize(p.rows(), p.cols());
  for (Eigen::Index c = 0; c < p.cols(); ++c) {
    RandomStream& s = streams[static_cast<std::size_t>(c)];
    for (Eigen::Index r = 0; r < p.rows(); ++r) out(r, c) = s.uniform() < p(r, c) ? 1.0 : 0.0;
  }
}

bool all_finite(const RbmParameters& rbm) {
  return rbm.W.allFinite() && rbm.a.allFinite() && rbm.b.allFinite();
}

void check_options(const Eigen::MatrixXd& train, const Eigen::MatrixXd& validation,
                   const RbmTrainingOptions& o) {
  constexpr const char* f = "train_rbm";
  if (train.rows() < 1 || train.cols() < 1)
    fail_argument(f, "train", "at least one example of one pixel");
  if (validation.cols() > 0 && validation.rows() != train.rows())
    fail_argument(f, "validation",
                  fmt::format("{} rows like train, got {}", train.rows(), validation.rows()));
  for (const Eigen::MatrixXd* m : {&train, &validation})
    for (Eigen::Index i = 0; i < m->size(); ++i)
      if (m->data()[i] != 0.0 && m->data()[i] != 1.0)
        fail_argument(
            f, m == &train ? "train" : "validation",
            fmt::format("binary values 0 or 1, got {} at flat index {}", m->data()[i], i));
  if (o.num_hidden < 1)
    fail_argument(f, "num_hidden", fmt::format("at least 1, got {}", o.num_hidden));
  if (o.k < 1) fail_argument(f, "k", fmt::format("at least 1 Gibbs sweep, got {}", o.k));
  if (o.batch_size < 1)
    fail_argument(f, "batch_size", fmt::format("at least 1, got {}", o.batch_size));
  if (o.epochs < 0) fail_argument(f, "epochs", fmt::format("at least 0, got {}", o.epochs));
  if (!(o.learning_rate > 0.0) || !std::isfinite(o.learning_rate))
    fail_argument(f, "learning_rate", fmt::format("a finite number > 0, got {}", o.learning_rate));
  if (!(o.momentum >= 0.0 && o.momentum < 1.0))
    fail_argument(f, "momentum", fmt::format("a number in [0, 1), got {}", o.momentum));
  if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay))
    fail_argument(f, "weight_decay", fmt::format("a finite number >= 0, got {}", o.weight_decay));
  if (!(o.init_sd >= 0.0) || !std::isfinite(o.init_sd))
    fail_argument(f, "init_sd", fmt::format("a finite number >= 0, got {}", o.init_sd));
}

}  // namespace

RbmParameters initial_rbm(const Eigen::MatrixXd& train, int num_hidden, double init_sd,
                          std::uint64_t seed) {
  if (num_hidden < 1)
    fail_argument("initial_rbm", "num_hidden", fmt::format("at least 1, got {}", num_hidden));
  if (train.cols() < 1) fail_argument("initial_rbm", "train", "at least one example");
  RbmParameters rbm;
  const Eigen::Index m = train.rows(), j = num_hidden;
  rbm.W.resize(m, j);
  for (Eigen::Index i = 0; i < m; ++i) {
    RandomStream s = io::stream_for(seed, kRoleInit, static_cast<std::uint32_t>(i), 0);
    for (Eigen::Index c = 0; c < j; ++c) rbm.W(i, c) = init_sd * s.normal();
  }
  // Laplace-smoothed marginals keep pixels that are never (or always) on at a finite bias.
  const Eigen::ArrayXd p =
      (train.rowwise().sum().array() + 1.0) / (static_cast<double>(train.cols()) + 2.0);
  rbm.a = (p / (1.0 - p)).log().matrix();
  rbm.b = Eigen::VectorXd::Zero(j);
  return rbm;
}

Eigen::VectorXd rbm_free_energy(const RbmParameters& rbm, const Eigen::MatrixXd& v) {
  Eigen::MatrixXd x = rbm.W.transpose() * v;
  x.colwise() += rbm.b;
  const Eigen::VectorXd hidden_term =
      softplus_elementwise(x.array()).colwise().sum().transpose().matrix();
  return -(v.transpose() * rbm.a) - hidden_term;
}

double rbm_reconstruction_error(const RbmParameters& rbm, const Eigen::MatrixXd& v) {
  if (v.cols() == 0) return std::numeric_limits<double>::quiet_NaN();
  const Eigen::MatrixXd r = visible_probabilities(rbm, hidden_probabilities(rbm, v));
  return (v - r).squaredNorm() / static_cast<double>(v.cols());
}

RbmTrainingResult train_rbm(const Eigen::MatrixXd& train, const Eigen::MatrixXd& validation,
                            const RbmTrainingOptions& o, const RbmEpochCallback& on_epoch,
                            const RbmUpdateCallback& on_update, RbmTrainerState* state) {
  check_options(train, validation, o);
  const Eigen::Index m = train.rows(), n = train.cols(), j = o.num_hidden;
  const Eigen::Index batch = std::min<Eigen::Index>(o.batch_size, n);
  if (n > 0xffffffffLL) fail_argument("train_rbm", "train", "fewer than 2^32 examples");

  RbmTrainingResult result;
  RbmParameters& rbm = result.rbm;
  rbm = initial_rbm(train, static_cast<int>(j), o.init_sd, o.seed);
  Eigen::MatrixXd dW = Eigen::MatrixXd::Zero(m, j);
  Eigen::VectorXd da = Eigen::VectorXd::Zero(m), db = Eigen::VectorXd::Zero(j);

  // Monitoring sets: the first columns of the (already shuffled) training data and of the
  // validation data; the free-energy gap compares sets of equal size.
  const Eigen::Index num_monitor = std::min(n, kMonitorColumns);
  const Eigen::Index num_valid = std::min(validation.cols(), kMonitorColumns);
  const Eigen::MatrixXd valid_monitor = validation.leftCols(num_valid);
  const Eigen::MatrixXd train_for_gap = train.leftCols(std::min(n, num_valid));

  std::vector<std::uint32_t> order(static_cast<std::size_t>(n));
  Eigen::MatrixXd v0(m, batch), chain_v, chain_h, p0, pk, pv;
  Eigen::MatrixXd persistent;  // PCD chains, started at the first minibatch
  std::vector<RandomStream> streams;
  std::uint32_t update = 0;
  int first_epoch = 1;
  if (state && state->epochs_done > 0) {
    const RbmTrainerState& s = *state;
    if (s.epochs_done > o.epochs || s.rbm.W.rows() != m || s.rbm.W.cols() != j ||
        s.rbm.a.size() != m || s.rbm.b.size() != j || s.dW.rows() != m || s.dW.cols() != j ||
        s.da.size() != m || s.db.size() != j ||
        (s.persistent.cols() > 0 && s.persistent.rows() != m) ||
        s.history.size() != static_cast<std::size_t>(s.epochs_done))
      fail_argument("train_rbm", "state",
                    fmt::format("a state of this training ({} visible x {} hidden, at most {} "
                                "epochs)",
                                m, j, o.epochs));
    rbm = s.rbm, dW = s.dW, da = s.da, db = s.db, persistent = s.persistent;
    update = s.updates;
    result.history = s.history;
    first_epoch = s.epochs_done + 1;
  }

  for (int epoch = first_epoch; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    // A fresh Fisher-Yates permutation of the examples every epoch.
    std::iota(order.begin(), order.end(), 0u);
    RandomStream shuffle =
        io::stream_for(o.seed, kRoleShuffle, 0, static_cast<std::uint32_t>(epoch));
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[shuffle.below(static_cast<std::uint32_t>(i))]);

    for (Eigen::Index first = 0; first < n; first += batch, ++update) {
      o.stop.throw_if_requested();
      const Eigen::Index b = std::min(batch, n - first);
      v0.resize(m, b);
      for (Eigen::Index c = 0; c < b; ++c)
        v0.col(c) = train.col(order[static_cast<std::size_t>(first + c)]);
      p0 = hidden_probabilities(rbm, v0);

      // The negative phase: CD restarts its chains at the minibatch; PCD continues its own.
      const bool persistent_chains = o.method == RbmTrainingMethod::pcd;
      if (persistent_chains && persistent.cols() == 0) persistent = v0;
      const Eigen::Index num_chains = persistent_chains ? persistent.cols() : b;
      streams.clear();
      for (Eigen::Index c = 0; c < num_chains; ++c)
        streams.push_back(
            io::stream_for(o.seed, kRoleGibbs, static_cast<std::uint32_t>(c), update));
      pk = persistent_chains ? hidden_probabilities(rbm, persistent) : p0;
      for (int step = 0; step < o.k; ++step) {
        sample_into(pk, streams, chain_h);
        pv = visible_probabilities(rbm, chain_h);
        sample_into(pv, streams, chain_v);
        pk = hidden_probabilities(rbm, chain_v);
      }
      if (persistent_chains) persistent = chain_v;

      const double inv_b = 1.0 / static_cast<double>(b),
                   inv_c = 1.0 / static_cast<double>(num_chains);
      dW = o.momentum * dW +
           o.learning_rate * ((v0 * p0.transpose()) * inv_b - (chain_v * pk.transpose()) * inv_c -
                              o.weight_decay * rbm.W);
      da = o.momentum * da +
           o.learning_rate * (v0.rowwise().sum() * inv_b - chain_v.rowwise().sum() * inv_c);
      db = o.momentum * db +
           o.learning_rate * (p0.rowwise().sum() * inv_b - pk.rowwise().sum() * inv_c);
      rbm.W += dW;
      rbm.a += da;
      rbm.b += db;
      if (on_update) on_update(static_cast<std::uint64_t>(update) + 1, rbm);
    }
    if (!all_finite(rbm))
      throw NumericalError(
          fmt::format("train_rbm: epoch {}: expected finite parameters, got non-finite ones "
                      "(learning rate {} too large?)",
                      epoch, o.learning_rate));

    RbmEpochStats stats;
    stats.epoch = epoch;
    stats.reconstruction_error = rbm_reconstruction_error(rbm, train.leftCols(num_monitor));
    if (num_valid > 0) {
      stats.validation_reconstruction_error = rbm_reconstruction_error(rbm, valid_monitor);
      stats.free_energy_gap =
          rbm_free_energy(rbm, valid_monitor).mean() - rbm_free_energy(rbm, train_for_gap).mean();
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.history.push_back(stats);
    if (state) *state = {epoch, update, rbm, dW, da, db, persistent, result.history};
    if (on_epoch) on_epoch(stats, rbm);
  }
  return result;
}

}  // namespace logz
