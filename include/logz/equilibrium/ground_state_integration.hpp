// Thermodynamic integration from the ground state, for a lattice model in its
// ordered phase. With E_0 the ground-state energy and g_0 its degeneracy,
//
//   log Z(beta) = log g_0 - beta E_0 + integral_beta^infinity (<E>_b - E_0) db,
//
// because d log Z / db = -<E>_b and log Z(b) -> log g_0 - b E_0 as b -> infinity.
// The excess energy <E>_b - E_0 decays like exp(-Delta b) (Delta: the lowest
// excitation), so the integral is cut at a beta_max where it is negligible and
// the rest is extrapolated from the decay rate of the last grid points.
//
// Chains start in a ground state at beta_max, equilibrate, and walk down the
// grid to beta, equilibrating at each point and then averaging E. Each chain
// gives its own integral (composite Simpson rule); chains are independent, so
// the standard error is their spread over sqrt(chains). The quadrature error is
// estimated by Richardson's rule from Simpson's rule on every other point.
//
// Valid only where the ordered phase is the equilibrium at every grid point:
// below (or near) an ordering transition the chains stay in the metastable
// ordered phase and the answer is wrong. For the 2D Ising model that is
// beta > 0.4407 / J; for the q-state Potts model beta > log(1 + sqrt(q)) / J.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "logz/core/error.hpp"
#include "logz/core/estimate.hpp"
#include "logz/core/kernel_for.hpp"
#include "logz/core/stop_request.hpp"
#include "logz/parallel/run_chunks.hpp"
#include "logz/random/philox.hpp"

namespace logz {

struct GroundStateIntegrationOptions {
  std::size_t num_chains = 32;
  std::size_t chunk_size = 1;
  std::uint64_t seed = 1;
  int threads = 0;
  std::size_t start_steps = 100;         // kernel applications at beta_max from the ground state
  std::size_t equilibration_steps = 10;  // kernel applications at each grid point before measuring
  std::size_t measurement_steps = 100;   // kernel applications measured at each grid point
  ChunkProgress progress;
  StopToken stop;  // the run's stop request (core/stop_request.hpp), given to the kernel
};

struct GroundStateIntegration {
  std::vector<double> betas;             // the grid, ascending: betas.front() is the target's beta
  std::vector<double> mean_energy;       // <E> at each grid point (all chains)
  std::vector<double> energy_std_error;  // between-chain standard error of mean_energy
  std::vector<double> chain_integrals;   // each chain's Simpson integral of <E> - E_0
  double ground_energy = kNaN, log_degeneracy = kNaN;
  double integral = kNaN;  // integral over the grid of <E> - E_0 (Simpson, mean of chains)
  double integral_std_error = kNaN;
  double trapezoid_integral = kNaN;  // the same integral by the trapezoid rule (a check)
  double quadrature_error = kNaN;    // |Simpson(h) - Simpson(2h)| / 15
  double tail = kNaN;                // extrapolated integral from beta_max to infinity
  double log_z = kNaN;               // the target's absolute log Z
  Estimate estimate;                 // method "ground_state_ti": the evidence log_z - base_log_z
};

// Composite Simpson and trapezoid rules on an equally spaced grid.
double simpson_rule(std::span<const double> y, double h);
double trapezoid_rule(std::span<const double> y, double h);

// The summary of per-chain means: integrals, errors, tail and the estimate.
// chain_means[c][j] is chain c's mean energy at betas[j]; betas ascending and
// equally spaced with an even number of intervals divisible by 4.
GroundStateIntegration summarise_ground_state_integration(
    std::vector<double> betas, const std::vector<std::vector<double>>& chain_means,
    double ground_energy, double log_degeneracy, double base_log_z);

// The grid beta, ..., beta_max with `intervals` equal steps (a multiple of 4).
std::vector<double> ground_state_grid(double beta, double beta_max, std::size_t intervals);

// Path: the annealing-path interface (at(t), trace_energy, make_batch) with
// inverse temperature t * model_beta at path fraction t; ground_state(batch,
// random) fills a batch with ground states of energy ground_energy; base_log_z
// is the base's log Z_0 that the estimate's evidence is relative to.
template <class Path, class Kernel, class GroundState>
GroundStateIntegration ground_state_integration(const Path& path, const Kernel& kernel,
                                                double model_beta, const std::vector<double>& betas,
                                                double ground_energy, double log_degeneracy,
                                                double base_log_z, const GroundState& ground_state,
                                                const GroundStateIntegrationOptions& o) {
  if (!(model_beta > 0) || !std::isfinite(model_beta))
    fail_argument("ground_state_integration", "model_beta",
                  "a positive finite inverse temperature");
  if (betas.size() < 5)
    fail_argument("ground_state_integration", "betas", "a grid of at least 5 points");
  if (o.num_chains < 2)
    fail_argument("ground_state_integration", "options.num_chains",
                  "at least 2 chains (for an error bar)");
  if (o.measurement_steps < 1)
    fail_argument("ground_state_integration", "options.measurement_steps", "at least 1");
  const std::size_t n = betas.size();
  std::vector<std::vector<double>> means(o.num_chains, std::vector<double>(n, 0.0));
  run_chunks(
      o.num_chains, o.chunk_size, o.threads,
      [&](const ChunkRange& c) {
        auto batch = path.make_batch(c.size());
        std::vector<double> e(c.size());
        ground_state(batch, BatchRandom{o.seed, Purpose::equilibrium, 0, c.begin});
        std::uint32_t step = 1;
        const auto target_top = path.at(betas.back() / model_beta);
        for (std::size_t s = 0; s < o.start_steps; ++s)
          step_kernel(kernel, target_top, batch,
                      BatchRandom{o.seed, Purpose::equilibrium, step++, c.begin}, o.stop);
        for (std::size_t jj = n; jj-- > 0;) {
          const auto target = path.at(betas[jj] / model_beta);
          for (std::size_t s = 0; s < o.equilibration_steps; ++s)
            step_kernel(kernel, target, batch,
                        BatchRandom{o.seed, Purpose::equilibrium, step++, c.begin}, o.stop);
          for (std::size_t s = 0; s < o.measurement_steps; ++s) {
            step_kernel(kernel, target, batch,
                        BatchRandom{o.seed, Purpose::equilibrium, step++, c.begin}, o.stop);
            path.trace_energy(batch, e);
            for (std::size_t i = 0; i < c.size(); ++i) means[c.begin + i][jj] += e[i];
          }
          for (std::size_t i = 0; i < c.size(); ++i) {
            means[c.begin + i][jj] /= static_cast<double>(o.measurement_steps);
            if (!std::isfinite(means[c.begin + i][jj]))
              throw NumericalError("ground_state_integration: non-finite energy of chain " +
                                   std::to_string(c.begin + i) +
                                   " at beta = " + std::to_string(betas[jj]));
          }
        }
      },
      o.progress, o.stop);
  return summarise_ground_state_integration(betas, means, ground_energy, log_degeneracy,
                                            base_log_z);
}

}  // namespace logz
