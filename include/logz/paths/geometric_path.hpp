// The geometric annealing path between a base with an exact sampler and known log Z_0
// and a continuous target: U_t(x) = (1 - t) U_base(x) + t U_target(x), t in [0, 1]
// (Neal 2001; Sohl-Dickstein & Culpepper 2011, eq. 12). The work increment from t to t'
// at fixed x is (t' - t)(U_target(x) - U_base(x)), so that E[exp(-W_f)] = Z_target / Z_0.
// at(t) is an ordinary two-part continuous target; the parts at the particles' positions
// are cached in the batch (kernels keep them current), so work increments and traces cost
// nothing and a kernel at the next temperature starts without an evaluation.
// For a generative model's posterior, base = prior and target = prior x likelihood gives
// U_t = U_prior + t U_likelihood, the path of the paper's section 2.5.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <span>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/error.hpp"
#include "logz/core/levels_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/models/gaussian_base.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// A base: a continuous target with an exact sampler and its exact log Z.
template <class B>
concept ContinuousBase = ContinuousTarget<B> &&
    requires(const B& b, RandomStream& s, Eigen::Ref<Eigen::VectorXd> x) {
  b.sample_one(s, x);
  { b.log_z() } -> std::convertible_to<double>;
};

// What the tempered targets of a geometric path share: part 0 is the base, part 1 the target,
// and the path's cache tag. Target is the tempered target (CRTP), which gives the parts their
// weights; energies are those of its combined parts.
template <ContinuousTarget Base, ContinuousTarget Target, class Tempered>
class GeometricParts {
 public:
  int dim() const { return target_->dim(); }
  const void* parts_tag() const { return tag_; }

  void part_energy(int k, const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    if (k == 0)
      base_->energy(X, e);
    else
      target_->energy(X, e);
  }
  void part_energy_and_grad(int k, const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                            Eigen::MatrixXd& G) const {
    if (k == 0)
      base_->energy_and_grad(X, e, G);
    else
      target_->energy_and_grad(X, e, G);
  }
  // Part k's gradient alone, where a part has one (evaluate_part_grads).
  void part_grad(int k, const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const
      requires(GradientAlone<Base> || GradientAlone<Target>) {
    if (k == 0)
      gradient_of(*base_, X, G);
    else
      gradient_of(*target_, X, G);
  }
  void energy(const Eigen::MatrixXd& X, Eigen::VectorXd& e) const {
    const Tempered& tempered = static_cast<const Tempered&>(*this);
    tempered.check(X);
    EnergyParts p;
    evaluate_parts(tempered, X, p, false);
    e.resize(X.cols());
    for (Eigen::Index i = 0; i < X.cols(); ++i) e(i) = combined_energy(tempered, p, i);
  }
  void energy_and_grad(const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    const Tempered& tempered = static_cast<const Tempered&>(*this);
    tempered.check(X);
    EnergyParts p;
    evaluate_parts(tempered, X, p, true);
    e.resize(X.cols());
    for (Eigen::Index i = 0; i < X.cols(); ++i) e(i) = combined_energy(tempered, p, i);
    combined_grad(tempered, p, G);
  }
  // The target's constraints (the base must be supported inside them).
  const LinearConstraints* constraints() const { return constraints_of(*target_); }

 protected:
  GeometricParts(const Base& base, const Target& target, const void* tag)
      : base_(&base), target_(&target), tag_(tag) {}
  // Any X is fine for one t; per-particle fractions need one column per particle.
  void check(const Eigen::MatrixXd&) const {}

 private:
  const Base* base_;
  const Target* target_;
  const void* tag_;
};

// The tempered target (1 - t) U_base + t U_target.
template <ContinuousTarget Base, ContinuousTarget Target>
class GeometricTarget : public GeometricParts<Base, Target, GeometricTarget<Base, Target>> {
 public:
  GeometricTarget(const Base& base, const Target& target, double t, const void* tag)
      : GeometricParts<Base, Target, GeometricTarget>(base, target, tag), t_(t) {}

  double t() const { return t_; }
  double part_weight(int k) const { return k == 0 ? 1.0 - t_ : t_; }

 private:
  double t_;
};

// The same path with every particle at its own t (simulated tempering moves a chunk of
// chains, each at its own level, in one batched kernel step): particle p has
// U_p = (1 - t_p) U_base + t_p U_target. Parts and cache tag are those of GeometricTarget,
// so energies cached by either serve the other.
template <ContinuousTarget Base, ContinuousTarget Target>
class GeometricLevelsTarget
    : public GeometricParts<Base, Target, GeometricLevelsTarget<Base, Target>> {
  friend class GeometricParts<Base, Target, GeometricLevelsTarget>;

 public:
  GeometricLevelsTarget(const Base& base, const Target& target, std::vector<double> t,
                        const void* tag)
      : GeometricParts<Base, Target, GeometricLevelsTarget>(base, target, tag), t_(std::move(t)) {}

  std::size_t num_particles() const { return t_.size(); }
  double t(Eigen::Index p) const { return t_[static_cast<std::size_t>(p)]; }
  double particle_part_weight(int k, Eigen::Index p) const { return k == 0 ? 1.0 - t(p) : t(p); }

 private:
  // X must have one column per particle (InvalidArgument otherwise).
  void check(const Eigen::MatrixXd& X) const {
    if (static_cast<std::size_t>(X.cols()) != t_.size())
      fail_argument("logz::GeometricLevelsTarget", "X", "one column per particle level");
  }

  std::vector<double> t_;
};

template <ContinuousBase Base, ContinuousTarget Target>
class GeometricPath {
 public:
  using Batch = ContinuousBatch;
  using TemperedTarget = GeometricTarget<Base, Target>;
  // U_t - U_0 = t (U_target - U_base) is linear in t: simulated tempering gets every
  // level's energy from one work_increment(0, 1).
  static constexpr bool geometric_path = true;
  // at_levels: each particle at its own t, one batched kernel step (core/levels_path.hpp).
  static constexpr bool provides_at_levels = true;

  // Base and target are held by value (copies); dimensions must agree.
  GeometricPath(Base base, Target target) : base_(std::move(base)), target_(std::move(target)) {
    if (base_.dim() != target_.dim())
      fail_argument("logz::GeometricPath", "base", "the target's dimension");
  }
  // Paths hand out pointers to themselves (the cache tag): not copyable or movable.
  GeometricPath(const GeometricPath&) = delete;
  GeometricPath& operator=(const GeometricPath&) = delete;

  const Base& base() const { return base_; }
  const Target& target() const { return target_; }
  int dim() const { return target_.dim(); }
  double base_log_z() const { return base_.log_z(); }

  TemperedTarget at(double t) const { return TemperedTarget(base_, target_, t, this); }
  // Particle p at t[p] (each in [0, 1]).
  GeometricLevelsTarget<Base, Target> at_levels(std::span<const double> t) const {
    return GeometricLevelsTarget<Base, Target>(base_, target_,
                                               std::vector<double>(t.begin(), t.end()), this);
  }

  // ---- the annealing-path interface (core/annealing_path.hpp)
  Batch make_batch(std::size_t n) const { return Batch(dim(), n); }

  // Exact base draws: particle p takes its position (base.sample_one) and then its momentum
  // (d normals, for the Hamiltonian kernels) from random.stream(p). Throws InvalidArgument
  // if a base draw violates the target's constraints (the base must live inside them).
  void sample_base(Batch& batch, const BatchRandom& random) const {
    const LinearConstraints* c = constraints_of(target_);
    for (Eigen::Index p = 0; p < batch.X.cols(); ++p) {
      RandomStream s = random.stream(static_cast<std::size_t>(p));
      base_.sample_one(s, batch.X.col(p));
      s.fill_normal(batch.V.col(p).data(), static_cast<std::size_t>(batch.V.rows()));
      if (c && c->min_slack(batch.X.col(p)) < 0.0)
        fail_argument("logz::GeometricPath::sample_base", "base",
                      "a base whose draws satisfy the target's constraints");
    }
    evaluate_parts(at(0.0), batch.X, batch.parts, false);
  }

  // Fresh momenta N(0, I) from random.stream(p) (for reverse starts).
  void sample_momentum(Batch& batch, const BatchRandom& random) const {
    for (Eigen::Index p = 0; p < batch.V.cols(); ++p) {
      RandomStream s = random.stream(static_cast<std::size_t>(p));
      s.fill_normal(batch.V.col(p).data(), static_cast<std::size_t>(batch.V.rows()));
    }
  }

  // (t_to - t_from)(U_target(x) - U_base(x)) at the current positions.
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const {
    const Eigen::MatrixXd& e = parts_for(batch);
    for (Eigen::Index p = 0; p < batch.X.cols(); ++p) {
      const double d = e(1, p) - e(0, p);
      // At equal t no work is done, even where an energy is infinite.
      out[static_cast<std::size_t>(p)] = t_to == t_from ? 0.0 : (t_to - t_from) * d;
    }
  }

  // U_target(x) - U_base(x): the integrand of thermodynamic integration,
  // d log Z_t / dt = -E_t[U_target - U_base].
  void trace_energy(const Batch& batch, std::span<double> out) const {
    const Eigen::MatrixXd& e = parts_for(batch);
    for (Eigen::Index p = 0; p < batch.X.cols(); ++p)
      out[static_cast<std::size_t>(p)] = e(1, p) - e(0, p);
  }

 private:
  // The cached parts, or (after an outside change of X) freshly computed ones.
  const Eigen::MatrixXd& parts_for(const Batch& batch) const {
    if (parts_valid_for(at(0.0), batch.parts, false)) return batch.parts.e;
    thread_local EnergyParts scratch;
    evaluate_parts(at(0.0), batch.X, scratch, false);
    return scratch.e;
  }

  Base base_;
  Target target_;
};

static_assert(AnnealingPath<GeometricPath<GaussianBase, GaussianBase>>);
static_assert(TemperingPath<GeometricPath<GaussianBase, GaussianBase>>);
static_assert(LevelsPath<GeometricPath<GaussianBase, GaussianBase>>);

}  // namespace logz
