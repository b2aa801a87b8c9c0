#include "logz/evidence/run_evidence.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/evidence/likelihood_tilt.hpp"
#include "logz/evidence/posterior_target.hpp"
#include "logz/models/gaussian_mixture_in_box.hpp"
#include "logz/paths/geometric_path.hpp"
#include "logz/paths/tilted_path.hpp"
#include "logz/random/derived_seed.hpp"
#include "logz/smc/adaptive_smc.hpp"
#include "logz/smc/fitted_base.hpp"

namespace logz {

SmcMove evidence_default_move(const Prior& prior, const Likelihood& likelihood) {
  return prior.has_grad() && likelihood.has_grad() ? SmcMove::hmc : SmcMove::random_walk;
}

namespace {

// SMC from `base`, fitted to the first run's particles, to the posterior.
template <class Base>
SmcResult refine_from(const Base& base, const PosteriorTarget& posterior,
                      const SmcOptions& options) {
  const GeometricPath<Base, PosteriorTarget> to_posterior(base, posterior);
  return adaptive_smc(to_posterior, options);
}

// Inside a box prior, a mixture fitted to the particles' shape (fit_shape_mixture_base),
// conditioned on the box, where most of its draws land inside it; nullopt otherwise (the
// truncated normals then).
std::optional<GaussianMixtureInBox> boxed_shape_mixture(const SmcResult& first, const Prior& prior,
                                                        const EvidenceRefine& refine,
                                                        std::uint64_t seed) {
  auto shape = fit_shape_mixture_base(first, refine.widening, ShapeTails::bounded);
  if (!shape) return std::nullopt;
  const BatchRandom draws{.seed = derived_seed(seed, 0x626f786du, 0),  // "boxm"
                          .purpose = Purpose::base_sample};
  return GaussianMixtureInBox::measured(std::move(*shape), prior.lower_bounds(),
                                        prior.upper_bounds(), draws);
}

}  // namespace

RefineVerdict refine_verdict(const RunEstimate& first, const RunEstimate& refined) {
  // One threshold for both: two estimates that do not agree leave no answer to trust without a
  // flag (with the flag at 4 SEs, a first run 3-4 SEs off its refining run was the answer,
  // unflagged: once in 200 calibration runs, 4 SEs from the exact value).
  RefineVerdict v{
      .answer = RefineAnswer::first, .log_z = first.log_z, .std_error = first.std_error};
  v.disagree = !(std::abs(refined.log_z - first.log_z) <=
                 3.0 * std::hypot(first.std_error, refined.std_error) + 0.05);
  const bool refined_usable = !refined.flagged && refined.std_error > 0.0 &&
                              std::isfinite(refined.std_error) && std::isfinite(refined.log_z);
  // Disagreeing, the flag says one error bar is wrong; the estimate given is the refining run's
  // where it is unflagged: wherever the two have disagreed with an exact value to check, the
  // run from the prior was the wrong one (a 100-d regression under a prior of sd 0.5: -0.93 +-
  // 0.24 and +6.35 with its genealogy collapsed, beside refining runs +0.09 +- 0.08 and +0.03 +-
  // 0.03; a calibration run's first estimate 4 SEs off; docs/evidence.md).
  if (v.disagree) {
    if (refined_usable)
      v.answer = RefineAnswer::refined, v.log_z = refined.log_z, v.std_error = refined.std_error;
    return v;
  }
  if (!refined_usable) return v;
  // Combined only when the two are about as precise: past a ratio of 3 the less precise would
  // shrink the SE by 5% at most, and it is the run to doubt (a first run from a prior far from
  // the likelihood read about one of its own SEs low on average, which its SE does not carry:
  // 62 seeds of a 50-d Gaussian likelihood 5 prior SDs out, docs/evidence.md).
  const bool comparable = std::max(first.std_error, refined.std_error) <
                          kCombineWithin * std::min(first.std_error, refined.std_error);
  if (!first.flagged && first.std_error > 0.0 && comparable) {
    const double w1 = 1.0 / (first.std_error * first.std_error),
                 w2 = 1.0 / (refined.std_error * refined.std_error);
    v.answer = RefineAnswer::combined;
    v.log_z = (w1 * first.log_z + w2 * refined.log_z) / (w1 + w2);
    v.std_error = 1.0 / std::sqrt(w1 + w2);
  } else if (refined.std_error < first.std_error) {
    v.answer = RefineAnswer::refined;
    v.log_z = refined.log_z;
    v.std_error = refined.std_error;
  }
  return v;
}

EvidenceResult run_evidence(std::shared_ptr<const Prior> prior, const Likelihood& likelihood,
                            const SmcOptions& options, const EvidenceRefine& refine) {
  if (!prior) fail_argument("logz::run_evidence", "prior", "a prior");
  if (likelihood.dim != prior->dim())
    fail_argument("logz::run_evidence", "likelihood", "the prior's dimension");
  LikelihoodTilt tilt(likelihood);
  if (options.move != SmcMove::random_walk && !(prior->has_grad() && tilt.has_grad()))
    fail_argument("logz::run_evidence", "move",
                  "random_walk where the prior or the likelihood has no gradient");
  // The path holds its base by value: a Prior shares its blocks, so the copy is cheap.
  const TiltedPath<Prior, LikelihoodTilt> path(*prior, tilt);
  EvidenceResult r;
  r.smc = adaptive_smc(path, options);
  r.log_evidence = r.smc.absolute_log_z();
  r.std_error = r.smc.log_z.std_error;
  r.move = options.move;
  if (!refine.enabled || !std::isfinite(r.log_evidence)) return r;
  SmcOptions second = options;
  second.seed = derived_seed(options.seed, 0x72666e65u, 0);  // "refn"
  second.progress = nullptr;  // progress is the first run's temperatures; this one is short
  const PosteriorTarget posterior(*prior, tilt);
  if (prior->constraints()) {
    if (const auto shape = boxed_shape_mixture(r.smc, *prior, refine, options.seed)) {
      r.refined = refine_from(*shape, posterior, second);
      // The base's log Z is estimated (GaussianMixtureInBox): its error joins the run's.
      r.refined->log_z.std_error = std::hypot(r.refined->log_z.std_error, shape->log_z_std_error());
      r.base_components = shape->num_components();
    } else {
      r.refined =
          refine_from(fit_truncated_gaussian_base(r.smc, refine.widening, prior->lower_bounds(),
                                                  prior->upper_bounds()),
                      posterior, second);
    }
  } else if (const auto modes = fit_gaussian_mixture_base(r.smc, refine.widening)) {
    r.refined = refine_from(*modes, posterior, second);
    r.base_components = modes->num_components();
  } else if (const auto shape =
                 fit_shape_mixture_base(r.smc, refine.widening, ShapeTails::defended)) {
    r.refined = refine_from(*shape, posterior, second);
    r.base_components = shape->num_components();
  } else
    r.refined = refine_from(fit_gaussian_base(r.smc, refine.widening), posterior, second);
  const RefineVerdict verdict =
      refine_verdict({r.log_evidence, r.std_error, !r.smc.log_z.diagnostics.flags.empty()},
                     {r.refined->absolute_log_z(),  // its base's log Z included
                      r.refined->log_z.std_error, !r.refined->log_z.diagnostics.flags.empty()});
  if (verdict.disagree) r.smc.log_z.diagnostics.add_flag("pilot_disagrees");
  r.answer = verdict.answer;
  r.log_evidence = verdict.log_z;
  r.std_error = verdict.std_error;
  return r;
}

}  // namespace logz
