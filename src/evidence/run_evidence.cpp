#include "logz/evidence/run_evidence.hpp"

#include <cmath>
#include <utility>

#include "logz/core/error.hpp"
#include "logz/evidence/likelihood_tilt.hpp"
#include "logz/evidence/posterior_target.hpp"
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

}  // namespace

RefineVerdict refine_verdict(double first, double first_se, double refined, double refined_se,
                             bool refined_flagged) {
  // One threshold for both: two estimates that do not agree leave no answer to trust without a
  // flag (with the flag at 4 SEs, a first run 3-4 SEs off its refining run was the answer,
  // unflagged: once in 200 calibration runs, 4 SEs from the exact value).
  RefineVerdict v;
  v.disagree = !(std::abs(refined - first) <= 3.0 * std::hypot(first_se, refined_se) + 0.05);
  v.use_refined = !v.disagree && !refined_flagged && refined_se < first_se;
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
  if (prior->constraints())
    r.refined =
        refine_from(fit_truncated_gaussian_base(r.smc, refine.widening, prior->lower_bounds(),
                                                prior->upper_bounds()),
                    posterior, second);
  else
    r.refined = refine_from(fit_gaussian_base(r.smc, refine.widening), posterior, second);
  const double log_z = r.refined->absolute_log_z();  // its base's log Z included
  const double se = r.refined->log_z.std_error;
  const RefineVerdict verdict = refine_verdict(r.log_evidence, r.std_error, log_z, se,
                                               !r.refined->log_z.diagnostics.flags.empty());
  if (verdict.disagree) r.smc.log_z.diagnostics.add_flag("pilot_disagrees");
  if (verdict.use_refined) {
    r.refined_used = true;
    r.log_evidence = log_z;
    r.std_error = se;
  }
  return r;
}

}  // namespace logz
