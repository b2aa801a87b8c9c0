// A two-part target (a tempered target of the geometric path) seen in whitened coordinates
// x = m + L z (smc/whitening.hpp): U_z(z) = U(m + L z), dU_z/dz = L^T dU/dx. The parts and
// their weights are the inner target's, so part energies cached in a batch are the energies at
// the particles' positions, whichever coordinates they are moved in; gradients are in z. Linear
// constraints A x >= b become (A L) z >= b - A m. Every
// evaluation of the target's part (part 1) is counted, per particle, in `counts`.
#pragma once

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <memory>

#include "logz/models/continuous_target.hpp"
#include "logz/smc/whitening.hpp"

namespace logz {

// Evaluations of the user's target (energies alone, energies with gradients, gradients alone),
// per particle.
struct TargetEvaluationCounts {
  std::atomic<std::uint64_t> energies{0}, gradients{0}, gradients_alone{0};
};

template <TwoPartTarget Inner>
class WhitenedTarget {
 public:
  // Inner, whitening and counts must outlive this; `tag` names this whitening's parts (cached
  // gradients are in its coordinates).
  WhitenedTarget(const Inner& inner, const Whitening& whitening, const void* tag,
                 TargetEvaluationCounts& counts)
      : inner_(inner), w_(&whitening), tag_(tag), counts_(&counts) {
    if (const LinearConstraints* c = constraints_of(inner_)) {
      const Whitening& w = whitening;
      auto z = std::make_shared<LinearConstraints>();
      if (w.dense())
        z->A = c->A * w.factor.triangularView<Eigen::Lower>();
      else
        z->A = c->A * w.scale.asDiagonal();
      z->b = c->b - c->A * w.mean;
      z->index_faces();
      if (!z->coordinate_faces)
        if (auto f = CoordinateFacesThroughMap::of(*c, w.mean, w.factor, w.scale))
          z->through_map = std::make_shared<const CoordinateFacesThroughMap>(std::move(*f));
      constraints_ = std::move(z);
    }
  }

  int dim() const { return inner_.dim(); }
  double part_weight(int k) const { return inner_.part_weight(k); }
  const void* parts_tag() const { return tag_; }
  const LinearConstraints* constraints() const { return constraints_.get(); }

  void part_energy(int k, const Eigen::MatrixXd& Z, Eigen::VectorXd& e) const {
    Eigen::MatrixXd X;
    to_original(Z, X);
    inner_.part_energy(k, X, e);
    if (k == 1) counts_->energies += static_cast<std::uint64_t>(Z.cols());
  }
  void part_energy_and_grad(int k, const Eigen::MatrixXd& Z, Eigen::VectorXd& e,
                            Eigen::MatrixXd& G) const {
    Eigen::MatrixXd X;
    to_original(Z, X);
    inner_.part_energy_and_grad(k, X, e, G);
    w_->gradient_to_whitened(G);
    if (k == 1) counts_->gradients += static_cast<std::uint64_t>(Z.cols());
  }
  // Both parts at once: the positions in original coordinates computed once for the two (an
  // O(d^2) product per particle with a dense whitening), the parts' gradients summed at this
  // target's weights, then the sum taken to z (one product, not one per part: grad_combined).
  void evaluate_all_parts(const Eigen::MatrixXd& Z, EnergyParts& out, bool grad) const {
    Eigen::MatrixXd& X = out.positions;  // kept in the parts: no allocation per evaluation
    to_original(Z, X);
    evaluate_parts(inner_, X, out, grad);
    if (grad) {
      combined_grad(inner_, out, X);  // X is free again: the combined gradient goes there
      out.g[0].swap(X);
      w_->gradient_to_whitened(out.g[0]);
      out.grad_combined = true;
    }
    out.tag = tag_;
    (grad ? counts_->gradients : counts_->energies) += static_cast<std::uint64_t>(Z.cols());
  }
  // The same for gradients alone (evaluate_part_grads), where the inner target has them.
  void evaluate_all_part_grads(const Eigen::MatrixXd& Z,
                               EnergyParts& out) const requires PartGradientAlone<Inner> {
    Eigen::MatrixXd& X = out.positions;
    to_original(Z, X);
    evaluate_part_grads(inner_, X, out);
    combined_grad(inner_, out, X);
    out.g[0].swap(X);
    w_->gradient_to_whitened(out.g[0]);
    out.grad_combined = true;
    out.tag = tag_;
    counts_->gradients_alone += static_cast<std::uint64_t>(Z.cols());
  }
  void energy(const Eigen::MatrixXd& Z, Eigen::VectorXd& e) const {
    EnergyParts p;
    evaluate_parts(*this, Z, p, false);
    e.resize(Z.cols());
    for (Eigen::Index i = 0; i < Z.cols(); ++i) e(i) = combined_energy(*this, p, i);
  }
  void energy_and_grad(const Eigen::MatrixXd& Z, Eigen::VectorXd& e, Eigen::MatrixXd& G) const {
    EnergyParts p;
    evaluate_parts(*this, Z, p, true);
    e.resize(Z.cols());
    for (Eigen::Index i = 0; i < Z.cols(); ++i) e(i) = combined_energy(*this, p, i);
    combined_grad(*this, p, G);
  }

  void to_original(const Eigen::MatrixXd& Z, Eigen::MatrixXd& X) const { w_->to_original(Z, X); }
  void to_whitened(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::MatrixXd& Z) const {
    w_->to_whitened(X, Z);
  }

 private:
  Inner inner_;
  const Whitening* w_;
  const void* tag_;
  TargetEvaluationCounts* counts_;
  std::shared_ptr<const LinearConstraints> constraints_;
};

}  // namespace logz
