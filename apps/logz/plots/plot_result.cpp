// Every plot of one result that it has the data for.
#include "plots.hpp"

namespace logz::plots {

std::vector<std::string> plot_result(const ResultFile& r, const std::string& dir,
                                     const PlotOptions& options) {
  // The series are read (and checked) before the first plot is drawn: a bad one leaves no plots.
  const bool works = find_key(r.json, "forward.works") || find_key(r.json, "reverse.works");
  bool energies = false, rates = false;
  if (find_key(r.json, "betas")) {
    const auto n = numbers(r, "betas").size();
    const auto either = [](const std::vector<double>& forward, const std::vector<double>& reverse) {
      return any_finite(forward) || any_finite(reverse);
    };
    series(r, "equilibrium_energy", n);
    energies = either(series(r, "forward.mean_energy", n), series(r, "reverse.mean_energy", n));
    rates = either(acceptance_series(r, "forward.acceptance", n),
                   acceptance_series(r, "reverse.acceptance", n));
  }
  const bool barrier = find_key(r.json, "details.pt.barrier_profile_t") &&
                       numbers(r, "details.pt.barrier_profile_t").size() >= 2;
  if (!works && !energies && !rates && !barrier)
    fail_result(r, "forward",
                "work values, per-temperature traces or parallel tempering's barrier (a result "
                "written by logz run --output)");
  std::vector<std::string> written;
  auto add = [&](const std::vector<std::string>& files) {
    written.insert(written.end(), files.begin(), files.end());
  };
  if (works) add(plot_work_histograms(r, dir, options));
  if (energies) add(plot_hysteresis(r, dir, options));
  if (rates) add(plot_acceptance(r, dir, options));
  if (barrier) add(plot_barrier(r, dir, options));
  if (barrier && find_key(r.json, "details.pt.index_process"))
    add(plot_index_process(r, dir, options));
  return written;
}

}  // namespace logz::plots
