// The result JSON that `logz plot` reads (apps/logz/plots/result_file.*): read_result_file on
// the input written to a temporary file, then every read the plots make of it before drawing
// (works, betas and the per-temperature series, acceptance rates, estimates, repetitions,
// reference values, the model's title), each of which may reject the file with an InputError.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "plots/model_title.hpp"
#include "plots/result_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  using namespace logz::plots;
  const fuzz::TempFile file("result", ".json", data, size);
  ResultFile r;
  if (!fuzz::accepts([&] { r = read_result_file(file.path()); })) return 0;

  for (const char* key : {"forward.works", "reverse.works", "betas"})
    fuzz::accepts([&] {
      if (find_key(r.json, key)) (void)numbers(r, key);
    });
  fuzz::accepts([&] {
    if (!find_key(r.json, "betas")) return;
    const std::size_t n = numbers(r, "betas").size();
    for (const char* key : {"equilibrium_energy", "forward.mean_energy", "reverse.mean_energy"})
      fuzz::accepts([&] { (void)series(r, key, n); });
    for (const char* key : {"forward.acceptance", "reverse.acceptance"})
      fuzz::accepts([&] {
        for (double rate : acceptance_series(r, key, n))
          fuzz::check(!(rate < 0 || rate > 1), "rates in [0, 1]");
      });
  });
  fuzz::accepts([&] {
    for (const MethodValue& e : evidence_estimates(r))
      fuzz::check(!std::isinf(e.value), "finite or NaN estimates");
  });
  fuzz::accepts([&] { (void)repetition_estimates(r); });
  for (const char* key : {"reference.evidence", "reference.log_z", "runtime_s",
                          "config.schedule.num_steps", "", ".", "a..b", "estimates."})
    fuzz::accepts([&] {
      const double x = optional_number(r, key);
      fuzz::check(!std::isinf(x), "finite or NaN numbers");
    });
  fuzz::accepts([&] { (void)model_title(r); });
  return 0;
}
