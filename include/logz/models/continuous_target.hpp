// Continuous targets: densities p(x) proportional to exp(-U(x)) on R^d, evaluated in
// batches. Positions are a d x P matrix (one column per particle); `energy` writes U of
// every column and `energy_and_grad` also dU/dx (d x P). An optional `constraints()`
// restricts the support to the polytope {x : A x >= b}; kernels reflect at its faces.
//
// A target may also be a weighted sum of two parts, U = w_0 U_0 + w_1 U_1 (the tempered
// targets of a geometric path): kernels then cache the parts at the current positions,
// so moving to the next temperature (new weights) costs no evaluation.
#pragma once

#include <Eigen/Core>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace logz {

struct CoordinateFaces;
struct CoordinateFacesThroughMap;

// Rows a_j . x >= b_j (A is m x d). `nonnegative(d)` is x_i >= 0 for every i.
struct LinearConstraints {
  Eigen::MatrixXd A;  // m x d
  Eigen::VectorXd b;  // m
  // Set by index_faces() where every face bounds one coordinate (CoordinateFaces): kernels then
  // reflect each coordinate on its own; null: they search the faces. Index again after changing
  // A or b.
  std::shared_ptr<const CoordinateFaces> coordinate_faces;
  // A A^T, set by index_faces() where the faces are searched: a reflection on face j changes
  // every face's approach A v by a multiple of its column j, O(m) instead of a product A v.
  Eigen::MatrixXd face_gram;
  // Set where these are faces that each bound one coordinate of x = m + L z, seen in z (a box
  // in whitened coordinates, smc/whitened_target.hpp): a drift's slacks and approaches then come
  // from m + L z and L v, O(d^2 / 2) per particle each, not from products with the m x d matrix A.
  std::shared_ptr<const CoordinateFacesThroughMap> through_map;

  static LinearConstraints nonnegative(int dim);
  int num_constraints() const { return static_cast<int>(A.rows()); }
  bool empty() const { return A.rows() == 0; }
  // Smallest slack min_j (a_j . x - b_j); +inf without constraints.
  double min_slack(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  // Shapes agree, values finite, no zero row; errors name `source`.
  void validate(int dim, const std::string& source) const;
  void index_faces();
};

// The faces of constraints whose every face bounds one coordinate, a_j x_i >= b_j, and no
// coordinate twice (the d >= 0 of the bilinear model, the one-sided coordinates of a Laplace
// base). Such faces are orthogonal, so each coordinate reflects on its own and the billiard
// costs O(d) per drift instead of a search over every face after each reflection.
struct CoordinateFaces {
  std::vector<int> face_of;  // per coordinate: the index of its face in a, b, or -1
  std::vector<double> a, b;

  // nullopt where a face involves two coordinates or a coordinate has two faces.
  static std::optional<CoordinateFaces> of(const LinearConstraints& c);
};

// Faces a_j x_{i_j} >= b_j on coordinates of x = m + L z (L lower triangular, or diagonal), the
// constraints on z being (a_j L.row(i_j)) z >= b_j - a_j m_{i_j}.
struct CoordinateFacesThroughMap {
  std::vector<Eigen::Index> coordinate;  // i_j
  Eigen::VectorXd a, b;                  // a_j, b_j
  Eigen::VectorXd mean;                  // m
  Eigen::MatrixXd factor;                // L, lower triangular; empty: diag(scale)
  Eigen::VectorXd scale;

  // The faces of `c` (each bounding one coordinate, any number per coordinate) through the map;
  // nullopt where a face involves two coordinates.
  static std::optional<CoordinateFacesThroughMap> of(const LinearConstraints& c,
                                                     const Eigen::VectorXd& mean,
                                                     const Eigen::MatrixXd& factor,
                                                     const Eigen::VectorXd& scale);
  // L Y (the map's linear part) of the columns of Y.
  Eigen::MatrixXd times_factor(const Eigen::Ref<const Eigen::MatrixXd>& Y) const;
};

template <class T>
concept ContinuousTarget = requires(const T& t, const Eigen::MatrixXd& X, Eigen::VectorXd& e,
                                    Eigen::MatrixXd& G) {
  { t.dim() } -> std::convertible_to<int>;
  t.energy(X, e);              // e(p) = U(X.col(p))
  t.energy_and_grad(X, e, G);  // and G.col(p) = dU/dx at X.col(p)
};

// A target with linear constraints: its support is {x : A x >= b}.
template <class T>
concept ConstrainedTarget = ContinuousTarget<T> && requires(const T& t) {
  { t.constraints() } -> std::convertible_to<const LinearConstraints*>;  // nullptr: none
};

// U = part_weight(0) U_0 + part_weight(1) U_1. parts_tag() identifies the parts (not the
// weights): kernels reuse cached part energies only while the tag stays the same.
template <class T>
concept TwoPartTarget = ContinuousTarget<T> &&
    requires(const T& t, int k, const Eigen::MatrixXd& X, Eigen::VectorXd& e, Eigen::MatrixXd& G) {
  { t.part_weight(k) } -> std::convertible_to<double>;
  t.part_energy(k, X, e);
  t.part_energy_and_grad(k, X, e, G);
  { t.parts_tag() } -> std::convertible_to<const void*>;
};

// A two-part target whose weights differ from particle to particle: particle p has
// U_p = particle_part_weight(0, p) U_0 + particle_part_weight(1, p) U_1 (the particles of
// simulated tempering, each at its own temperature). To a kernel it is an ordinary target:
// the helpers below cache and combine its parts as for TwoPartTarget, column by column.
template <class T>
concept PerParticleTwoPartTarget = ContinuousTarget<T> &&
    requires(const T& t, int k, Eigen::Index p, const Eigen::MatrixXd& X, Eigen::VectorXd& e,
             Eigen::MatrixXd& G) {
  { t.particle_part_weight(k, p) } -> std::convertible_to<double>;
  t.part_energy(k, X, e);
  t.part_energy_and_grad(k, X, e, G);
  { t.parts_tag() } -> std::convertible_to<const void*>;
};

template <class T>
concept PartedTarget = TwoPartTarget<T> || PerParticleTwoPartTarget<T>;

// The constraints of a target, or nullptr.
template <ContinuousTarget T>
const LinearConstraints* constraints_of(const T& target) {
  if constexpr (ConstrainedTarget<T>) {
    const LinearConstraints* c = target.constraints();
    return c && !c->empty() ? c : nullptr;
  } else {
    return nullptr;
  }
}

// Energies (and gradients) of a target's parts at a batch's positions: row k of `e` and
// matrix g[k] belong to part k. A plain target is one part of weight 1. A target may instead
// hand back its gradient already combined at its own part weights, in g[0] (`grad_combined`: a
// whitened target takes the sum to its coordinates with one product, not one per part); such
// parts are valid for that target only (its tag), whose weights do not change.
struct EnergyParts {
  int num_parts = 0;  // 0: nothing cached
  bool has_grad = false;
  bool has_energy = true;            // false after evaluate_part_grads: e is stale
  bool grad_combined = false;        // g[0] is the weighted sum of the parts' gradients
  const void* tag = nullptr;         // the parts these values belong to
  Eigen::MatrixXd e;                 // num_parts x P
  std::array<Eigen::MatrixXd, 2> g;  // d x P each
  Eigen::VectorXd part_e;            // scratch: one part's energies before they go into a row of e
  Eigen::MatrixXd positions;  // scratch: a whitened target's positions in its own coordinates

  void invalidate() {
    num_parts = 0, has_grad = false, has_energy = true, grad_combined = false, tag = nullptr;
  }
  int num_grads() const { return grad_combined ? 1 : num_parts; }
  // Copies particle `from_p` of `from` into particle `to_p` (same parts, same tag).
  void copy_column(const EnergyParts& from, Eigen::Index from_p, Eigen::Index to_p);
};

template <ContinuousTarget T>
constexpr int num_parts_of() {
  return PartedTarget<T> ? 2 : 1;
}

template <ContinuousTarget T>
const void* parts_tag_of(const T& target) {
  if constexpr (PartedTarget<T>)
    return target.parts_tag();
  else
    return static_cast<const void*>(&target);
}

// The weight of part k (a per-particle target has none common to all particles).
template <ContinuousTarget T>
requires(!PerParticleTwoPartTarget<T>) double part_weight_of(const T& target, int k) {
  if constexpr (TwoPartTarget<T>)
    return target.part_weight(k);
  else
    return k == 0 ? 1.0 : 0.0;
}

// A target that evaluates all its parts in one call (sharing work between them, as a change of
// coordinates): evaluate_parts hands it the whole job.
template <class T>
concept EvaluatesPartsTogether = requires(const T& t, const Eigen::MatrixXd& X, EnergyParts& out,
                                          bool grad) {
  t.evaluate_all_parts(X, out, grad);
};

// Evaluates every part of `target` at X into `out` (gradients when `grad`).
template <ContinuousTarget T>
void evaluate_parts(const T& target, const Eigen::MatrixXd& X, EnergyParts& out, bool grad) {
  if constexpr (EvaluatesPartsTogether<T>) {
    target.evaluate_all_parts(X, out, grad);
    return;
  }
  constexpr int n = num_parts_of<T>();
  out.e.resize(n, X.cols());
  Eigen::VectorXd& e = out.part_e;  // kept between calls: no allocation per evaluation
  for (int k = 0; k < n; ++k) {
    if constexpr (PartedTarget<T>) {
      if (grad)
        target.part_energy_and_grad(k, X, e, out.g[k]);
      else
        target.part_energy(k, X, e);
    } else {
      if (grad)
        target.energy_and_grad(X, e, out.g[k]);
      else
        target.energy(X, e);
    }
    out.e.row(k) = e.transpose();
  }
  out.num_parts = n;
  out.has_grad = grad;
  out.has_energy = true;
  out.grad_combined = false;
  out.tag = parts_tag_of(target);
}

// A target whose gradient alone costs less than its energy with it (a likelihood and its
// gradient given as two functions): `grad(X, G)`, or `part_grad(k, X, G)` per part. The
// leapfrog's inner steps, whose energies nothing reads, ask for gradients only.
template <class T>
concept GradientAlone = requires(const T& t, const Eigen::MatrixXd& X, Eigen::MatrixXd& G) {
  t.grad(X, G);
};
template <class T>
concept PartGradientAlone = requires(const T& t, int k, const Eigen::MatrixXd& X,
                                     Eigen::MatrixXd& G) {
  t.part_grad(k, X, G);
};
template <class T>
concept EvaluatesPartGradientsTogether = requires(const T& t, const Eigen::MatrixXd& X,
                                                  EnergyParts& out) {
  t.evaluate_all_part_grads(X, out);
};

// G = dU/dx at X: the gradient alone where the target has one, else with its energy (dropped
// into a scratch vector kept per thread and target type: no allocation per leapfrog step).
template <ContinuousTarget T>
void gradient_of(const T& target, const Eigen::MatrixXd& X, Eigen::MatrixXd& G) {
  if constexpr (GradientAlone<T>) {
    target.grad(X, G);
  } else {
    thread_local Eigen::VectorXd dropped;
    target.energy_and_grad(X, dropped, G);
  }
}

// The gradients of every part of `target` at X into `out`, its energies left stale
// (has_energy false). A target without a gradient alone gets its energies too
// (evaluate_parts).
template <ContinuousTarget T>
void evaluate_part_grads(const T& target, const Eigen::MatrixXd& X, EnergyParts& out) {
  if constexpr (EvaluatesPartGradientsTogether<T>) {
    target.evaluate_all_part_grads(X, out);
  } else if constexpr (PartGradientAlone<T> || (!PartedTarget<T> && GradientAlone<T>)) {
    constexpr int n = num_parts_of<T>();
    for (int k = 0; k < n; ++k) {
      if constexpr (PartedTarget<T>)
        target.part_grad(k, X, out.g[k]);
      else
        target.grad(X, out.g[k]);
    }
    out.e.resize(n, X.cols());
    out.num_parts = n;
    out.has_grad = true;
    out.has_energy = false;
    out.grad_combined = false;
    out.tag = parts_tag_of(target);
  } else {
    evaluate_parts(target, X, out, true);
  }
}

// True when `parts` holds this target's parts (with gradients if `grad`).
template <ContinuousTarget T>
bool parts_valid_for(const T& target, const EnergyParts& parts, bool grad) {
  return parts.num_parts == num_parts_of<T>() && parts.tag == parts_tag_of(target) &&
         parts.has_energy && (parts.has_grad || !grad);
}

// U(x_p) from cached parts.
template <ContinuousTarget T>
double combined_energy(const T& target, const EnergyParts& parts, Eigen::Index p) {
  double u = 0.0;
  for (int k = 0; k < parts.num_parts; ++k) {
    double w = 0.0;
    if constexpr (PerParticleTwoPartTarget<T>)
      w = target.particle_part_weight(k, p);
    else
      w = part_weight_of(target, k);
    if (w != 0.0) u += w * parts.e(k, p);  // a zero weight never turns an infinite part into NaN
  }
  return u;
}

// dU/dx of every particle from cached parts.
template <ContinuousTarget T>
void combined_grad(const T& target, const EnergyParts& parts, Eigen::MatrixXd& G) {
  if (parts.grad_combined) {
    G = parts.g[0];
    return;
  }
  if constexpr (PerParticleTwoPartTarget<T>) {
    G.resize(parts.g[0].rows(), parts.g[0].cols());
    for (Eigen::Index p = 0; p < G.cols(); ++p)
      G.col(p) = target.particle_part_weight(0, p) * parts.g[0].col(p) +
                 target.particle_part_weight(1, p) * parts.g[1].col(p);
  } else {
    G = part_weight_of(target, 0) * parts.g[0];
    for (int k = 1; k < parts.num_parts; ++k) G += part_weight_of(target, k) * parts.g[k];
  }
}

// A momentum kick from cached parts, V_to = V_from - h dU/dx, on the particles p0 .. p0 + np
// (columns of V_to, already sized; the leapfrog kicks a block of particles at a time), in one pass
// over the parts' gradients (no combined gradient is formed). V_to may be V_from.
template <ContinuousTarget T>
void kick_columns(const T& target, const EnergyParts& parts, const Eigen::MatrixXd& V_from,
                  Eigen::MatrixXd& V_to, double h, Eigen::Index p0, Eigen::Index np) {
  if (parts.grad_combined) {
    V_to.middleCols(p0, np) = V_from.middleCols(p0, np) - h * parts.g[0].middleCols(p0, np);
    return;
  }
  if constexpr (PerParticleTwoPartTarget<T>) {
    for (Eigen::Index p = p0; p < p0 + np; ++p)
      V_to.col(p) = V_from.col(p) - (h * target.particle_part_weight(0, p)) * parts.g[0].col(p) -
                    (h * target.particle_part_weight(1, p)) * parts.g[1].col(p);
  } else if (parts.num_parts == 2) {
    V_to.middleCols(p0, np) = V_from.middleCols(p0, np) -
                              (h * part_weight_of(target, 0)) * parts.g[0].middleCols(p0, np) -
                              (h * part_weight_of(target, 1)) * parts.g[1].middleCols(p0, np);
  } else {
    V_to.middleCols(p0, np) =
        V_from.middleCols(p0, np) - (h * part_weight_of(target, 0)) * parts.g[0].middleCols(p0, np);
  }
}

// The particles of one chunk: positions X and momenta V (d x P; V is used by the
// Hamiltonian kernels and kept across steps by HAIS), the parts cached at X, and scratch
// space for proposals (so that kernels do not allocate per step).
class ContinuousBatch {
 public:
  ContinuousBatch(int dim, std::size_t num_particles);

  int dim() const { return static_cast<int>(X.rows()); }
  std::size_t num_particles() const { return static_cast<std::size_t>(X.cols()); }
  // Copies position and momentum; the destination's cache is dropped (recomputed on use).
  void copy_particle(const ContinuousBatch& from, std::size_t from_p, std::size_t to_p);
  // The arrays that hold the particles' state, for checkpoints (core/batch_state.hpp); the
  // cached energies are recomputed from them after a restore.
  template <class F>
  void for_each_state_array(F&& f) {
    f(std::span<double>(X.data(), static_cast<std::size_t>(X.size()))),
        f(std::span<double>(V.data(), static_cast<std::size_t>(V.size())));
  }
  void state_restored() { parts.invalidate(), proposal_parts.invalidate(); }

  Eigen::MatrixXd X, V;
  EnergyParts parts;

  // Scratch of the kernels, kept so that no step allocates: proposed positions, momenta and
  // parts, a gradient, and every particle's normal draws (d x P) and accept uniforms.
  Eigen::MatrixXd proposal_X, proposal_V, grad;
  EnergyParts proposal_parts;
  Eigen::MatrixXd normals;
  Eigen::VectorXd uniforms;
  // Whether the last Hamiltonian move accepted most proposals: the next one then assembles its
  // result in the proposal scratch, which trades places with the state at the end (where the
  // numbers are stored, never what they are).
  bool mostly_accepted = true;
  // Each particle's accepted moves, counted by the kernels only while this has one entry per
  // particle: simulated tempering splits its acceptance by level with it; annealing leaves it
  // empty.
  std::vector<std::uint32_t> accepted_moves;
};

// What a continuous kernel reports about one call; counts add across particles and chunks.
struct ContinuousKernelInfo {
  std::uint64_t attempted = 0;
  std::uint64_t accepted = 0;
  std::uint64_t non_finite = 0;   // proposals rejected for a non-finite energy
  std::uint64_t reflections = 0;  // constraint reflections made by the dynamics
  double sum_energy_error = 0.0;  // sum of H(proposal) - H(current) over finite proposals

  ContinuousKernelInfo& operator+=(const ContinuousKernelInfo& o) {
    attempted += o.attempted;
    accepted += o.accepted;
    non_finite += o.non_finite;
    reflections += o.reflections;
    sum_energy_error += o.sum_energy_error;
    return *this;
  }
};

}  // namespace logz
