// Anneals a 4 x 4 Ising torus through the installed headers and library and
// checks BAR against Kaufman's exact answer (5 SE + SE^2); then round-trips an
// .npz of two dtypes, which needs the libzip the library links privately.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "logz/anneal/annealer.hpp"
#include "logz/estimators/bar.hpp"
#include "logz/exact/ising_kaufman.hpp"
#include "logz/io/npz.hpp"
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
  auto start = [&](logz::SpinBatch& b, const logz::ChunkStreams& streams) {
    model.ground_state(b, streams.random(0));
    equilibrate.step(model.at(1.0), b, streams.random(1));
  };
  const auto reverse = logz::anneal_reverse(model, kernel, schedule, start, options);
  const auto e = logz::bar(forward.works, reverse.works);
  const double exact = logz::exact::ising_log_z_kaufman(4, 4, 0.5) - model.base_log_z();
  std::printf("bar %.4f +- %.4f, exact %.4f\n", e.log_z, e.std_error, exact);
  if (std::abs(e.log_z - exact) > 5 * e.std_error + e.std_error * e.std_error) return 1;

  const std::map<std::string, logz::io::Array> arrays = {
      {"x", logz::io::Array{{2}, {e.log_z, exact}}},
      {"u", logz::io::Array{{3}, std::vector<std::uint8_t>{0, 7, 255}}}};
  const std::string npz = (std::filesystem::temp_directory_path() /
                           ("logz_consumer_" + std::to_string(::getpid()) + ".npz"))
                              .string();
  logz::io::write_npz(npz, arrays, true);
  const bool same = logz::io::read_npz(npz) == arrays;
  std::filesystem::remove(npz);
  std::printf("npz round trip: %s\n", same ? "same" : "different");
  return same ? 0 : 1;
}
