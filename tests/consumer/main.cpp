// Anneals a 4 x 4 Ising torus through the installed headers and library and
// checks BAR against Kaufman's exact answer (5 SE + SE^2).
#include <cmath>
#include <cstdio>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/kernels/spin_flip_metropolis.hpp"
#include "logz/models/ising.hpp"

int main() {
  const logz::IsingModel model(4, 4, 1.0, 0.5);
  const logz::SpinFlipMetropolis kernel(logz::SiteOrder::random, 16);
  const auto schedule = logz::linear_schedule(100);
  logz::AnnealOptions options;
  options.num_paths = 200;
  options.seed = 7;
  const auto forward = logz::anneal_forward(model, kernel, schedule, options);
  const auto equilibrate = kernel.with_steps(100 * 16);
  auto start = [&](logz::SpinBatch& b, const logz::ChunkRange& c) {
    model.ground_state(b, logz::BatchRandom{7, logz::Purpose::reverse_start, 0, c.begin});
    equilibrate.step(model.at(1.0), b, logz::BatchRandom{7, logz::Purpose::reverse_start, 1, c.begin});
  };
  const auto reverse = logz::anneal_reverse(model, kernel, schedule, start, options);
  const auto e = logz::bar(forward.works, reverse.works);
  const double exact = logz::exact::ising_log_z_kaufman(4, 4, 0.5) - model.base_log_z();
  std::printf("bar %.4f +- %.4f, exact %.4f\n", e.log_z, e.std_error, exact);
  return std::abs(e.log_z - exact) <= 5 * e.std_error + e.std_error * e.std_error ? 0 : 1;
}
