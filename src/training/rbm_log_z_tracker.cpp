#include "logz/training/rbm_log_z_tracker.hpp"

#include <cmath>
#include <string>
#include <variant>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/estimators/rts.hpp"
#include "logz/kernels/rbm_gibbs.hpp"
#include "logz/math/log_sum_exp.hpp"
#include "logz/models/rbm_paths.hpp"
#include "logz/tempering/initial_iterations.hpp"
#include "logz/tempering/level_probabilities.hpp"
#include "logz/tempering/log_z_hat_updates.hpp"

namespace logz {

// Named rather than anonymous: RbmLogZTracker::Impl, a class of the header, holds Chains (an
// anonymous type there is an error of GCC's -Wsubobject-linkage when this file is compiled
// inside a unity unit).
namespace rbm_log_z_tracker_detail {

template <class Scalar>
struct Chains {
  RbmFullPath<Scalar> path;
  RbmGibbs<Scalar> kernel;
  SimulatedTempering<RbmFullPath<Scalar>, RbmGibbs<Scalar>> tempering;

  Chains(const RbmParameters& p, const RbmBase& base, const TemperingLadder& ladder,
         const TemperingOptions& o, std::size_t sweeps)
      : path(p, base), kernel(sweeps), tempering(path, kernel, ladder, o) {}

  // E(v, h) + a0.v of every chain (chain order): U_k - U_1 = t_k times this.
  std::vector<double> slopes() {
    std::vector<double> out;
    tempering.for_each_batch([&](RbmBatch<Scalar>& b) {
      std::vector<double> s(b.num_particles());
      path.work_increment(0.0, 1.0, b, s);
      out.insert(out.end(), s.begin(), s.end());
    });
    return out;
  }

  void set_parameters(const RbmParameters& p) {
    path.set_parameters(p);
    tempering.for_each_batch([](RbmBatch<Scalar>& b) { b.forget_inputs(); });
  }
};

}  // namespace rbm_log_z_tracker_detail

namespace {

TemperingLadder make_ladder(const RbmLogZTrackerOptions& o) {
  const Schedule fractions = linear_schedule(o.num_temperatures - 1);
  return o.prior_slope == 0.0 ? TemperingLadder(fractions)
                              : exponential_prior_ladder(fractions, o.prior_slope);
}

class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

struct RbmLogZTracker::Impl {
  TemperingLadder ladder;
  std::variant<std::unique_ptr<rbm_log_z_tracker_detail::Chains<float>>,
               std::unique_ptr<rbm_log_z_tracker_detail::Chains<double>>>
      chains;

  template <class F>
  auto visit(F&& f) {
    return std::visit([&](auto& c) { return f(*c); }, chains);
  }
};

RbmLogZTracker::RbmLogZTracker(const RbmParameters& initial, RbmBase base,
                               const RbmLogZTrackerOptions& o)
    : options_(o) {
  if (o.num_temperatures < 2)
    fail_argument("logz::RbmLogZTracker", "num_temperatures", "at least 2");
  if (o.sweeps < 1) fail_argument("logz::RbmLogZTracker", "sweeps", "at least 1");
  if (!(o.alpha > 0.0 && o.alpha <= 1.0))
    fail_argument("logz::RbmLogZTracker", "alpha", "in (0, 1]");
  base_log_z_ = base.log_z(static_cast<int>(initial.W.cols()));
  TemperingOptions t;
  t.num_chains = o.num_chains;
  t.seed = o.seed;
  t.threads = o.threads;
  t.chunk_size = o.chunk_size;
  impl_ = std::make_unique<Impl>(Impl{make_ladder(o), {}});
  if (o.single_precision)
    impl_->chains = std::make_unique<rbm_log_z_tracker_detail::Chains<float>>(
        initial, base, impl_->ladder, t, o.sweeps);
  else
    impl_->chains = std::make_unique<rbm_log_z_tracker_detail::Chains<double>>(
        initial, base, impl_->ladder, t, o.sweeps);
  parameters_ = initial;
  log_z_hat_.assign(o.num_temperatures, 0.0);
}

RbmLogZTracker::RbmLogZTracker(const RbmLogZTrackerState& saved, RbmBase base,
                               const RbmLogZTrackerOptions& o)
    : RbmLogZTracker(saved.parameters, std::move(base), o) {
  if (saved.log_z_hat.size() != o.num_temperatures ||
      !impl_->visit([&](auto& c) { return c.tempering.restore(saved.chains); }))
    fail_argument("logz::RbmLogZTracker", "saved", "the state of a tracker with these options");
  log_z_hat_ = saved.log_z_hat;
  deviation_ = saved.deviation;
  seconds_ = saved.seconds;
  initial_iterations_ = saved.initial_iterations;
  steps_ = saved.steps;
}

RbmLogZTrackerState RbmLogZTracker::state() const {
  return {parameters_, impl_->visit([](auto& c) { return c.tempering.chains(); }),
          log_z_hat_,  deviation_,
          seconds_,    initial_iterations_,
          steps_};
}

RbmLogZTracker::~RbmLogZTracker() = default;

bool RbmLogZTracker::initialize() {
  Stopwatch watch(seconds_);
  const double tolerance = 0.1 / static_cast<double>(options_.num_temperatures);
  const auto r = impl_->visit([&](auto& c) {
    return logz::initial_iterations(c.tempering, log_z_hat_, options_.initial_sweeps,
                                    options_.max_initial_iterations, tolerance);
  });
  log_z_hat_ = r.log_z_hat;
  initial_iterations_ = r.iterations;
  deviation_ = r.deviations.empty() ? kNaN : r.deviations.back();
  return r.converged;
}

void RbmLogZTracker::update(const RbmParameters& parameters) {
  Stopwatch watch(seconds_);
  if (!parameters.W.allFinite() || !parameters.a.allFinite() || !parameters.b.allFinite())
    throw NumericalError(
        "RbmLogZTracker::update: step " + std::to_string(steps_ + 1) +
        ": expected finite RBM parameters, got non-finite ones (learning rate too large?)");
  const auto log_prior = impl_->ladder.log_prior();
  const TemperingStats stats = impl_->visit([&](auto& c) {
    const std::vector<double> before = c.slopes();
    c.set_parameters(parameters);
    parameters_ = parameters;
    reweight(before, c.slopes());
    return c.tempering.run(options_.sweeps, log_z_hat_, {},
                           /*integrands=*/false);  // only log c is read
  });
  const std::vector<double> log_c = stats.log_c();
  for (std::size_t k = 1; k < log_z_hat_.size(); ++k)
    log_z_hat_[k] += options_.alpha * (log_prior[0] - log_prior[k] + log_c[k] - log_c[0]);
  deviation_ = logz::max_level_deviation(log_c, log_prior);
  ++steps_;
}

void RbmLogZTracker::reweight(const std::vector<double>& before, const std::vector<double>& after) {
  // Chain i holds x_i; with weights q(t_k | x_i) (old parameters and Zhat) the chains are
  // samples of level k, so Z_k'/Z_k = sum_i q_ik exp(-t_k (s'_i - s_i)) / sum_i q_ik.
  const std::size_t num_levels = log_z_hat_.size(), n = before.size();
  const auto log_prior = impl_->ladder.log_prior();
  std::vector<double> u(num_levels), log_q(num_levels);
  std::vector<std::vector<double>> terms(num_levels), weights(num_levels);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < num_levels; ++k) u[k] = impl_->ladder.fraction(k) * before[i];
    level_log_probabilities(u, log_prior, log_z_hat_, log_q);
    for (std::size_t k = 0; k < num_levels; ++k) {
      weights[k].push_back(log_q[k]);
      terms[k].push_back(log_q[k] - impl_->ladder.fraction(k) * (after[i] - before[i]));
    }
  }
  for (std::size_t k = 1; k < num_levels; ++k) {
    const double shift = log_sum_exp(terms[k]) - log_sum_exp(weights[k]);
    if (!std::isfinite(shift))
      throw NumericalError("RbmLogZTracker::update: step " + std::to_string(steps_ + 1) +
                           ": non-finite reweighting of level " + std::to_string(k));
    log_z_hat_[k] += shift;
  }
}

double RbmLogZTracker::log_z() const {
  return base_log_z_ + log_z_hat_.back() - log_z_hat_.front();
}

}  // namespace logz

// The tempering driver's fast path: one energy per chain and sweep gives every level.
static_assert(logz::is_geometric_path<logz::RbmFullPath<float>>);
