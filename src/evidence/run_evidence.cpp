#include "logz/evidence/run_evidence.hpp"

#include <utility>

#include "logz/core/error.hpp"
#include "logz/evidence/likelihood_tilt.hpp"
#include "logz/paths/tilted_path.hpp"
#include "logz/smc/adaptive_smc.hpp"

namespace logz {

SmcMove evidence_default_move(const Prior& prior, const Likelihood& likelihood) {
  return prior.has_grad() && likelihood.has_grad() ? SmcMove::hmc : SmcMove::random_walk;
}

EvidenceResult run_evidence(std::shared_ptr<const Prior> prior, const Likelihood& likelihood,
                            const SmcOptions& options) {
  if (!prior) fail_argument("logz::run_evidence", "prior", "a prior");
  if (likelihood.dim != prior->dim())
    fail_argument("logz::run_evidence", "likelihood", "the prior's dimension");
  LikelihoodTilt tilt(likelihood);
  if (options.move != SmcMove::random_walk && !(prior->has_grad() && tilt.has_grad()))
    fail_argument("logz::run_evidence", "move",
                  "random_walk where the prior or the likelihood has no gradient");
  // The path holds its base by value: a Prior shares its blocks, so the copy is cheap.
  const TiltedPath<Prior, LikelihoodTilt> path(*prior, std::move(tilt));
  EvidenceResult r;
  r.smc = adaptive_smc(path, options);
  r.log_evidence = r.smc.absolute_log_z();
  r.std_error = r.smc.log_z.std_error;
  r.move = options.move;
  return r;
}

}  // namespace logz
