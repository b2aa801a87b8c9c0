// logz estimate: the estimators on the user's own work values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "logz/core/error.hpp"
#include "logz/io/number_list.hpp"
#include "logz/report/json.hpp"
#include "logz/report/tables.hpp"
#include "logz/services/estimators.hpp"
#include "logz/services/memory_guard.hpp"
#include "logz/services/registry.hpp"

namespace logz::cli {

namespace {

struct EstimateArgs {
  std::string forward, reverse, methods, output;
  EstimatorOptions options;
};

}  // namespace

std::function<int()> add_estimate_command(CLI::App& app) {
  auto a = std::make_shared<EstimateArgs>();
  CLI::App* sub = app.add_subcommand(
      "estimate", "Estimate log(Z1/Z0) from your own work values: forward works W_f with "
                  "E[exp(-W_f)] = Z1/Z0, reverse works W_r with E[exp(-W_r)] = Z0/Z1 (text, one "
                  "number a line, or .npy)");
  sub->add_option("--forward,-f", a->forward, "Forward work file");
  sub->add_option("--reverse,-r", a->reverse, "Reverse work file");
  sub->add_option("--methods,-m", a->methods,
                  "Comma-separated: " + fmt::format("{}", fmt::join(estimator_names("works"), ",")) +
                      " (default: " + fmt::format("{}", fmt::join(default_estimator_names("works"), ",")) +
                      ", those that the files allow)");
  sub->add_option("--output,-o", a->output, "Write the estimates as JSON to this file");
  sub->add_option("--seed", a->options.seed, "Seed of histogram_posterior's Gibbs sampler")
      ->capture_default_str();
  sub->add_option("--posterior-draws", a->options.posterior_draws,
                  "Kept Gibbs sweeps of histogram_posterior (>= 2)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 30));
  sub->add_option("--posterior-burn-in", a->options.posterior_burn_in,
                  "Discarded Gibbs sweeps before them")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  sub->add_option("--histogram-bins", a->options.histogram_bins,
                  "Bins of the histogram estimators; 0: one point per distinct work (= BAR)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  return [a] {
    if (a->forward.empty() && a->reverse.empty())
      throw InputError("logz estimate: --forward/--reverse: expected at least one work file");
    check_fits_in_memory("--histogram-bins", kBytesPerHistogramBin * static_cast<double>(a->options.histogram_bins),
                         "the histograms");
    check_fits_in_memory("--posterior-draws", kBytesPerPosteriorDraw * static_cast<double>(a->options.posterior_draws),
                         "the posterior draws");
    std::vector<double> fw, rw;
    if (!a->forward.empty()) fw = io::read_numbers(a->forward);
    if (!a->reverse.empty()) rw = io::read_numbers(a->reverse);
    const bool has_f = !a->forward.empty(), has_r = !a->reverse.empty();
    std::vector<std::string> methods;
    if (a->methods.empty()) {
      methods = default_works_estimators(has_f, has_r);
    } else {
      const auto names = estimator_names("works");
      std::istringstream in(a->methods);
      std::string m;
      while (std::getline(in, m, ',')) {
        if (m.empty()) continue;
        if (std::find(names.begin(), names.end(), m) == names.end())
          throw InputError("logz estimate: --methods: expected names from " + quoted_names(names) + "; got \"" + m +
                           "\"");
        methods.push_back(m);
      }
      if (methods.empty()) throw InputError("logz estimate: --methods: expected at least one estimator name");
    }
    const std::string missing = estimator_requirements(methods, has_f, has_r);
    if (!missing.empty()) throw InputError("logz estimate: --methods: " + missing);
    std::vector<Estimate> estimates;
    try {
      estimates = run_estimators(methods, has_f ? &fw : nullptr, has_r ? &rw : nullptr, a->options);
    } catch (const NumericalError& e) {  // the works of these files: name them
      throw InputError(fmt::format("{}{}{}: {}", has_f ? "--forward " + a->forward : "", has_f && has_r ? ", " : "",
                                   has_r ? "--reverse " + a->reverse : "", e.what()));
    }
    std::cout << "log(Z1/Z0) from " << (has_f ? std::to_string(fw.size()) + " forward" : std::string())
              << (has_f && has_r ? " and " : "") << (has_r ? std::to_string(rw.size()) + " reverse" : std::string())
              << " works\n"
              << report::estimates_table(estimates, 0.0, nullptr);
    if (!a->output.empty()) {
      nlohmann::json j = {{"estimates", nlohmann::json::object()},
                          {"num_forward", fw.size()}, {"num_reverse", rw.size()}};
      for (const auto& e : estimates) j["estimates"][e.method] = report::estimate_to_json(e, 0.0);
      write_text_file(a->output, j.dump(2) + "\n");
    }
    return 0;
  };
}

}  // namespace logz::cli
