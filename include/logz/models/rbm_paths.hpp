// Annealing paths of a binary RBM (Salakhutdinov & Murray 2008): at path
// fraction t the joint is the base (visible logits a0, uniform h) mixed with
// the RBM,
//   U_t(v, h) = -(1 - t) a0.v + t E(v, h) = -[(1 - t) a0 + t a].v - t b.h - t v.W.h,
// so U_0 is the base (log Z_0 = sum_i softplus(a0_i) + J log 2) and U_1 = E.
// Three paths share that family and differ in what the state is:
//   RbmFullPath            (v, h):  work increment (t' - t) [E(v, h) + a0.v];
//   RbmMarginalVisiblePath v, h summed out (Salakhutdinov's AIS):
//       U_t(v) = -[(1 - t) a0 + t a].v - sum_j softplus(t (b + W^T v)_j);
//   RbmMarginalHiddenPath  h, v summed out (Habeck 2017, section 6.3):
//       U_t(h) = -t b.h - sum_i softplus((1 - t) a0_i + t (a + W h)_i).
// All three have the same Z_t, so they estimate the same log(Z_1 / Z_0).
// Energies in nats; work increments are U_{t'}(x) - U_t(x) in double.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "logz/core/annealing_path.hpp"
#include "logz/core/enum_names.hpp"
#include "logz/core/level_energies_path.hpp"
#include "logz/core/tempering_path.hpp"
#include "logz/models/rbm.hpp"
#include "logz/models/rbm_base.hpp"
#include "logz/models/rbm_parameters.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// Which variables a target's distribution is over: joint (v, h); visible
// (h summed out: p_t(v)); hidden (v summed out: p_t(h)).
LOGZ_NAMED_ENUM(RbmMode, joint, visible, hidden);

// The states of a chunk of particles (column = particle) and, computed on
// demand and kept until the layer they depend on changes, the unit inputs
// b + W^T V (hidden) and a + W H (visible): one GEMM each.
template <class ScalarType>
class RbmBatch {
 public:
  using Scalar = ScalarType;
  RbmBatch(const Rbm<Scalar>& rbm, std::size_t num_particles);

  std::size_t num_particles() const { return static_cast<std::size_t>(V_.cols()); }
  const Rbm<Scalar>& rbm() const { return *rbm_; }
  const RbmMatrix<Scalar>& visible() const { return V_; }  // M x P, entries 0 or 1
  const RbmMatrix<Scalar>& hidden() const { return H_; }   // J x P
  // Write access to a layer; forgets the inputs computed from it.
  RbmMatrix<Scalar>& visible_for_update() {
    hidden_input_valid_ = bias_gap_valid_ = false;
    return V_;
  }
  RbmMatrix<Scalar>& hidden_for_update() {
    visible_input_valid_ = false;
    return H_;
  }
  // b + W^T V (J x P) and a + W H (M x P) for the current states.
  const RbmMatrix<Scalar>& hidden_input() const;
  const RbmMatrix<Scalar>& visible_input() const;
  bool has_hidden_input() const { return hidden_input_valid_; }
  bool has_visible_input() const { return visible_input_valid_; }
  // (a - a0).v of every particle (dot products accumulated in double) for visible biases a and
  // a base's visible logits a0, kept like the inputs until the visible layer changes: the
  // marginal_v path's trace and its next work increment take it for the same states in turn.
  std::span<const double> visible_bias_gap(const RbmVector<Scalar>& a,
                                           const RbmVector<Scalar>& a0) const;
  // Workspace for kernels (logits); not part of the state.
  RbmMatrix<Scalar>& scratch() { return scratch_; }
  // The particles' streams at one step, kept here so that a sweep allocates nothing.
  std::span<RandomStream> streams(const BatchRandom& random);

  void copy_particle(const RbmBatch& from, std::size_t from_p, std::size_t to_p);
  // The layers, for checkpoints (core/batch_state.hpp); the inputs are recomputed after a restore.
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<Scalar>(V_.data(), static_cast<std::size_t>(V_.size()))),
        f(std::span<Scalar>(H_.data(), static_cast<std::size_t>(H_.size())));
  }
  void state_restored() { forget_inputs(); }
  // Drops the unit inputs (after the RBM's parameters changed).
  void forget_inputs() { hidden_input_valid_ = visible_input_valid_ = bias_gap_valid_ = false; }

 private:
  const Rbm<Scalar>* rbm_;
  RbmMatrix<Scalar> V_, H_, scratch_;
  std::vector<RandomStream> streams_;
  mutable RbmMatrix<Scalar> hidden_input_, visible_input_;
  mutable bool hidden_input_valid_ = false, visible_input_valid_ = false;
  mutable std::vector<double> bias_gap_;
  mutable const RbmVector<Scalar>* bias_gap_of_[2] = {nullptr,
                                                      nullptr};  // the a and a0 it was computed for
  mutable bool bias_gap_valid_ = false;
};

// The tempered RBM at one path fraction, as a kernel sees it: visible logits
// (1 - t) a0 + t (a + W h), hidden logits t (b + W^T v), and which
// variables the distribution is over. With `column_t` (one per particle of
// the batch) each particle has its own fraction: the chains of simulated
// tempering, each at its own level, stepped with one GEMM per half-sweep.
template <class Scalar>
struct RbmTarget {
  const Rbm<Scalar>* rbm = nullptr;
  const RbmVector<Scalar>* base_logits = nullptr;  // a0
  double t = 1.0;
  RbmMode mode = RbmMode::joint;
  std::span<const double> column_t;  // empty: every particle at `t`

  // Draws every particle's visible layer from its logits (1 - t) a0 + t visible_input,
  // and hidden layer from t hidden_input; particle p uses streams[p].
  void sample_visible(const RbmMatrix<Scalar>& visible_input, RbmMatrix<Scalar>& out,
                      std::span<RandomStream> streams) const;
  void sample_hidden(const RbmMatrix<Scalar>& hidden_input, RbmMatrix<Scalar>& out,
                     std::span<RandomStream> streams) const;
};

// What the three paths share: the RBM, the base, batches and exact base draws.
template <class Scalar>
class RbmPathBase {
 public:
  RbmPathBase(const RbmParameters& parameters, RbmBase base);
  RbmPathBase(const RbmPathBase&) = delete;  // batches and targets point into it
  RbmPathBase& operator=(const RbmPathBase&) = delete;

  const Rbm<Scalar>& rbm() const { return rbm_; }
  const RbmBase& base() const { return base_; }
  int num_visible() const { return rbm_.num_visible(); }
  int num_hidden() const { return rbm_.num_hidden(); }
  double base_log_z() const { return base_.log_z(rbm_.num_hidden()); }
  const RbmVector<Scalar>& base_logits() const { return a0_; }
  // The joint (v, h) target at t, whatever the path's own state is (for reverse starts).
  RbmTarget<Scalar> joint_at(double t) const { return target(t, RbmMode::joint); }
  // New parameters of the same shape under running chains (tracking log Z while a model
  // trains); batches made by this path keep pointing at it but must forget their inputs.
  void set_parameters(const RbmParameters& parameters);

  using Batch = RbmBatch<Scalar>;
  Batch make_batch(std::size_t num_particles) const { return Batch(rbm_, num_particles); }
  // Exact draws of the base: v_i ~ Bernoulli(sigmoid(a0_i)), h_j ~ Bernoulli(1/2).
  void sample_base(Batch& batch, const BatchRandom& random) const;

 protected:
  RbmTarget<Scalar> target(double t, RbmMode mode) const { return {&rbm_, &a0_, t, mode, {}}; }

  Rbm<Scalar> rbm_;
  RbmBase base_;
  RbmVector<Scalar> a0_;
  // sum_i softplus(a0_i): every marginal_h state's sum at t = 0, where its inputs drop out
  // (computed once, the bits each particle's own sum would give).
  double a0_softplus_sum_ = 0.0;
};

// The interface the three paths share on top of RbmPathBase: Path's targets are in `Mode`, and
// its trace is the work of the whole path at a fixed state, U_1 - U_0 (Path::work_increment).
template <class Scalar, RbmMode Mode, class Path>
class RbmModePath : public RbmPathBase<Scalar> {
 public:
  using RbmPathBase<Scalar>::RbmPathBase;
  using Batch = RbmBatch<Scalar>;
  static constexpr RbmMode kMode = Mode;

  RbmTarget<Scalar> at(double t) const { return this->target(t, Mode); }
  void trace_energy(const Batch& batch, std::span<double> out) const {
    static_cast<const Path&>(*this).work_increment(0.0, 1.0, batch, out);
  }
};

// The joint (v, h); trace U_1 - U_0 = E(v, h) + a0.v, the slope dU_t/dt.
template <class Scalar>
class RbmFullPath : public RbmModePath<Scalar, RbmMode::joint, RbmFullPath<Scalar>> {
 public:
  using RbmModePath<Scalar, RbmMode::joint, RbmFullPath>::RbmModePath;
  using Batch = RbmBatch<Scalar>;
  // U_t = -a0.v + t (E + a0.v) is linear in t: simulated tempering needs one work
  // increment per sweep for every level (core/tempering_path.hpp).
  static constexpr bool geometric_path = true;
  // trace_energy is that slope, so AIS takes each work increment from it (core/annealing_path.hpp).
  static constexpr bool trace_is_slope = true;
  // U_t(v, h) of every particle.
  void energy(double t, const Batch& batch, std::span<double> out) const;
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
};

// v with h summed out; trace U_1(v) - U_0(v) = F(v) + a0.v + J log 2.
template <class Scalar>
class RbmMarginalVisiblePath
    : public RbmModePath<Scalar, RbmMode::visible, RbmMarginalVisiblePath<Scalar>> {
 public:
  using RbmModePath<Scalar, RbmMode::visible, RbmMarginalVisiblePath>::RbmModePath;
  using Batch = RbmBatch<Scalar>;
  void energy(double t, const Batch& batch, std::span<double> out) const;
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
  // U_k(v) - U_0(v) at every fraction t_k of `t` for every particle (particle-major: energies[p K +
  // k]), and the slopes -dU_t(v)/dt at t_k, (a - a0).v + sum_j y_j sigmoid(t_k y_j), which
  // thermodynamic integration averages (U is not linear in t here, so the slope is not
  // U_0 - U_1); from the cached hidden inputs y = b + W^T v, in one pass. What simulated
  // tempering needs per sweep on this path (core/level_energies_path.hpp).
  static constexpr bool provides_level_energies = true;
  void level_energies(std::span<const double> t, const Batch& batch, std::vector<double>& energies,
                      std::vector<double>& slopes) const;
  // The energies alone (the same numbers), for sweeps without thermodynamic integration: the
  // slopes' sigmoids are a third of a level's cost.
  void level_energies(std::span<const double> t, const Batch& batch,
                      std::vector<double>& energies) const;

 private:
  void level_energies(std::span<const double> t, const Batch& batch, std::vector<double>& energies,
                      std::vector<double>* slopes) const;
};

// h with v summed out; trace U_1(h) - U_0(h) = F(h) + sum_i softplus(a0_i).
template <class Scalar>
class RbmMarginalHiddenPath
    : public RbmModePath<Scalar, RbmMode::hidden, RbmMarginalHiddenPath<Scalar>> {
 public:
  using RbmModePath<Scalar, RbmMode::hidden, RbmMarginalHiddenPath>::RbmModePath;
  using Batch = RbmBatch<Scalar>;
  void energy(double t, const Batch& batch, std::span<double> out) const;
  void work_increment(double t_from, double t_to, const Batch& batch, std::span<double> out) const;
};

extern template class RbmBatch<float>;
extern template class RbmBatch<double>;
extern template class RbmPathBase<float>;
extern template class RbmPathBase<double>;
extern template class RbmFullPath<float>;
extern template class RbmFullPath<double>;
extern template class RbmMarginalVisiblePath<float>;
extern template class RbmMarginalVisiblePath<double>;
extern template class RbmMarginalHiddenPath<float>;
extern template class RbmMarginalHiddenPath<double>;

static_assert(AnnealingPath<RbmFullPath<float>> && AnnealingPath<RbmFullPath<double>>);
static_assert(TemperingPath<RbmFullPath<float>> && is_geometric_path<RbmFullPath<float>>);
static_assert(path_trace_is_slope<RbmFullPath<float>> && path_trace_is_slope<RbmFullPath<double>>);
static_assert(AnnealingPath<RbmMarginalVisiblePath<float>> &&
              AnnealingPath<RbmMarginalVisiblePath<double>>);
static_assert(TemperingPath<RbmMarginalVisiblePath<float>> &&
              uses_level_energies<RbmMarginalVisiblePath<double>>);
static_assert(AnnealingPath<RbmMarginalHiddenPath<float>> &&
              AnnealingPath<RbmMarginalHiddenPath<double>>);

}  // namespace logz
