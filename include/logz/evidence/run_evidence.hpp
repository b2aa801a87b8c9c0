// The evidence log integral p(x) L(x) dx of a prior and a likelihood by adaptive tempered SMC
// (smc/adaptive_smc.hpp) on the tilted path prior x likelihood^t (paths/tilted_path.hpp,
// evidence/likelihood_tilt.hpp), whose first distribution is the prior itself (exact draws, log Z_0
// = 0). No tuning is needed: the SMC defaults hold, except the move, which is HMC where the prior
// and the likelihood both have gradients and Gaussian random walk otherwise
// (evidence_default_move).
#pragma once

#include <memory>
#include <optional>

#include "logz/core/enum_names.hpp"
#include "logz/evidence/likelihood.hpp"
#include "logz/evidence/prior.hpp"
#include "logz/smc/smc_options.hpp"

namespace logz {

// After the run from the prior, a second run from a Gaussian fitted to its particles to the
// posterior (smc/fitted_base.hpp; a mixture with a Gaussian per mode where the particles hold
// separated modes; where the prior has a box, independent normals truncated to it, whose
// support is the posterior's): the same particles, a seed of its own. The answer is
// the two estimates combined, or the more precise (refine_verdict), where they agree within 3
// combined SEs + 0.05; the
// two disagreeing by more than that is flagged pilot_disagrees (the answer then the refining
// run's where it is unflagged). Close to the posterior, the
// second run needs few temperatures: on issue 45's d = 50 regression SE 0.04 against 0.1 for
// about a tenth more evaluations.
struct EvidenceRefine {
  bool enabled = true;
  double widening = 1.2;  // the fitted standard deviations times this
};

// How the answer is made from the two runs (refine_verdict).
LOGZ_NAMED_ENUM(RefineAnswer, first, refined, combined);

struct EvidenceResult {
  SmcResult smc;  // log_z: log(Z_1 / Z_0), its SE, flags and diagnostics; particles at t = 1
  // The refining run (absolute_log_z(): its fitted base's log Z included), when it ran, and
  // how the answer was made from the two runs.
  std::optional<SmcResult> refined;
  RefineAnswer answer = RefineAnswer::first;
  // The refining run's base: 1 (a Gaussian), or the Gaussians of a mixture over the first
  // run's separated modes (fit_gaussian_mixture_base) or fitted to its particles' shape
  // (fit_shape_mixture_base).
  int base_components = 1;
  double log_evidence = kNaN;
  double std_error = kNaN;
  SmcMove move = SmcMove::hmc;  // the move used
};

// The refining run's verdict: the two estimates agree within 3 combined SEs + 0.05 (else
// `disagree`: the flag pilot_disagrees, and the refining run's estimate where it is unflagged
// with a finite SE, the first's otherwise). Where they agree, neither
// run is flagged and their SEs are within a factor kCombineWithin of each other, the answer is
// their inverse-variance weighted mean, with SE (1/se_1^2 + 1/se_2^2)^-1/2: the refining run is
// unbiased for any base it starts from, so its error is uncorrelated with the first run's, whose
// particles chose that base. Where they agree but one SE is more than kCombineWithin times the
// other, or only the first is flagged (its SE in doubt), the more precise estimate alone.
constexpr double kCombineWithin = 3.0;
struct RefineVerdict {
  RefineAnswer answer = RefineAnswer::first;
  bool disagree = false;
  double log_z = kNaN, std_error = kNaN;  // the answer's
};
struct RunEstimate {
  double log_z = kNaN, std_error = kNaN;
  bool flagged = false;
};
RefineVerdict refine_verdict(const RunEstimate& first, const RunEstimate& refined);

// HMC where gradients are available, else random_walk.
SmcMove evidence_default_move(const Prior& prior, const Likelihood& likelihood);

// Runs SMC with `options` (options.move as given: see evidence_default_move). InvalidArgument
// naming `move` where a gradient move is asked for without gradients, `likelihood` where the
// dimensions differ; the options are validated as adaptive_smc does.
EvidenceResult run_evidence(std::shared_ptr<const Prior> prior, const Likelihood& likelihood,
                            const SmcOptions& options, const EvidenceRefine& refine = {});

}  // namespace logz
