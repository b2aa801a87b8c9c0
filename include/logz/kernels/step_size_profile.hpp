// A continuous kernel whose step size follows the annealing path. The profile eps(t) is measured
// before a run (the per-temperature pilot of services/families/continuous_family.hpp) and fixed
// during it, so the run's weights stay those of annealing with fixed kernels: unbiased. Between
// its knots the step size is linear in log eps, beyond them constant; one knot is a fixed step
// size, the same bits as the kernel built with it.
#pragma once

#include <concepts>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "logz/core/kernel_for.hpp"
#include "logz/kernels/continuous_kernel_options.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/random/philox.hpp"

namespace logz {

// Step sizes at path fractions t_0 < t_1 < ... < t_m.
class StepSizeProfile {
 public:
  explicit StepSizeProfile(double step_size);
  // InvalidArgument unless the sizes agree and are at least 1, the fractions rise strictly and
  // every step size is positive and finite.
  StepSizeProfile(std::vector<double> fractions, std::vector<double> step_sizes);

  double at(double t) const;
  std::span<const double> fractions() const { return t_; }
  std::span<const double> step_sizes() const { return eps_; }

 private:
  std::vector<double> t_, eps_;
};

// A target of an annealing path that says where on the path it is.
template <class T>
concept TargetOnPath = ContinuousTarget<T> && requires(const T& target) {
  { target.t() } -> std::convertible_to<double>;
};

// Kernel K (a kernel of continuous_kernels.hpp: K::from_options) with the step size of the
// profile at the target's path fraction; its reversal is K's at every fraction.
template <class K>
class ProfiledStepSize {
 public:
  ProfiledStepSize(ContinuousKernelOptions options, std::shared_ptr<const StepSizeProfile> profile,
                   bool reversed = false)
      : options_(std::move(options)), profile_(std::move(profile)), reversed_(reversed) {}

  template <TargetOnPath T>
  auto step(const T& target, ContinuousBatch& batch, const BatchRandom& random) const {
    return at(target.t()).step(target, batch, random);
  }
  ProfiledStepSize reversed() const { return ProfiledStepSize(options_, profile_, !reversed_); }

  // The kernel a step at path fraction t applies.
  K at(double t) const {
    const K k = K::from_options(options_, profile_->at(t));
    if (reversed_) return reversal_of(k);
    return k;
  }
  const StepSizeProfile& profile() const { return *profile_; }

  static constexpr bool acceptance_tracks_step_size = K::acceptance_tracks_step_size;

 private:
  ContinuousKernelOptions options_;
  std::shared_ptr<const StepSizeProfile> profile_;
  bool reversed_;
};

}  // namespace logz
