// What the services return: typed results of `logz run`, `logz loglik` and `logz sample`. The
// library builds them and never reads them back as text; the front ends (the report writer of
// the command-line tool, the Python module) turn them into tables, JSON and plots.
//
// Units: Estimate::log_z in `estimates` is the evidence log(Z / Z_0) (estimators' convention);
// base_log_z is the base's exact log Z_0, so a target's absolute log Z is log_z + base_log_z.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "logz/anneal/works.hpp"
#include "logz/config/value.hpp"
#include "logz/core/estimate.hpp"
#include "logz/estimators/test_log_likelihood.hpp"
#include "logz/paths/schedule.hpp"
#include "logz/samplers/hmc_sampler.hpp"

namespace logz {

// The target's exact absolute log Z and how it is known ("kaufman", "enumeration", ...).
struct Reference {
  double log_z = kNaN;
  std::string source;
};

// One tempered-sample estimator's answer at every level of the ladder (evidences log Z_k / Z_1).
struct LevelEstimates {
  std::string method;
  std::vector<double> evidence, std_error, bias;
};

// Simulated tempering: the ladder, how the log Z_k estimates were initialised, and what the
// final run's chains did.
struct TemperingSummary {
  std::string initialization;                // "iterations", "wang_landau" or "none"
  std::optional<int> iterations;             // initial iterations run ("iterations")
  std::optional<int> stages;                 // Wang-Landau stages ("wang_landau")
  std::optional<bool> converged;             // whether the initialisation met its stopping rule
  std::optional<double> tolerance;           // the stopping rule's max_k |r_k - c_k| ("iterations")
  std::vector<double> iteration_deviations;  // max_k |r_k - c_k| after each initial iteration
  std::vector<double> log_z_hat_initial;     // log Zhat_k entering the final run
  std::size_t num_chains = 0, num_sweeps = 0;
  std::vector<double> ladder;          // path fractions t_k of the levels
  std::vector<LevelEstimates> levels;  // per requested method
  std::vector<double> log_c;           // eq. 9 of the final run
  std::vector<std::uint64_t> counts;   // visits per level
  double max_level_deviation = kNaN;
  double kernel_acceptance = kNaN;  // NaN where the kernel reports no acceptance
  // Per level: the kernel's acceptance at the moves made there (NaN where none were); empty
  // where the kernel reports none or its counts could not be split by chain.
  std::vector<double> level_acceptance;
  // Per level: the mean of -Delta = dU_t(x)/dt at t_k over the final run's samples moved there
  // (a geometric path: U_1(x) - U_0(x), annealing's trace energy); NaN where none or where the
  // run kept no TI integrands (TemperingStats::has_integrands).
  std::vector<double> mean_energy;
  std::vector<double> exact_evidence;  // exact log(Z_k / Z_1) per level, where known
};

// Thermodynamic integration from the ground state (equilibrium/ground_state_integration.hpp).
struct GroundStateSummary {
  std::vector<double> betas, mean_energy, energy_std_error, chain_integrals;
  double ground_energy = kNaN, log_degeneracy = kNaN, integral = kNaN, integral_std_error = kNaN,
         trapezoid_integral = kNaN, quadrature_error = kNaN, tail = kNaN, log_z = kNaN;
};

// One method's estimates (evidences) over [run] repetitions.
struct RepetitionSummary {
  std::string method;
  std::vector<double> evidence, std_error;
  double mean = kNaN, sd = kNaN, mean_std_error = kNaN;
  double mean_error = kNaN, rmse = kNaN, coverage_2se = kNaN;  // only with an exact answer
  std::size_t failed = 0;  // repetitions with a non-finite estimate (left out of the summary)
};

struct Repetitions {
  std::vector<std::uint64_t> seeds;
  std::vector<RepetitionSummary> methods;
};

// The test-set log-likelihood of an RBM, L = mean(-F(v)) - log Z, and whose log Z it used.
struct TestSetLogLikelihood {
  TestLogLikelihood value;
  std::string log_z_source;  // "exact" or the estimate whose log Z was used
};

// The work a run did, in the model's unit of work (site updates for lattices, a cluster move
// counting one per site it visits), so that methods compare at equal work: the kernel's
// updates per part of the run (forward, reverse, reverse_start), for one repetition.
struct Budget {
  std::string unit;
  std::vector<std::pair<std::string, std::uint64_t>> parts;
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (const auto& p : parts) t += p.second;
    return t;
  }
};

// The pilot run of an adaptive schedule: its plan, its cost in kernel updates, and the
// thermodynamic length it measured (the sum over its steps of the work increments' sd).
struct PilotSummary {
  AdaptivePlan plan;
  std::uint64_t kernel_updates = 0;
  double thermodynamic_length = kNaN;
  std::size_t reverse_paths = 0;  // reverse pilot paths, each from the run's own reverse start
};

// `logz run`.
struct RunResult {
  Record model;                        // what was run: the model, its base and path
  double base_log_z = kNaN;            // exact log Z_0 of the base
  std::optional<Reference> reference;  // exact answer, when known
  std::optional<Works> forward, reverse;
  std::vector<Estimate> estimates;         // log_z here is the evidence log(Z / Z_0)
  std::vector<double> equilibrium_energy;  // exact mean energy per temperature, when known
  Record kernel;                           // kernel settings and diagnostics
  std::optional<TemperingSummary> tempering;
  std::optional<GroundStateSummary> ground_state;
  std::optional<Repetitions> repetitions;
  std::optional<TestSetLogLikelihood> test_log_likelihood;
  std::optional<Budget> budget;
  std::optional<PilotSummary> pilot;  // adaptive schedules
  Record details;                     // a method's own diagnostics (JSON "details"), by name
  double runtime_s = 0.0;
  Record config;  // the resolved config
};

// The path fractions an annealing run used (forward's, else reverse's; empty without either):
// an adaptive schedule is only known once the run has placed it.
inline std::span<const double> annealed_fractions(const RunResult& r) {
  if (r.forward) return r.forward->fractions;
  if (r.reverse) return r.reverse->fractions;
  return {};
}

// One data point's log-likelihood (generative models).
struct PointLoglik {
  double log_likelihood = kNaN;  // the estimate of log p(x_i)
  double std_error = kNaN;       // its Monte Carlo error
  double exact = kNaN;           // exact log p(x_i) where known
  double ess = kNaN;             // Kish ESS of its AIS weights
  bool low_ess = false;          // its AIS estimate's flag low_ess: std_error understates the error
};

// `logz loglik`: the average log-likelihood L of a data set. Analysis models (one log Z for the
// set): L = -mean E(x) - log Z; generative models: L = mean_i log p(x_i), one AIS run per point.
struct LoglikResult {
  bool analysis = true;  // which of the two formulas
  Record model, kernel;  // descriptions
  std::size_t num_points = 0;
  double log_likelihood = kNaN;  // L
  double std_error_data = kNaN;  // sd over data points / sqrt(N): the spread of the test set
  double std_error_monte_carlo =
      kNaN;                   // the estimator's own error (of log Z, or of the mean of log p(x_i))
  double exact = kNaN;        // exact L where known
  double mean_energy = kNaN;  // analysis models: mean E(x)
  Estimate log_z;             // analysis models: the log Z estimate (absolute)
  std::vector<PointLoglik> points;  // generative models
  // Generative models: points whose AIS estimate has the flag low_ess (ESS below max(10, 1% of
  // the paths)), where the weights cannot show how far off the estimate is, so that
  // std_error_monte_carlo understates the error; flag "low_ess_points" when there are any.
  std::size_t num_low_ess_points = 0;
  std::vector<std::string> flags;
  double runtime_s = 0.0;
  Record config;  // the resolved config
};

// `logz sample`: draws of the HMC sampler and their summary.
struct SampleResult {
  HmcSamplerResult result;
  Record model, sampler;
  std::vector<double> mean, sd;  // per dimension over all kept draws
  std::vector<std::vector<double>>
      covariance;  // over all kept draws, n - 1 denominator (numpy.cov)
  // The target's own mean and covariance where the model knows them (a Gaussian); empty otherwise.
  std::vector<double> exact_mean;
  std::vector<std::vector<double>> exact_covariance;
  double runtime_s = 0.0;
  Record config;
};

}  // namespace logz
