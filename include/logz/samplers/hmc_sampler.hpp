// The standalone HMC sampler of the deeplearning.net tutorial: many chains moved in
// lockstep by Hmc (n leapfrog steps, momentum redrawn every move, Metropolis accept on
// H = U + |v|^2/2), with the tutorial's step-size adaptation between moves:
//   a <- s a + (1 - s) (fraction of chains accepted this move)      (s = slowness, 0.9)
//   eps <- clip(eps * (a > target ? 1.02 : 0.98), eps_min, eps_max)   (target 0.9, [0.001, 0.25])
// with a started at the target. The fraction is a chunk-ordered reduction, so the step-size
// trajectory depends on the seed only. Adapting while keeping draws makes the chain
// inhomogeneous; by default adaptation runs during burn-in only and the step size is then
// frozen (phase "always" reproduces the tutorial). The effective sample size per dimension
// is the multi-chain one of math/effective_sample_size.hpp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "logz/core/enum_names.hpp"
#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/kernels/hmc.hpp"
#include "logz/math/effective_sample_size.hpp"
#include "logz/models/continuous_target.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/default_seed.hpp"

namespace logz {

// The tutorial's rule and defaults.
struct StepSizeAdaptation {
  double target_acceptance = 0.9;
  double slowness = 0.9;   // weight of the old average in the moving average
  double increase = 1.02;  // factor when the average acceptance is above target
  double decrease = 0.98;  // factor otherwise
  double min_step = 0.001;
  double max_step = 0.25;

  // Updates (step_size, average_acceptance) after a move whose acceptance fraction was
  // `acceptance`: the average first, then the step from the new average.
  void update(double& step_size, double& average_acceptance, double acceptance) const;
  void validate() const;  // InvalidArgument naming the bad field
};

LOGZ_NAMED_ENUM(AdaptPhase, burn_in, always, never);

struct HmcSamplerOptions {
  std::size_t burn_in = 1000;
  std::size_t num_draws = 1000;
  double initial_step_size = 0.01;
  int leapfrog_steps = 20;
  StepSizeAdaptation adaptation;
  AdaptPhase adapt = AdaptPhase::burn_in;
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;
  std::size_t chunk_size = 8;
  StopToken stop;  // the run's stop request (core/stop_request.hpp): Stopped before a move
};

struct HmcSamplerResult {
  int dim = 0;
  std::size_t num_chains = 0, num_draws = 0;
  std::vector<double> draws;  // num_draws x num_chains x dim, row-major (draw, chain, dim)
  double final_step_size = 0.0;
  double average_acceptance = 0.0;  // the moving average at the end
  double acceptance_rate = 0.0;     // accepted / attempted over the kept draws
  double mean_energy_error = 0.0;   // mean H(proposal) - H(current) over the kept draws
  std::uint64_t non_finite = 0, reflections = 0;
  std::vector<double> ess;              // per dimension, over all kept draws
  std::vector<double> step_size_trace;  // after every move (burn-in and draws)

  double draw(std::size_t t, std::size_t chain, int i) const {
    return draws[(t * num_chains + chain) * static_cast<std::size_t>(dim) +
                 static_cast<std::size_t>(i)];
  }
};

// Runs the chains from `initial` (d x M, one column per chain). Chain m draws from the
// Philox stream (seed, m, Purpose::forward_kernel, step = move index).
template <ContinuousTarget T>
HmcSamplerResult sample_hmc(const T& target, const Eigen::MatrixXd& initial,
                            const HmcSamplerOptions& o) {
  o.adaptation.validate();
  if (initial.rows() != target.dim() || initial.cols() < 1)
    fail_argument("logz::sample_hmc", "initial",
                  "a d x M matrix (d = target dimension, M >= 1 chains)");
  const std::size_t M = static_cast<std::size_t>(initial.cols()),
                    d = static_cast<std::size_t>(initial.rows());
  const std::size_t n_chunks = num_chunks(M, o.chunk_size);
  std::vector<ContinuousBatch> batches =
      run_chunks(M, o.chunk_size, o.threads, [&](const ChunkRange& c) {
        ContinuousBatch b(static_cast<int>(d), c.size());
        b.X = initial.middleCols(static_cast<Eigen::Index>(c.begin),
                                 static_cast<Eigen::Index>(c.size()));
        return b;
      });
  HmcSamplerResult res;
  res.dim = static_cast<int>(d);
  res.num_chains = M;
  res.num_draws = o.num_draws;
  res.draws.resize(o.num_draws * M * d);
  double eps = o.initial_step_size, avg = o.adaptation.target_acceptance;
  ContinuousKernelInfo kept;
  const std::size_t total = o.burn_in + o.num_draws;
  for (std::size_t it = 0; it < total; ++it) {
    const Hmc kernel(eps, o.leapfrog_steps);
    const auto infos = run_chunks(
        M, o.chunk_size, o.threads,
        [&](const ChunkRange& c) {
          return kernel.step(target, batches[c.index],
                             BatchRandom{o.seed, Purpose::forward_kernel,
                                         static_cast<std::uint32_t>(it), c.begin});
        },
        {}, o.stop);
    ContinuousKernelInfo sum;
    for (const auto& i : infos) sum += i;  // chunk order: the same sums for any thread count
    const bool sampling = it >= o.burn_in;
    if (sampling) {
      kept += sum;
      const std::size_t t = it - o.burn_in;
      for (std::size_t c = 0; c < n_chunks; ++c) {
        const ChunkRange r = chunk_range(c, M, o.chunk_size);
        for (std::size_t j = 0; j < r.size(); ++j)
          for (std::size_t i = 0; i < d; ++i)
            res.draws[(t * M + r.begin + j) * d + i] =
                batches[c].X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
      }
    }
    const bool adapt =
        o.adapt == AdaptPhase::always || (o.adapt == AdaptPhase::burn_in && !sampling);
    if (adapt)
      o.adaptation.update(eps, avg,
                          static_cast<double>(sum.accepted) / static_cast<double>(sum.attempted));
    res.step_size_trace.push_back(eps);
  }
  res.final_step_size = eps;
  res.average_acceptance = avg;
  res.acceptance_rate =
      kept.attempted ? static_cast<double>(kept.accepted) / static_cast<double>(kept.attempted)
                     : kNaN;
  const std::uint64_t finite = kept.attempted - kept.non_finite;
  res.mean_energy_error = finite ? kept.sum_energy_error / static_cast<double>(finite) : kNaN;
  res.non_finite = kept.non_finite;
  res.reflections = kept.reflections;
  for (std::size_t i = 0; i < d; ++i)
    res.ess.push_back(
        o.num_draws ? effective_sample_size(res.draws.data() + i, o.num_draws, M, M * d, d) : kNaN);
  return res;
}

}  // namespace logz
